"""The storage kit refuses a store that would read a schema written by a newer release."""

from __future__ import annotations

from pathlib import Path

import pytest

from nervous.plugin import Store
from nervous.testing.storage_suite import StoreConformance, StoreSpec


def ignore_schema(store: Store, version: int) -> None:
    """A backend that does not record (nor check) schema versions: the newer version never reaches it."""


def test_a_store_that_ignores_newer_schemas_fails_the_kit(tmp_path: Path) -> None:
    spec = StoreSpec("nervous_plugins.file_store:open_store", {"path": str(tmp_path / "store")},
                     future_schema=f"{__name__}:ignore_schema")
    with pytest.raises(pytest.fail.Exception, match="DID NOT RAISE"):
        StoreConformance().test_a_newer_schema_is_refused_and_left_alone(spec, spec.open())


def test_the_kit_requires_a_way_to_write_a_newer_schema(tmp_path: Path) -> None:
    spec = StoreSpec("nervous_plugins.file_store:open_store", {"path": str(tmp_path / "store")})
    with pytest.raises(pytest.fail.Exception, match="StoreSpec.future_schema is required"):
        StoreConformance().test_a_newer_schema_is_refused_and_left_alone(spec, spec.open())
