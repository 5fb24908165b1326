"""The storage contract every backend implements (file, sqlite, postgres, third parties).

Data model: named **collections** of JSON **documents** (JSON objects) addressed by string keys,
plus append-only **logs** of JSON entries (audit events). Engines never "save their copy": they
express every mutation as a function over the latest document (:meth:`Store.update`), and the
backend guarantees that it runs atomically and isolated across threads *and processes*. If the
function raises, nothing is written.

Every read and update returns the warnings the backend produced (a quarantined corrupt file, a
document restored from backup), so they can reach the user.
"""

from __future__ import annotations

import abc
import copy
import json
import re
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import frozen

from ..errors import BadInput, StorageError
from .lazy import lazy_names

if TYPE_CHECKING:  # re-exported (loaded on first use by ``__getattr__`` below)
    from .store_records import Problem as Problem
    from .store_records import StoreInfo as StoreInfo
    from .store_records import Updated as Updated

R = TypeVar("R")

#: version of the storage layout this release reads and writes
SCHEMA_VERSION = 1

_COLLECTION_RE = re.compile(r"^[a-z][a-z0-9_-]{0,63}\Z")
MAX_KEY_LENGTH = 512


def check_collection(name: Any) -> str:
    if not isinstance(name, str) or not _COLLECTION_RE.match(name):
        raise BadInput(f"invalid collection name {name!r}: expected lower-case letters, digits, '-' or '_'"
                       " (at most 64, starting with a letter)")
    return name


def check_key(key: Any) -> str:
    if not isinstance(key, str) or not key or len(key) > MAX_KEY_LENGTH or "\x00" in key:
        raise BadInput(f"invalid document key {key!r}: expected a non-empty string of at most "
                       f"{MAX_KEY_LENGTH} characters without NUL")
    return key


#: per-collection shape checks, ``"module:function"`` taking a parsed document and returning why its
#: shape is wrong (or ``None``); a wrong-shaped document is quarantined like one that does not parse
SHAPE_CHECKS: dict[str, str] = {"skill-cortex": "nervous.engines.cortex.memory:shape_problem"}


def shape_validator(collection: str) -> Callable[[dict[str, Any]], str | None] | None:
    """The shape check for ``collection`` (``None`` when its documents may hold any object)."""
    target = SHAPE_CHECKS.get(collection)
    if target is None:
        return None
    import importlib

    module, _, name = target.partition(":")
    fn: Callable[[dict[str, Any]], str | None] = getattr(importlib.import_module(module), name)
    return fn


def check_document(doc: Any, where: str) -> dict[str, Any]:
    """Documents are JSON objects; reject anything that would not round-trip."""
    if not isinstance(doc, dict):
        raise BadInput(f"{where}: a document must be a JSON object (dict), got {type(doc).__name__}")
    try:
        json.dumps(doc, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise BadInput(f"{where}: document is not JSON-serialisable: {exc}") from None
    return doc


@frozen
class Snapshot:
    """The latest committed document (``None`` when absent) and the warnings met reading it."""

    value: dict[str, Any] | None
    warnings: tuple[str, ...] = ()


class Store(abc.ABC):
    """A storage backend. Implementations must be safe across threads and processes."""

    #: provider name (``file``, ``sqlite``, ...)
    name: str = "?"

    # -------------------------------------------------------------- documents

    @abc.abstractmethod
    def read(self, collection: str, key: str) -> Snapshot:
        """The latest committed document, without taking the write lock."""

    @abc.abstractmethod
    def keys(self, collection: str) -> list[str]:
        """Keys of the collection's documents, sorted."""

    @abc.abstractmethod
    def update(
        self,
        collection: str,
        key: str,
        fn: Callable[[dict[str, Any]], R],
        *,
        create: bool = True,
    ) -> Updated[R]:
        """Atomically read the latest document, let ``fn`` mutate it in place, and write it.

        ``fn`` receives the latest document (``{}`` when absent and ``create`` is true; a
        :class:`nervous.errors.NotFound` is raised when absent and ``create`` is false). It may
        mutate it and returns any result. If ``fn`` raises, nothing is written and the exception
        propagates. ``fn`` may run more than once (backends that retry on conflicts), so it must
        not have side effects outside the document.
        """

    @abc.abstractmethod
    def delete(self, collection: str, key: str) -> bool:
        """Remove a document; ``True`` if it existed."""

    # -------------------------------------------------------------- logs

    @abc.abstractmethod
    def append(self, log: str, entry: dict[str, Any]) -> None:
        """Append one JSON object to an append-only log (durable when this returns)."""

    @abc.abstractmethod
    def read_log(self, log: str, *, limit: int | None = None) -> list[dict[str, Any]]:
        """Entries of a log, oldest first (the last ``limit`` when given)."""

    # -------------------------------------------------------------- administration

    @abc.abstractmethod
    def info(self) -> StoreInfo: ...

    @abc.abstractmethod
    def check(self) -> list[Problem]:
        """Verify integrity; an empty list means healthy."""

    def collections(self) -> list[str]:
        return sorted(self.info().collections)

    def logs(self) -> list[str]:
        return sorted(self.info().logs)

    @property
    def schema_version(self) -> int:
        return self.info().schema_version

    def pop_warnings(self) -> list[str]:
        """Warnings met by calls that cannot return them (``append``, ``read_log``, opening), once."""
        return []

    def close(self) -> None:  # noqa: B027  (optional: most backends hold nothing to release)
        """Release connections and file handles."""

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def iter_documents(store: Store, warnings: list[str] | None = None) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Every document of every collection; read warnings are added to ``warnings`` when given."""
    for coll in store.collections():
        for key in store.keys(coll):
            snap = store.read(coll, key)
            if warnings is not None:
                warnings.extend(w for w in snap.warnings if w not in warnings)
            if snap.value is not None:
                yield coll, key, snap.value


def migrate(source: Store, target: Store, *, warnings: list[str] | None = None) -> dict[str, int]:
    """Copy every document and log from ``source`` to ``target``; returns counts. Verifies by re-reading.

    Warnings met while reading (a quarantined document, a restored backup) go to ``warnings``.
    """
    counts = {"documents": 0, "log_entries": 0}
    for coll, key, doc in iter_documents(source, warnings):
        def put(d: dict[str, Any], doc: dict[str, Any] = doc) -> None:
            d.clear()
            d.update(copy.deepcopy(doc))

        target.update(coll, key, put)
        counts["documents"] += 1
    for log in source.logs():
        existing = len(target.read_log(log))
        for entry in source.read_log(log)[existing:]:
            target.append(log, entry)
            counts["log_entries"] += 1
    for coll, key, doc in iter_documents(source):
        if target.read(coll, key).value != doc:
            raise StorageError(f"migration check failed: {coll}/{key} differs after copying")
    for log in source.logs():
        if target.read_log(log)[-len(source.read_log(log)) or None:] != source.read_log(log):
            raise StorageError(f"migration check failed: log {log} differs after copying")
    return counts


class MemoryStore(Store):
    """An in-process store for simulations and tests (thread-safe; not shared across processes)."""

    name = "memory"

    def __init__(self) -> None:
        self._docs: dict[str, dict[str, str]] = {}
        self._logs: dict[str, list[str]] = {}
        self._lock = threading.RLock()

    def read(self, collection: str, key: str) -> Snapshot:
        check_collection(collection)
        check_key(key)
        raw = self._docs.get(collection, {}).get(key)
        return Snapshot(None if raw is None else json.loads(raw))

    def keys(self, collection: str) -> list[str]:
        check_collection(collection)
        return sorted(self._docs.get(collection, {}))

    def update(self, collection: str, key: str, fn: Callable[[dict[str, Any]], R], *,
               create: bool = True) -> Updated[R]:
        check_collection(collection)
        check_key(key)
        with self._lock:
            raw = self._docs.get(collection, {}).get(key)
            if raw is None and not create:
                from ..errors import NotFound

                raise NotFound(f"no document {collection}/{key}")
            doc = {} if raw is None else json.loads(raw)
            result = fn(doc)
            check_document(doc, f"{collection}/{key}")
            self._docs.setdefault(collection, {})[key] = json.dumps(doc)
            from .store_records import Updated

            return Updated(result)

    def delete(self, collection: str, key: str) -> bool:
        with self._lock:
            return self._docs.get(check_collection(collection), {}).pop(check_key(key), None) is not None

    def append(self, log: str, entry: dict[str, Any]) -> None:
        check_collection(log)
        check_document(entry, f"log {log}")
        with self._lock:
            self._logs.setdefault(log, []).append(json.dumps(entry))

    def read_log(self, log: str, *, limit: int | None = None) -> list[dict[str, Any]]:
        entries = [json.loads(e) for e in self._logs.get(check_collection(log), [])]
        return entries[-limit:] if limit else entries

    def info(self) -> StoreInfo:
        from .store_records import StoreInfo

        return StoreInfo("memory", "memory", SCHEMA_VERSION,
                         {c: len(d) for c, d in self._docs.items() if d},
                         sum(len(v) for d in self._docs.values() for v in d.values()),
                         {lg: len(e) for lg, e in self._logs.items()})

    def check(self) -> list[Problem]:
        return []


#: records a store returns from writes and maintenance, in :mod:`.store_records` (loaded on first use:
#: a read needs only :class:`Snapshot`)
__getattr__, __dir__ = lazy_names(__name__, dict.fromkeys(("Problem", "StoreInfo", "Updated"),
                                                         "nervous.kernel.store_records"))
