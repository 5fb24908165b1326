"""Names a module exports but loads from the modules that implement them on first use (PEP 562).

``perceive`` runs on every task and needs few of the names the plugin API and the kernel offer, and
names that moved keep working where they were: each is imported from its implementing module when
first asked for, then kept in the exporting module's namespace.
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
