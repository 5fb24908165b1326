"""Moved to :mod:`nervous.plugin.hookspecs` (this path keeps working)."""

from ..plugin.hookspecs import *  # noqa: F403
from ..plugin.hookspecs import hookspec  # noqa: F401
