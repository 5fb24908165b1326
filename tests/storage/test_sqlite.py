"""The sqlite backend passes the storage conformance suite."""

import pytest

from nervous.testing.storage_suite import StoreConformance, StoreSpec


class TestSqliteStore(StoreConformance):
    @pytest.fixture
    def store_spec(self, tmp_path):
        return StoreSpec("nervous_plugins.sqlite_store:open_store", {"path": str(tmp_path / "store.sqlite3")},
                         corruptor="nervous_plugins.sqlite_store:corrupt_document",
                         future_schema="nervous_plugins.sqlite_store:write_schema_version")
