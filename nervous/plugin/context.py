"""What a provider factory receives: the configuration, locations and the plugin manager."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from attrs import frozen

if TYPE_CHECKING:
    from ..kernel.config import Config
    from ..kernel.manager import PluginManager
    from ..kernel.paths import Paths


@frozen
class ProviderContext:
    config: Config
    paths: Paths
    manager: PluginManager
    #: the provider's settings block (``[plugins.<name>]``), possibly empty
    settings: dict[str, Any]
