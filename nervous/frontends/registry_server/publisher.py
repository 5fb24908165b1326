"""Publish a skill folder to a ClawHub-protocol registry, with the clawhub CLI's own calls.

``POST /api/v1/skills/-/upload-url`` and the returned upload URL for each file, then
``POST /api/v1/skills`` with the file list. The folder is read with the fingerprint rules
(dot-files, ``node_modules`` and ignore files skipped), so the server's ``/resolve`` fingerprint
equals the local folder's.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from ...errors import BadInput
from .archive import content_type


def folder_files(folder: Path) -> dict[str, bytes]:
    from ...kernel.fingerprint import folder_entries

    if not folder.is_dir():
        raise BadInput(f"{folder}: not a folder")
    files = {path: (folder / path).read_bytes() for path, _sha in folder_entries(folder)}
    files = {p: b for p, b in files.items() if p.lower() != "skill-card.md"}
    if not any(p.lower() in ("skill.md", "skills.md") for p in files):
        raise BadInput(f"{folder}: no SKILL.md at the folder's root", code="not_a_skill")
    return files


def publish_folder(base_url: str, token: str, folder: Path, *, slug: str | None = None, version: str | None = None,
                   display_name: str | None = None, changelog: str = "", owner: str | None = None) -> dict[str, Any]:
    """Upload and publish; the server's answer (with the scan verdict). Picks the next patch version
    after the latest when ``version`` is not given."""
    from ...kernel.fingerprint import skill_fingerprint
    from ...kernel.http import HttpClient

    files = folder_files(folder)
    slug = (slug or folder.name).lower()
    http = HttpClient(base_url, token=token, retries=1)
    if not owner:
        owner = str(http.get_json("/api/v1/whoami")["user"]["handle"])
    fingerprint = skill_fingerprint([(p, hashlib.sha256(b).hexdigest()) for p, b in files.items()])
    resp = http.request("GET", "/api/v1/resolve", {"slug": slug, "ownerHandle": owner, "hash": fingerprint},
                        headers={"Accept": "application/json"}, accept_status=(404,))
    resolved = resp.json() if resp.status == 200 else {}
    latest = (resolved.get("latestVersion") or {}).get("version") if isinstance(resolved, dict) else None
    if version is None:
        version = _next_patch(latest)
    uploaded = []
    for path, data in sorted(files.items()):
        sha = hashlib.sha256(data).hexdigest()
        ctype = content_type(path)
        ticket = http.post_json("/api/v1/skills/-/upload-url",
                                {"path": path, "size": len(data), "sha256": sha, "contentType": ctype})
        resp = http.request("POST", ticket["uploadUrl"], data=data,
                            headers={"Content-Type": ctype, "Accept": "application/json"})
        uploaded.append({"path": path, "size": len(data), "storageId": resp.json()["storageId"], "sha256": sha,
                         "contentType": ctype, "uploadTicket": ticket["uploadTicket"]})
    body = {"slug": slug, "displayName": display_name or slug.replace("-", " ").title(), "ownerHandle": owner,
            "version": version, "changelog": changelog, "acceptLicenseTerms": True, "tags": ["latest"],
            "files": uploaded}
    result: dict[str, Any] = http.post_json("/api/v1/skills", body)
    result["fingerprint"] = fingerprint
    return result


def _next_patch(latest: str | None) -> str:
    if not latest:
        return "1.0.0"
    core = latest.split("-", 1)[0].split("+", 1)[0].split(".")
    try:
        major, minor, patch = (int(x) for x in core)
    except ValueError:
        raise BadInput(f"latest version {latest!r} is not semver: pass --version") from None
    return f"{major}.{minor}.{patch + 1}"
