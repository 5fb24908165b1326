"""A store that keeps each collection in one JSON file, guarded by one lock file per store.

Every write takes the lock, re-reads the file, applies the change and replaces the file
atomically, so threads and processes never lose an update and a crash leaves the old file.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

from nervous.errors import StorageError, UnsupportedVersion
from nervous.plugin import (
    SCHEMA_VERSION,
    Problem,
    R,
    Snapshot,
    Store,
    StoreInfo,
    Updated,
    check_collection,
    check_document,
    check_key,
)
from nervous.plugin.toolkit import FileLock, atomic_write_json, ensure_dir, load_json


class CollectionFileStore(Store):
    name = "tutorial-store"

    def __init__(self, root: Path, lock_timeout: float = 5.0) -> None:
        self.root = ensure_dir(Path(root))
        self.lock_timeout = lock_timeout
        with self._lock():
            version = self._load("_schema").get("version")
            if version is None:
                atomic_write_json(self.root / "_schema.json", {"version": SCHEMA_VERSION}, backup=False)
            elif version > SCHEMA_VERSION:
                raise UnsupportedVersion(f"{self.root}: schema version {version} is newer than {SCHEMA_VERSION}")

    def _lock(self) -> FileLock:
        return FileLock(self.root / ".lock", timeout=self.lock_timeout)

    def _load(self, name: str) -> dict[str, Any]:
        loaded = load_json(self.root / f"{name}.json")
        if loaded.value is not None and not isinstance(loaded.value, dict):
            raise StorageError(f"{self.root / name}.json: expected a JSON object")
        return loaded.value or {}

    def read(self, collection: str, key: str) -> Snapshot:
        doc = self._load(check_collection(collection)).get(check_key(key))
        return Snapshot(copy.deepcopy(doc))

    def keys(self, collection: str) -> list[str]:
        return sorted(self._load(check_collection(collection)))

    def update(self, collection: str, key: str, fn: Callable[[dict[str, Any]], R], *,
               create: bool = True) -> Updated[R]:
        check_collection(collection)
        check_key(key)
        with self._lock():
            docs = self._load(collection)
            if key not in docs and not create:
                from nervous.errors import NotFound

                raise NotFound(f"{collection}/{key}: no such document")
            doc = copy.deepcopy(docs.get(key, {}))
            result = fn(doc)
            docs[key] = check_document(doc, f"{collection}/{key}")
            atomic_write_json(self.root / f"{collection}.json", docs, backup=False)
        return Updated(result)

    def delete(self, collection: str, key: str) -> bool:
        with self._lock():
            docs = self._load(check_collection(collection))
            found = docs.pop(check_key(key), None) is not None
            if found:
                atomic_write_json(self.root / f"{collection}.json", docs, backup=False)
        return found

    def append(self, log: str, entry: dict[str, Any]) -> None:
        check_document(entry, f"log {log}")
        with self._lock():
            entries = self._load(f"log-{check_collection(log)}").get("entries", [])
            atomic_write_json(self.root / f"log-{log}.json", {"entries": [*entries, entry]}, backup=False)

    def read_log(self, log: str, *, limit: int | None = None) -> list[dict[str, Any]]:
        entries: list[dict[str, Any]] = self._load(f"log-{check_collection(log)}").get("entries", [])
        return entries[-limit:] if limit else entries

    def info(self) -> StoreInfo:
        files = [p for p in self.root.glob("*.json") if not p.name.startswith("_")]
        return StoreInfo(self.name, str(self.root), self._load("_schema").get("version", SCHEMA_VERSION),
                         {p.stem: len(self._load(p.stem)) for p in files if not p.stem.startswith("log-")},
                         sum(p.stat().st_size for p in files),
                         {p.stem[4:]: len(self._load(p.stem).get("entries", [])) for p in files
                          if p.stem.startswith("log-")})

    def check(self) -> list[Problem]:
        problems = []
        for path in self.root.glob("*.json"):
            try:
                self._load(path.stem)
            except StorageError as exc:
                problems.append(Problem(path.name, exc.message))
        return problems


def open_store(path: str) -> CollectionFileStore:
    """How the storage kit opens a fresh store (``StoreSpec.factory``)."""
    return CollectionFileStore(Path(path))


def write_schema_version(store: Store, version: int) -> None:
    """Record a schema version as another release would (``StoreSpec.future_schema``)."""
    assert isinstance(store, CollectionFileStore)
    atomic_write_json(store.root / "_schema.json", {"version": version}, backup=False)
