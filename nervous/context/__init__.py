"""Moved to :mod:`nervous.plugin.context` (this path keeps working; ``ProviderContext`` was documented
here and warns when imported from outside nervous)."""

from .._moved import deprecated_names

__getattr__ = deprecated_names("nervous.context", "nervous.plugin.context", ["ProviderContext"])
