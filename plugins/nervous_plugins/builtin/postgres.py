"""The ``postgres`` built-in plugin: registration only.

The implementation (:mod:`nervous_plugins.postgres_store`) is imported by the factory, on first use, so
loading every plugin at start-up stays cheap.
"""

from __future__ import annotations

from typing import Any

from nervous.plugin import Provider, hookimpl


def _factory(ctx: Any) -> Any:
    from nervous_plugins.postgres_store import _factory as create

    return create(ctx)


@hookimpl
def nervous_storage_backends() -> list[Provider]:
    return [Provider("postgres", "PostgreSQL: one store shared by many processes and hosts (psycopg 3)",
                     _factory)]
