"""The ``clawhub`` built-in plugin: registration only.

The implementation (:mod:`nervous_plugins.clawhub`) is imported by the factory, on first use, so
loading every plugin at start-up stays cheap.
"""

from __future__ import annotations

from typing import Any

from nervous.plugin import Provider, hookimpl


def _factory(ctx: Any) -> Any:
    from nervous_plugins.clawhub import _factory as create

    return create(ctx)


@hookimpl
def nervous_registries() -> list[Provider]:
    return [Provider("clawhub", "ClawHub, the public skill registry (clawhub.ai)", _factory)]
