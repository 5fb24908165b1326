"""Names a package exports but loads from their modules on first use (PEP 562).

``import nervous.plugin`` must stay cheap: ``perceive`` runs on every task and needs few of the
names the plugin API offers, so each is imported from the module that implements it when first
asked for, then kept in the package's namespace.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(module: str, sources: Mapping[str, str], aliases: Mapping[str, str] | None = None,
               ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``module``: public name -> implementing module.

    ``aliases`` maps a public name to the name it has in its implementing module, where they differ.
    """
    namespace = sys.modules[module].__dict__
    renamed = dict(aliases or {})

    def __getattr__(name: str) -> Any:
        source = sources.get(name)
        if source is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(source), renamed.get(name, name))
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted([*namespace, *sources])

    return __getattr__, __dir__
