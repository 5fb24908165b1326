"""Registration only: the store module is imported when the store is first used."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from nervous.plugin import Provider, ProviderContext, hookimpl


def _factory(ctx: ProviderContext) -> Any:
    from .store import CollectionFileStore

    root = ctx.settings.get("path") or ctx.paths.data_dir / "tutorial-store"
    return CollectionFileStore(Path(root).expanduser(), lock_timeout=ctx.config.storage.lock_timeout)


@hookimpl
def nervous_storage_backends() -> list[Provider]:
    return [Provider("tutorial-store", "one JSON file per collection (tutorial example)", _factory)]
