"""Old import paths of modules that moved into the layer folders keep working.

Only paths that were documented for users are kept. Each one is an alias, not a copy: importing
``nervous.records`` gives the very module object ``nervous.kernel.records`` (one set of classes, so
``isinstance`` and identity checks hold), found by a :data:`sys.meta_path` finder that
:mod:`nervous` installs when it is imported. A package's submodules follow it
(``nervous.cortex.engine`` is ``nervous.engines.cortex.engine``).

Code outside nervous that imports an old path gets one ``DeprecationWarning`` naming the new path;
nervous's own modules never use the old paths.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from importlib.abc import Loader

#: documented old path -> where the module lives now
MOVED: dict[str, str] = {
    # the kernel
    "nervous.records": "nervous.kernel.records",
    "nervous.storage": "nervous.kernel.storage",
    "nervous.manager": "nervous.kernel.manager",
    "nervous.config": "nervous.kernel.config",
    "nervous.skillmd": "nervous.kernel.skillmd",
    "nervous.bundle": "nervous.kernel.bundle",
    "nervous.durable": "nervous.kernel.durable",
    "nervous.sideeffects": "nervous.kernel.sideeffects",
    "nervous.bounded": "nervous.kernel.bounded",
    "nervous.cortex.policy": "nervous.kernel.cortex.policy",
    "nervous.cortex.matching": "nervous.kernel.cortex.matching",
    "nervous.cortex.wordlists": "nervous.kernel.cortex.wordlists",
    # engines
    "nervous.acquire": "nervous.engines.acquire",
    "nervous.cortex": "nervous.engines.cortex",
    "nervous.goals": "nervous.engines.goals",
    "nervous.evolver": "nervous.engines.evolver",
    "nervous.scan": "nervous.engines.scan.engine",
    "nervous.gate": "nervous.engines.install.gate",
    "nervous.installer": "nervous.engines.install.installer",
    # front ends (the package docstring named nervous.api.Nervous)
    "nervous.api": "nervous.frontends.api",
    # the plugin API's first home
    "nervous.context": "nervous.plugin.context",
    "nervous.hookspecs": "nervous.plugin.hookspecs",
    "nervous.interfaces": "nervous.plugin.protocols",
    "nervous.provider": "nervous.plugin.provider",
}

_LONGEST_FIRST = sorted(MOVED, key=len, reverse=True)
_INTERNAL = ("nervous", "nervous_plugins")


def new_name(name: str) -> str | None:
    """The current path of the old module path ``name`` (None when ``name`` did not move)."""
    if not name.startswith("nervous."):
        return None
    for old in _LONGEST_FIRST:
        if name == old or name.startswith(old + "."):
            return MOVED[old] + name[len(old):]
    return None


def _importer() -> tuple[str, int]:
    """The module whose code runs the import, and its ``stacklevel`` as seen from the loader.

    Skipped: the import machinery, this module and the package's ``__getattr__`` (``nervous.gate``).
    ``warnings`` does not count the frozen bootstrap frames, so neither do we.
    """
    frame = sys._getframe(2)  # the caller of create_module
    level = 1
    while frame is not None:
        filename = frame.f_code.co_filename
        if "importlib" in filename and "_bootstrap" in filename:
            frame = frame.f_back  # type: ignore[assignment]
            continue
        level += 1
        module = str(frame.f_globals.get("__name__", ""))
        if not (module.startswith("importlib") or module == __name__
                or (module == "nervous" and frame.f_code.co_name == "__getattr__")):
            return module, level
        frame = frame.f_back  # type: ignore[assignment]
    return "", level


class _AliasLoader:
    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: Any) -> ModuleType:
        module = importlib.import_module(self.target)
        importer, level = _importer()
        if importer.partition(".")[0] not in _INTERNAL:
            warnings.warn(f"{spec.name} moved to {self.target}; import it from there",
                          DeprecationWarning, stacklevel=level)
        return module

    def exec_module(self, module: ModuleType) -> None:
        """The module is already executed under its new name."""


class AliasFinder:
    """Finds the old paths in :data:`MOVED` (put first on :data:`sys.meta_path`)."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        new = new_name(name)
        if new is None:
            return None
        from importlib.machinery import ModuleSpec

        return ModuleSpec(name, cast("Loader", _AliasLoader(new)))


def install() -> None:
    if not any(isinstance(f, AliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, AliasFinder())


def attribute(name: str) -> ModuleType | None:
    """``nervous.<name>`` for an old top-level module not imported yet (imports it: it warns)."""
    if f"nervous.{name}" in MOVED:
        return importlib.import_module(f"nervous.{name}")
    return None
