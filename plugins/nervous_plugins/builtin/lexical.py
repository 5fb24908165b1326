"""The ``lexical`` built-in plugin: registration only.

The implementation (:mod:`nervous_plugins.lexical_matcher`) is imported by the factory, on first use, so
loading every plugin at start-up stays cheap.
"""

from __future__ import annotations

from typing import Any

from nervous.plugin import Provider, hookimpl


def _factory(ctx: Any) -> Any:
    from nervous_plugins.lexical_matcher import _factory as create

    return create(ctx)


@hookimpl
def nervous_matchers() -> list[Provider]:
    return [Provider("lexical", "offline word matcher: signals, region names and a bounded "
                             "index of entity-filtered words (no model)", _factory)]
