"""The storage conformance suite: every backend, built-in or third party, must pass it.

Subclass :class:`StoreConformance` in a test module and provide one fixture, ``store_spec``,
returning a :class:`StoreSpec` that opens a fresh, empty store::

    from nervous.testing.storage_suite import StoreConformance, StoreSpec

    class TestMyStore(StoreConformance):
        @pytest.fixture
        def store_spec(self, tmp_path):
            return StoreSpec("my_plugin.store:open_store", {"path": str(tmp_path / "db")})

The spec is picklable: concurrency and crash tests open the same store from real child processes
(``forkserver`` start method, so each child starts in milliseconds). The crash test kills writers
with SIGKILL at random points and checks that every acknowledged write survives and the document
is always one complete committed state.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import multiprocessing
import os
import random
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from attrs import field, frozen

from ..errors import BadInput, NervousError, NotFound, StorageBusy, UnsupportedVersion
from ..kernel.storage import SCHEMA_VERSION, MemoryStore, Store, migrate


def _resolve(target: str) -> Callable[..., Any]:
    module, _, attr = target.partition(":")
    if not module or not attr:
        raise ValueError(f"expected 'module:callable', got {target!r}")
    fn = getattr(importlib.import_module(module), attr)
    if not callable(fn):
        raise TypeError(f"{target} is not callable")
    return fn  # type: ignore[no-any-return]


@frozen
class StoreSpec:
    """How to open one store, from this process or a child process.

    ``factory`` is ``"module:callable"``; it is called with ``**kwargs`` and returns a
    :class:`nervous.kernel.storage.Store`. ``corruptor`` (optional, ``"module:callable"``) is called with
    ``(store, collection, key)`` and must damage the stored document so that it no longer parses,
    the way a failing disk or a careless hand edit would; without it the corruption test is skipped.
    """

    factory: str
    kwargs: dict[str, Any] = field(factory=dict)
    corruptor: str | None = None
    #: ``"module:callable"`` called with ``(store, version)``: record ``version`` as the store's schema
    #: version, as a newer release would. The suite then checks that the store refuses to open it.
    future_schema: str | None = None

    def open(self) -> Store:
        store = _resolve(self.factory)(**self.kwargs)
        if not isinstance(store, Store):
            raise TypeError(f"{self.factory} returned {type(store).__name__}, not a nervous.kernel.storage.Store")
        return store

    @property
    def can_corrupt(self) -> bool:
        return self.corruptor is not None

    def write_future_schema(self, store: Store, version: int) -> None:
        if self.future_schema is None:
            raise NotImplementedError("this store spec has no future_schema")
        _resolve(self.future_schema)(store, version)

    def corrupt(self, store: Store, collection: str, key: str) -> None:
        if self.corruptor is None:
            raise NotImplementedError("this store spec has no corruptor")
        _resolve(self.corruptor)(store, collection, key)


# ---------------------------------------------------------------------------------------------
# Child processes (module level so they can be pickled)
# ---------------------------------------------------------------------------------------------

_context: Any = None


def _mp(spec: StoreSpec) -> Any:
    """A ``forkserver`` context whose server has the suite and the backend already imported."""
    global _context
    if _context is None:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload([__name__, "nervous.kernel.storage", spec.factory.partition(":")[0]])
        _context = ctx
    return _context


def _set(doc: dict[str, Any], **values: Any) -> None:
    doc.update(values)


def _patiently(call: Callable[[], Any]) -> Any:
    """Run a store call, retrying on :class:`StorageBusy`.

    A time-out is an explicit failure that wrote nothing, so retrying cannot hide a lost update;
    it only keeps these tests independent of machine load (8 writers on 2 busy cores can wait
    longer than a lock time-out).
    """
    for _ in range(100):
        try:
            return call()
        except StorageBusy:
            continue
    return call()


def _increment_worker(spec: StoreSpec, collection: str, key: str, worker: int, count: int, go: Any) -> None:
    store = spec.open()
    try:
        go.wait(30)

        def bump(doc: dict[str, Any]) -> None:
            doc["n"] = doc.get("n", 0) + 1
            counts = doc.setdefault("per_worker", {})
            counts[str(worker)] = counts.get(str(worker), 0) + 1

        for _ in range(count):
            _patiently(lambda: store.update(collection, key, bump))
    finally:
        store.close()


def _fresh_open_worker(spec: StoreSpec, collection: str, key: str, count: int, go: Any) -> None:
    go.wait(30)
    store = spec.open()  # every worker opens the brand-new store at the same moment
    try:
        for _ in range(count):
            _patiently(lambda: store.update(collection, key, lambda d: d.update(n=d.get("n", 0) + 1)))
    finally:
        store.close()


def committed_state(n: int) -> dict[str, Any]:
    """The document a crash-test writer commits as its ``n``-th update (size varies with ``n``)."""
    items = [f"item-{n}-{i}-ü" for i in range(50 + (n * 37) % 400)]
    digest = hashlib.sha256(json.dumps([n, items]).encode()).hexdigest()
    return {"n": n, "items": items, "digest": digest}


def _crash_writer(spec: StoreSpec, collection: str, key: str, conn: Any) -> None:
    """Update forever, reporting each acknowledged ``n`` on ``conn`` until killed."""
    store = spec.open()
    conn.send_bytes(b"ready")

    def step(doc: dict[str, Any]) -> int:
        n = int(doc.get("n", 0)) + 1
        doc.clear()
        doc.update(committed_state(n))
        return n

    while True:
        n = _patiently(lambda: store.update(collection, key, step)).result
        conn.send_bytes(str(n).encode())


def _churn_writer(spec: StoreSpec, collection: str, key: str, stop: Any, done: Any) -> None:
    store = spec.open()
    try:
        i = 0
        while not stop.is_set():
            i += 1

            def put(doc: dict[str, Any], i: int = i) -> None:
                doc.clear()
                doc.update(committed_state(i))

            _patiently(functools.partial(store.update, collection, key, put))
            if i == 5:
                done.set()
    finally:
        done.set()
        store.close()


def _log_appender(spec: StoreSpec, log: str, worker: int, count: int, go: Any) -> None:
    store = spec.open()
    try:
        go.wait(30)
        for i in range(count):
            entry = {"worker": worker, "i": i, "text": f"entry {i} from {worker} — ✓"}
            _patiently(functools.partial(store.append, log, entry))
    finally:
        store.close()


def _run_workers(spec: StoreSpec, target: Callable[..., None], args: list[tuple[Any, ...]],
                 timeout: float) -> None:
    ctx = _mp(spec)
    go = ctx.Event()
    procs = [ctx.Process(target=target, args=(spec, *a, go), daemon=True) for a in args]
    for p in procs:
        p.start()
    go.set()
    deadline = time.monotonic() + timeout
    try:
        for p in procs:
            p.join(max(deadline - time.monotonic(), 0.1))
        stuck = [p.pid for p in procs if p.is_alive()]
        assert not stuck, f"worker processes {stuck} did not finish within {timeout}s"
        failed = [(p.pid, p.exitcode) for p in procs if p.exitcode != 0]
        assert not failed, f"worker processes failed (pid, exit code): {failed}"
    finally:
        for p in procs:
            if p.is_alive():
                p.kill()
                p.join()


# ---------------------------------------------------------------------------------------------
# The suite
# ---------------------------------------------------------------------------------------------

ODD_KEYS = [
    "with space",
    "a/b/c",
    "ünïcødé/日本語",
    "..",
    ".",
    "../escape",
    "a/../../b",
    "/leading",
    "trailing/",
    "a//b",
    "100%",
    "%2e%2e",
    "x.json",
    "x.json/y",
    "x.json.bak",
    "x.json.lock",
    "-dash",
    "tab\there",
    "new\nline",
    "quote\"'`",
    "emoji 🧠",
    "k" * 200,
]


class StoreConformance:
    """Behaviour every :class:`nervous.kernel.storage.Store` must show. Subclasses provide ``store_spec``."""

    #: concurrent read-modify-write processes and increments per process
    PROCESSES = 8
    INCREMENTS = 200
    #: SIGKILLs delivered to writers in the crash test, and writers running at once
    KILLS = 200
    KILL_LANES = 3
    #: the longest a writer runs before it is killed (seconds, after it reports ready)
    MAX_KILL_DELAY = 0.12

    @pytest.fixture
    def store(self, store_spec: StoreSpec) -> Iterator[Store]:
        s = store_spec.open()
        try:
            yield s
        finally:
            s.close()

    # ------------------------------------------------------------------ contract basics

    def test_schema_version_is_recorded(self, store: Store) -> None:
        info = store.info()
        assert info.schema_version == SCHEMA_VERSION, info
        assert store.schema_version == SCHEMA_VERSION
        assert isinstance(info.backend, str) and info.backend
        assert isinstance(info.location, str) and info.location

    def test_a_newer_schema_is_refused_and_left_alone(self, store_spec: StoreSpec, store: Store) -> None:
        """A store written by a newer release must not be read (nor "migrated") by this one."""
        if store_spec.future_schema is None:
            pytest.fail("StoreSpec.future_schema is required: the suite must see the store refuse a newer "
                        "schema version (a store that reads it may corrupt data it does not understand)")
        store.update("docs", "kept", lambda d: _set(d, value=1))
        store_spec.write_future_schema(store, SCHEMA_VERSION + 1)
        close = getattr(store, "close", None)
        if callable(close):
            close()
        with pytest.raises(UnsupportedVersion):
            reopened = store_spec.open()
            reopened.read("docs", "kept")
            reopened.update("docs", "kept", lambda d: _set(d, value=2))
        # nothing was changed by the refused open: back at this release's version, the data is intact
        store_spec.write_future_schema(store, SCHEMA_VERSION)
        again = store_spec.open()
        assert again.read("docs", "kept").value == {"value": 1}

    def test_crud(self, store: Store) -> None:
        assert store.read("things", "a").value is None
        assert store.keys("things") == []
        assert store.delete("things", "a") is False

        def create(doc: dict[str, Any]) -> str:
            assert doc == {}
            doc["name"] = "alpha"
            doc["tags"] = ["x", "y"]
            return "created"

        res = store.update("things", "a", create)
        assert res.result == "created"
        assert list(res.warnings) == []
        assert store.read("things", "a").value == {"name": "alpha", "tags": ["x", "y"]}

        def rename(doc: dict[str, Any]) -> int:
            doc["name"] = "beta"
            return len(doc)

        assert store.update("things", "a", rename, create=False).result == 2
        store.update("things", "b", lambda d: d.update(n=1))
        store.update("other", "z", lambda d: d.update(n=2))
        assert store.keys("things") == ["a", "b"]
        assert store.read("things", "a").value == {"name": "beta", "tags": ["x", "y"]}
        assert store.collections() == ["other", "things"]
        assert store.info().collections == {"other": 1, "things": 2}
        assert store.delete("things", "a") is True
        assert store.read("things", "a").value is None
        assert store.keys("things") == ["b"]
        with pytest.raises(NotFound):
            store.update("things", "a", lambda d: None, create=False)
        assert store.read("things", "a").value is None, "update(create=False) must not create"
        assert store.check() == []

    def test_empty_document_is_a_document(self, store: Store) -> None:
        store.update("things", "empty", lambda d: None)
        assert store.read("things", "empty").value == {}
        assert store.keys("things") == ["empty"]

    def test_failed_update_writes_nothing(self, store: Store) -> None:
        store.update("things", "a", lambda d: d.update(v=1, items=[1, 2]))

        def half_then_fail(doc: dict[str, Any]) -> None:
            doc["v"] = 2
            doc.setdefault("items", []).append(3)
            raise RuntimeError("boom")

        with pytest.raises(RuntimeError, match="boom"):
            store.update("things", "a", half_then_fail)
        assert store.read("things", "a").value == {"v": 1, "items": [1, 2]}
        with pytest.raises(RuntimeError):
            store.update("things", "new", half_then_fail)
        assert store.read("things", "new").value is None
        assert store.keys("things") == ["a"]

        def unserialisable(doc: dict[str, Any]) -> None:
            doc["v"] = {1, 2}

        with pytest.raises(BadInput):
            store.update("things", "a", unserialisable)
        with pytest.raises(BadInput):
            store.update("things", "a", lambda d: d.update(v=float("nan")))
        assert store.read("things", "a").value == {"v": 1, "items": [1, 2]}

    def test_bad_input_gives_typed_errors(self, store: Store) -> None:
        store.update("things", "keep", lambda d: d.update(v=1))
        for coll in ["", "Upper", "../x", "a/b", "x" * 65, 3, None, "spa ce"]:
            with pytest.raises(BadInput):
                store.read(coll, "k")  # type: ignore[arg-type]
            with pytest.raises(BadInput):
                store.update(coll, "k", lambda d: None)  # type: ignore[arg-type]
            with pytest.raises(BadInput):
                store.keys(coll)  # type: ignore[arg-type]
        for key in ["", None, 3, "a\x00b", "x" * 1000]:
            with pytest.raises(BadInput):
                store.read("things", key)  # type: ignore[arg-type]
            with pytest.raises(BadInput):
                store.update("things", key, lambda d: None)  # type: ignore[arg-type]
            with pytest.raises(BadInput):
                store.delete("things", key)  # type: ignore[arg-type]
        for entry in [[1, 2], "text", None, {"x": {1}}]:
            with pytest.raises(BadInput):
                store.append("events", entry)  # type: ignore[arg-type]
        with pytest.raises(BadInput):
            store.append("Bad Log", {"x": 1})
        assert store.read_log("events") == []
        assert store.read("things", "keep").value == {"v": 1}
        assert store.keys("things") == ["keep"]
        try:
            store.read("", "k")
        except NervousError as exc:
            assert exc.code == "bad_input" and "collection" in exc.message

    # ------------------------------------------------------------------ values and keys

    def test_unicode_and_large_values(self, store: Store) -> None:
        doc = {
            "text": "Grüße, 世界, مرحبا, emoji 🧠🔧, combining é, zero-width \u200b, nul-free",
            "clés": {"ключ": "значение", "🔑": ["∀", "∃", "\u2028"]},
            "numbers": [0, -1, 2**53, 1.5, -0.25, 1e-9],
            "flags": [True, False, None],
            "nested": {"a": {"b": {"c": {"d": [[], {}, ""]}}}},
        }
        store.update("things", "unicode", lambda d: d.update(doc))
        assert store.read("things", "unicode").value == doc
        big = {
            "blob": "".join(chr(0x41 + (i % 26)) for i in range(2_000_000)),
            "rows": [{"i": i, "name": f"row-{i}-ü"} for i in range(30_000)],
        }
        store.update("things", "large", lambda d: d.update(big))
        got = store.read("things", "large").value
        assert got is not None and got == big

        def grow(d: dict[str, Any]) -> None:
            d["rows"].append({"i": -1})

        store.update("things", "large", grow)
        got = store.read("things", "large").value
        assert got is not None and len(got["rows"]) == 30_001 and got["blob"] == big["blob"]

    def test_odd_keys_round_trip(self, store: Store) -> None:
        for i, key in enumerate(ODD_KEYS):
            store.update("odd", key, functools.partial(_set, key=key, i=i))
        for i, key in enumerate(ODD_KEYS):
            assert store.read("odd", key).value == {"key": key, "i": i}, key
        assert store.keys("odd") == sorted(ODD_KEYS)
        assert store.info().collections.get("odd") == len(ODD_KEYS)
        assert store.delete("odd", "..") is True
        assert store.read("odd", "..").value is None
        assert store.read("odd", "../escape").value == {"key": "../escape", "i": ODD_KEYS.index("../escape")}
        assert store.check() == []

    # ------------------------------------------------------------------ isolation and concurrency

    def test_threads_lose_no_update(self, store: Store) -> None:
        threads, per_thread = 4, 50
        errors: list[BaseException] = []

        def work() -> None:
            try:
                for _ in range(per_thread):
                    _patiently(lambda: store.update("counters", "threads", lambda d: d.update(n=d.get("n", 0) + 1)))
            except BaseException as exc:  # reported below
                errors.append(exc)

        ts = [threading.Thread(target=work) for _ in range(threads)]
        for t in ts:
            t.start()
        for t in ts:
            t.join(60)
        assert not errors, errors
        assert store.read("counters", "threads").value == {"n": threads * per_thread}

    def test_processes_lose_no_update(self, store_spec: StoreSpec, store: Store) -> None:
        """8 processes × 200 read-modify-write increments of one document: none lost."""
        _run_workers(store_spec, _increment_worker,
                     [("counters", "shared", w, self.INCREMENTS) for w in range(self.PROCESSES)], timeout=180)
        doc = store.read("counters", "shared").value
        assert doc is not None
        assert doc["n"] == self.PROCESSES * self.INCREMENTS, doc
        assert doc["per_worker"] == {str(w): self.INCREMENTS for w in range(self.PROCESSES)}

    def test_processes_opening_a_fresh_store_at_once(self, store_spec: StoreSpec) -> None:
        """Several processes creating the same new store at once all succeed (no "locked" on open)."""
        _run_workers(store_spec, _fresh_open_worker, [("counters", "fresh", 5) for _ in range(6)], timeout=120)
        store = store_spec.open()
        try:
            assert store.read("counters", "fresh").value == {"n": 30}
        finally:
            store.close()

    def test_reader_never_sees_a_partial_update(self, store_spec: StoreSpec, store: Store) -> None:
        ctx = _mp(store_spec)
        stop, started = ctx.Event(), ctx.Event()
        writer = ctx.Process(target=_churn_writer, args=(store_spec, "churn", "doc", stop, started), daemon=True)
        writer.start()
        try:
            assert started.wait(30), "writer did not start"
            seen = set()
            deadline = time.monotonic() + 1.5
            while time.monotonic() < deadline:
                snap = store.read("churn", "doc")
                assert snap.value is not None
                assert snap.value == committed_state(snap.value["n"]), "read a half-applied update"
                assert list(snap.warnings) == []
                seen.add(snap.value["n"])
            assert len(seen) > 3, f"writer made too little progress to test anything: {sorted(seen)}"
        finally:
            stop.set()
            writer.join(30)
            if writer.is_alive():
                writer.kill()
                writer.join()
        assert writer.exitcode == 0

    def test_sigkilled_writers_lose_no_acknowledged_write(self, store_spec: StoreSpec, store: Store) -> None:
        """Writers killed with SIGKILL at random points: state always parses, acknowledged writes survive."""
        ctx = _mp(store_spec)
        rng = random.Random(int(os.environ.get("NERVOUS_SUITE_SEED", "20260304")))
        acked = 0
        kills = 0
        states_seen = 0
        lanes: list[dict[str, Any]] = []
        deadline = time.monotonic() + 120

        def drain(lane: dict[str, Any]) -> int:
            best = 0
            conn = lane["conn"]
            try:
                while conn.poll():
                    msg = conn.recv_bytes()
                    if msg == b"ready":
                        lane["kill_at"] = time.monotonic() + rng.uniform(0, self.MAX_KILL_DELAY)
                    else:
                        best = max(best, int(msg))
            except (EOFError, OSError):
                pass
            return best

        def start_lane() -> dict[str, Any]:
            recv, send = ctx.Pipe(duplex=False)
            p = ctx.Process(target=_crash_writer, args=(store_spec, "crash", "doc", send), daemon=True)
            p.start()
            send.close()
            return {"proc": p, "conn": recv, "kill_at": None, "started": time.monotonic()}

        try:
            while kills < self.KILLS:
                assert time.monotonic() < deadline, f"crash test too slow: {kills} kills in 120s"
                while len(lanes) < self.KILL_LANES and kills + len(lanes) < self.KILLS:
                    lanes.append(start_lane())
                for lane in list(lanes):
                    acked = max(acked, drain(lane))
                    proc = lane["proc"]
                    if lane["kill_at"] is None:
                        assert proc.is_alive() or proc.exitcode is None, f"writer died on its own ({proc.exitcode})"
                        assert time.monotonic() - lane["started"] < 30, "writer never became ready"
                        continue
                    if time.monotonic() < lane["kill_at"]:
                        continue
                    proc.kill()
                    proc.join()
                    acked = max(acked, drain(lane))
                    lane["conn"].close()
                    lanes.remove(lane)
                    kills += 1
                    snap = store.read("crash", "doc")
                    assert list(snap.warnings) == [], snap.warnings
                    if snap.value is not None:
                        n = snap.value.get("n")
                        assert isinstance(n, int) and snap.value == committed_state(n), \
                            "document is not a complete committed state"
                        assert n >= acked, f"acknowledged write {acked} lost: document is at {n}"
                        states_seen += 1
                    else:
                        assert acked == 0, f"document vanished after {acked} acknowledged writes"
                time.sleep(0.002)
        finally:
            for lane in lanes:
                lane["proc"].kill()
                lane["proc"].join()
                lane["conn"].close()
        assert kills >= self.KILLS
        assert acked > 0, "no writer ever committed: the test exercised nothing"
        final = _patiently(lambda: store.update("crash", "doc", lambda d: int(d["n"])))
        assert final.result >= acked
        assert store.read("crash", "doc").value == committed_state(final.result)
        problems = store.check()
        assert problems == [], f"killed writers left problems behind: {problems}"

    # ------------------------------------------------------------------ corruption

    def test_corrupt_document_is_quarantined_once_and_rebuilt(self, store_spec: StoreSpec, store: Store) -> None:
        if not store_spec.can_corrupt:
            pytest.skip("backend offers no corruptor in its StoreSpec, so corruption cannot be simulated")
        store.update("things", "doc", lambda d: d.update(version=1))
        store.update("things", "doc", lambda d: d.update(version=2))
        store.update("things", "other", lambda d: d.update(fine=True))
        store_spec.corrupt(store, "things", "doc")

        first = store.read("things", "doc")
        assert first.warnings, "reading a corrupt document must warn"
        assert any("quarantin" in w for w in first.warnings), first.warnings
        assert first.value in (None, {"version": 1}), first.value
        problems = store.check()
        assert problems, "check() must report the corrupt document or its quarantined copy"
        for _ in range(3):
            again = store.read("things", "doc")
            assert again.warnings and again.value == first.value
        assert store.check() == problems, "repeated reads must not quarantine more copies"
        assert store.read("things", "other").value == {"fine": True}

        res = store.update("things", "doc", lambda d: d.update(version=d.get("version", 0) + 10))
        assert res.warnings, "the rebuilding update must warn"
        expected = {"version": 11} if first.value else {"version": 10}
        assert store.read("things", "doc").value == expected
        assert list(store.read("things", "doc").warnings) == []
        assert store.check(), "the quarantined copy stays reported until a person removes it"

    # ------------------------------------------------------------------ logs

    def test_log_append_and_read(self, store: Store) -> None:
        assert store.read_log("audit") == []
        entries = [{"i": i, "kind": "event", "text": f"ünï {i}"} for i in range(25)]
        for e in entries:
            store.append("audit", e)
        store.append("other", {"x": 1})
        assert store.read_log("audit") == entries
        assert store.read_log("audit", limit=3) == entries[-3:]
        assert store.read_log("audit", limit=100) == entries
        assert store.logs() == ["audit", "other"]
        assert store.info().logs == {"audit": 25, "other": 1}
        assert store.check() == []

    def test_concurrent_appends_lose_nothing(self, store_spec: StoreSpec, store: Store) -> None:
        workers, per_worker = 4, 50
        _run_workers(store_spec, _log_appender, [("audit", w, per_worker) for w in range(workers)], timeout=120)
        entries = store.read_log("audit")
        assert len(entries) == workers * per_worker
        for w in range(workers):
            mine = [e["i"] for e in entries if e["worker"] == w]
            assert mine == list(range(per_worker)), f"worker {w}: entries lost or reordered"

    # ------------------------------------------------------------------ administration

    def test_migrate_round_trip(self, store: Store) -> None:
        source = MemoryStore()
        for i, key in enumerate(["plain", "a/b", "ü ñ", ".."]):
            source.update("alpha", key, functools.partial(_set, i=i, text="✓" * i))
        source.update("beta", "only", lambda d: d.update(nested={"x": [1, 2, {"y": None}]}))
        for i in range(5):
            source.append("audit", {"i": i})
        counts = migrate(source, store)
        assert counts == {"documents": 5, "log_entries": 5}
        back = MemoryStore()
        migrate(store, back)
        for coll in ("alpha", "beta"):
            assert back.keys(coll) == source.keys(coll)
            for key in source.keys(coll):
                assert back.read(coll, key).value == source.read(coll, key).value
        assert back.read_log("audit") == source.read_log("audit")
