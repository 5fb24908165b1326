"""A self-hosted, ClawHub-compatible skill registry (``nervous registry serve``).

Modules: :mod:`.archive` (deterministic zips), :mod:`.blobs` (content-addressed file store),
:mod:`.catalog` (metadata through a :class:`nervous.kernel.storage.Store`), :mod:`.moderation`
(scan-on-publish verdicts), :mod:`.ratelimit`, :mod:`.api` (ClawHub routes), :mod:`.web` (the
HTML pages) and :mod:`.server` (uvicorn). Starlette and uvicorn are imported only by
:mod:`.api`, :mod:`.web` and :mod:`.server` (install ``nervous[server]``).
"""
