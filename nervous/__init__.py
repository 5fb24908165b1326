"""nervous: let AI agents acquire the skills they lack, safely, and learn from every use.

Plugin authors import :mod:`nervous.plugin` (hooks, records, Protocols) and
:mod:`nervous.plugin.toolkit`; host agents use :class:`nervous.Nervous` (defined in
:mod:`nervous.frontends.api`, imported lazily).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import _moved

__version__ = "0.1.0"

if TYPE_CHECKING:
    import pluggy

    #: Marker for hook implementations: ``@nervous.hookimpl def nervous_registries(): ...``
    hookimpl: pluggy.HookimplMarker

# documented module paths from before the layer folders keep importing (with a DeprecationWarning)
_moved.install()

__all__ = ["hookimpl", "Provider", "__version__", "Nervous"]


def __getattr__(name: str) -> Any:
    if name == "hookimpl":  # made on first use: ``nervous --version`` must not pay for importing pluggy
        import pluggy

        marker = globals()["hookimpl"] = pluggy.HookimplMarker("nervous")
        return marker
    if name == "Nervous":
        from .frontends.api import Nervous

        return Nervous
    if name == "Provider":  # the plugin API's record, also reachable here (``nervous.plugin.Provider``)
        from .plugin.provider import Provider

        return Provider
    module = _moved.attribute(name)
    if module is not None:
        return module
    raise AttributeError(f"module 'nervous' has no attribute {name!r}")
