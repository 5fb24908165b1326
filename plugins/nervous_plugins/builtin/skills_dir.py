"""The ``skills-dir`` built-in plugin: registration only.

The implementation (:mod:`nervous_plugins.skills_dir`) is imported by the factory, on first use, so
loading every plugin at start-up stays cheap.
"""

from __future__ import annotations

from typing import Any

from nervous.plugin import Provider, hookimpl


def _factory(ctx: Any) -> Any:
    from nervous_plugins.skills_dir import _factory as create

    return create(ctx)


@hookimpl
def nervous_install_targets() -> list[Provider]:
    return [Provider("skills-dir", "A skills folder with a clawhub-compatible lockfile (default ./skills)",
                             _factory)]
