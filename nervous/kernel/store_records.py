"""The records a store returns from an update, ``info`` and ``check`` (the storage contract's write side).

Apart from :mod:`nervous.kernel.storage` so that a command that only reads (``perceive``) does not
build their attrs classes; they are importable from there and from :mod:`nervous.plugin` as before.
"""

from __future__ import annotations

from typing import Generic

from attrs import field, frozen

from .storage import R


@frozen
class Updated(Generic[R]):
    """The result of ``fn`` inside a committed update, and the warnings met."""

    result: R
    warnings: tuple[str, ...] = ()


@frozen
class StoreInfo:
    backend: str
    location: str
    schema_version: int
    collections: dict[str, int] = field(factory=dict)
    size_bytes: int = 0
    logs: dict[str, int] = field(factory=dict)


@frozen
class Problem:
    """An integrity problem found by :meth:`Store.check`."""

    where: str
    message: str


__all__ = ["Problem", "StoreInfo", "Updated"]
