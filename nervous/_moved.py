"""Old import paths of modules that moved: they keep working.

Names that were documented as public at the old path warn (``DeprecationWarning``) when imported
from outside nervous, so third-party code learns the new path; nervous's own modules use either
path silently while the code base moves over.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from collections.abc import Callable, Iterable
from typing import Any


def deprecated_names(old: str, new: str, names: Iterable[str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``old`` that serves ``names`` from module ``new``."""
    documented = frozenset(names)

    def __getattr__(name: str) -> Any:
        if name not in documented:
            raise AttributeError(f"module {old!r} has no attribute {name!r}")
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if caller != "nervous" and not caller.startswith(("nervous.", "nervous_plugins", "importlib")):
            warnings.warn(f"{old}.{name} moved to {new}.{name}; import it from there",
                          DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module(new), name)

    return __getattr__
