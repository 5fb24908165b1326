"""The named-provider record: how a plugin offers a registry, a storage backend, a policy..."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from attrs import field, frozen


@frozen
class Provider:
    """A named implementation offered by a plugin (a registry, a storage backend, a policy...).

    ``factory`` is called with a :class:`nervous.plugin.context.ProviderContext` and returns the
    implementation. ``plugin`` is filled in by the plugin manager with the providing plugin's name.
    """

    name: str
    description: str
    factory: Callable[..., Any] = field(eq=False, repr=False)
    plugin: str = ""
