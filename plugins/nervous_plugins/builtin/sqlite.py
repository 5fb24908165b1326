"""The ``sqlite`` built-in plugin: registration only.

The implementation (:mod:`nervous_plugins.sqlite_store`) is imported by the factory, on first use, so
loading every plugin at start-up stays cheap.
"""

from __future__ import annotations

from typing import Any

from nervous.plugin import Provider, hookimpl


def _factory(ctx: Any) -> Any:
    from nervous_plugins.sqlite_store import _factory as create

    return create(ctx)


@hookimpl
def nervous_storage_backends() -> list[Provider]:
    return [Provider("sqlite", "one SQLite database (WAL), embedded, no server", _factory)]
