"""The ``local`` built-in plugin: registration only.

The implementation (:mod:`nervous_plugins.local_registry`) is imported by the factory, on first
use, so loading every plugin at start-up stays cheap.
"""

from __future__ import annotations

from typing import Any

from nervous.plugin import Provider, hookimpl


def _factory(ctx: Any) -> Any:
    from nervous_plugins.local_registry import _factory as create

    return create(ctx)


@hookimpl
def nervous_registries() -> list[Provider]:
    return [Provider("local", "Skill folders on disk ([plugins.local] paths)", _factory)]
