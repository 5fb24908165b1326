"""The ``github`` built-in plugin: registration only.

The implementation (:mod:`nervous_plugins.github`) is imported by the factory, on first use, so
loading every plugin at start-up stays cheap.
"""

from __future__ import annotations

from typing import Any

from nervous.plugin import Provider, hookimpl


def _factory(ctx: Any) -> Any:
    from nervous_plugins.github import _factory as create

    return create(ctx)


@hookimpl
def nervous_registries() -> list[Provider]:
    return [Provider("github", "GitHub repositories (an unreviewed source)", _factory)]
