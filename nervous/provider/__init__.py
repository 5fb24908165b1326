"""Moved to :mod:`nervous.plugin.provider` (this path keeps working)."""

from ..plugin.provider import Provider

__all__ = ["Provider"]
