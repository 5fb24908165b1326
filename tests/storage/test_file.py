"""The file backend passes the storage conformance suite."""

import pytest

from nervous.testing.storage_suite import StoreConformance, StoreSpec


class TestFileStore(StoreConformance):
    @pytest.fixture
    def store_spec(self, tmp_path):
        return StoreSpec("nervous_plugins.file_store:open_store", {"path": str(tmp_path / "store")},
                         corruptor="nervous_plugins.file_store:corrupt_document",
                         future_schema="nervous_plugins.file_store:write_schema_version")
