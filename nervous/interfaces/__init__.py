"""Moved to :mod:`nervous.plugin.protocols` (this path keeps working; the documented Protocols warn
when imported from outside nervous)."""

from .._moved import deprecated_names

__getattr__ = deprecated_names(
    "nervous.interfaces", "nervous.plugin.protocols",
    ["Registry", "InstallTarget", "ReviewPolicy", "Matcher", "RankingPolicy", "DrainPolicy"],
)
