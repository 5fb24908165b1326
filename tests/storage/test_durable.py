"""The durable-file layer: lock, atomic write with backup, load with quarantine (real processes)."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from nervous.errors import StorageBusy
from nervous.kernel.durable import (
    FileLock,
    atomic_write_bytes,
    atomic_write_json,
    load_json,
    pid_alive,
    quarantine,
    quarantine_copies,
)

HOLDER = """
import sys, time
from nervous.kernel.durable import FileLock
lock = FileLock(sys.argv[1], timeout=5)
lock.acquire()
print("locked", flush=True)
time.sleep(60)
"""


def start_holder(lock: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(lock)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "locked"
    return proc


def stop(proc: subprocess.Popen[str]) -> None:
    proc.kill()
    proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    assert not pid_alive(proc.pid)
    return proc.pid


def mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


# --------------------------------------------------------------------------- atomic writes


def test_atomic_write_keeps_backup_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "er" / "doc.json"
    atomic_write_json(target, {"v": 1, "text": "ünï"})
    assert not (target.parent / "doc.json.bak").exists()
    atomic_write_json(target, {"v": 2})
    assert json.loads(target.read_text("utf-8")) == {"v": 2}
    assert json.loads((target.parent / "doc.json.bak").read_text("utf-8")) == {"v": 1, "text": "ünï"}
    assert "ünï" in (target.parent / "doc.json.bak").read_text("utf-8"), "non-ASCII stays readable"
    assert sorted(p.name for p in target.parent.iterdir()) == ["doc.json", "doc.json.bak"]
    assert mode(target) == 0o600 and mode(target.parent / "doc.json.bak") == 0o600
    assert mode(target.parent) == 0o700 and mode(tmp_path / "deep") == 0o700
    atomic_write_json(target, {"v": 3})
    assert json.loads((target.parent / "doc.json.bak").read_text("utf-8")) == {"v": 2}


def test_atomic_write_without_backup_and_custom_mode(tmp_path: Path) -> None:
    target = tmp_path / "f.bin"
    atomic_write_bytes(target, b"one", backup=False)
    atomic_write_bytes(target, b"two", backup=False, mode=0o640)
    assert target.read_bytes() == b"two" and mode(target) == 0o640
    assert not (tmp_path / "f.bin.bak").exists()


def test_a_failed_write_leaves_the_file_and_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "doc.json"
    atomic_write_json(target, {"v": 1})
    with pytest.raises(ValueError):
        atomic_write_json(target, {"v": float("nan")})
    with pytest.raises(TypeError):
        atomic_write_json(target, {"v": object()})
    assert json.loads(target.read_text()) == {"v": 1}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["doc.json"]


# --------------------------------------------------------------------------- load and quarantine


def test_load_missing_file(tmp_path: Path) -> None:
    res = load_json(tmp_path / "nope.json")
    assert res.value is None and res.warnings == [] and not res.corrupt and res.quarantined is None


@pytest.mark.parametrize("garbage", [b'{"a": 1', b"", b"\x00\xff\xfe garbage", b"[1, 2]", b'"text"', b"null"])
def test_corrupt_file_is_quarantined_once_and_backup_restored(tmp_path: Path, garbage: bytes) -> None:
    target = tmp_path / "doc.json"
    atomic_write_json(target, {"v": 1})
    atomic_write_json(target, {"v": 2})
    target.write_bytes(garbage)
    first = load_json(target)
    assert first.corrupt and first.restored_from_backup and first.value == {"v": 1}
    assert first.quarantined is not None and first.quarantined.read_bytes() == garbage
    assert str(first.quarantined) in first.warnings[0]
    assert any("restored from backup of" in w and "later changes lost" in w for w in first.warnings)
    for _ in range(3):
        again = load_json(target)
        assert again.quarantined == first.quarantined and again.value == {"v": 1}
    assert quarantine_copies(target) == [first.quarantined]
    assert mode(first.quarantined) == 0o600
    assert target.read_bytes() == garbage, "loading never rewrites the file"


def test_different_corruption_gets_its_own_copy(tmp_path: Path) -> None:
    target = tmp_path / "doc.json"
    target.write_bytes(b"{broken")
    a = load_json(target)
    target.write_bytes(b"{broken differently")
    b = load_json(target)
    assert a.quarantined != b.quarantined
    assert len(quarantine_copies(target)) == 2
    assert a.value is None and b.value is None and not a.restored_from_backup


def test_corrupt_backup_is_not_used(tmp_path: Path) -> None:
    target = tmp_path / "doc.json"
    target.write_bytes(b"{bad")
    (tmp_path / "doc.json.bak").write_bytes(b"[also bad]")
    res = load_json(target)
    assert res.corrupt and res.value is None and not res.restored_from_backup
    assert len(res.warnings) == 1


def test_quarantine_of_missing_file(tmp_path: Path) -> None:
    assert quarantine(tmp_path / "absent.json") is None


# --------------------------------------------------------------------------- lock


def test_lock_file_content_mode_and_release(tmp_path: Path) -> None:
    lock_path = tmp_path / "sub" / "doc.json.lock"
    with FileLock(lock_path) as lock:
        assert lock.held
        info = json.loads(lock_path.read_text())
        assert info["pid"] == os.getpid() and info["host"] == socket.gethostname()
        assert abs(info["ts"] - time.time()) < 5
        assert mode(lock_path) == 0o600
    assert not lock_path.exists()
    with pytest.raises(RuntimeError):
        with FileLock(lock_path):
            raise RuntimeError("inside")
    assert not lock_path.exists(), "an exception inside releases the lock"


def test_live_holder_times_out_naming_lock_and_pid(tmp_path: Path) -> None:
    lock_path = tmp_path / "doc.json.lock"
    holder = start_holder(lock_path)
    try:
        started = time.monotonic()
        with pytest.raises(StorageBusy) as err:
            FileLock(lock_path, timeout=0.6).acquire()
        waited = time.monotonic() - started
        assert 0.55 <= waited < 3
        assert str(lock_path) in err.value.message and f"pid {holder.pid}" in err.value.message
        assert err.value.code == "storage_busy" and err.value.exit_code == 3
        assert err.value.details["pid"] == holder.pid
        assert lock_path.exists(), "a live holder's lock is never taken over"
    finally:
        stop(holder)


def test_lock_of_a_sigkilled_holder_is_taken_over(tmp_path: Path) -> None:
    lock_path = tmp_path / "doc.json.lock"
    holder = start_holder(lock_path)
    holder.send_signal(signal.SIGKILL)
    stop(holder)
    assert json.loads(lock_path.read_text())["pid"] == holder.pid
    started = time.monotonic()
    with FileLock(lock_path, timeout=5) as lock:
        assert lock.took_over_from == [holder.pid]
        assert json.loads(lock_path.read_text())["pid"] == os.getpid()
    assert time.monotonic() - started < 3, "taken over at once, not after the 5 s time-out"
    assert sorted(p.name for p in tmp_path.iterdir()) == [], "no aside copies left"


def test_dead_pid_lock_is_taken_over(tmp_path: Path) -> None:
    lock_path = tmp_path / "x.lock"
    pid = dead_pid()
    lock_path.write_text(json.dumps({"pid": pid, "host": socket.gethostname(), "ts": time.time()}))
    with FileLock(lock_path, timeout=2) as lock:
        assert lock.took_over_from == [pid]


def test_unreadable_lock_is_stale_only_after_a_second(tmp_path: Path) -> None:
    lock_path = tmp_path / "x.lock"
    lock_path.write_bytes(b"")  # a holder died between create and write
    with pytest.raises(StorageBusy, match="unknown process"):
        FileLock(lock_path, timeout=0.2).acquire()
    old = time.time() - 2
    os.utime(lock_path, (old, old))
    with FileLock(lock_path, timeout=2):
        pass


CHURN = """
import sys
from nervous.kernel.durable import FileLock
print("ready", flush=True)
while True:
    with FileLock(sys.argv[1], timeout=30):
        pass
"""


@pytest.mark.skipif(not hasattr(os, "O_TMPFILE") or not os.path.isdir("/proc/self/fd"),
                    reason="locks are created whole only where unnamed files can be linked into place")
def test_a_lock_file_never_exists_without_its_holder(tmp_path: Path) -> None:
    """Holders killed at random points never leave an empty (unreadable) lock behind."""
    import random

    from nervous.kernel.durable import read_lock_holder

    lock_path = tmp_path / "doc.json.lock"
    rng = random.Random(20261202)
    for _ in range(40):
        procs = [subprocess.Popen([sys.executable, "-c", CHURN, str(lock_path)], stdout=subprocess.PIPE, text=True)
                 for _ in range(2)]
        for proc in procs:
            assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0, 0.05))
        for proc in procs:
            stop(proc)
        holder = read_lock_holder(lock_path)
        assert holder is None or holder.readable, f"lock left without contents: {holder.raw!r}"
        assert sorted(p.name for p in tmp_path.iterdir()) in ([], [lock_path.name]), "no claim files left"
    with FileLock(lock_path, timeout=5):
        pass


def test_locks_work_where_unnamed_files_do_not(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(os, "O_TMPFILE", raising=False)
    lock_path = tmp_path / "x.lock"
    with FileLock(lock_path) as lock:
        assert json.loads(lock_path.read_text())["pid"] == os.getpid()
        assert lock.held
    assert not lock_path.exists()
    holder = start_holder(lock_path)
    try:
        with pytest.raises(StorageBusy, match=f"pid {holder.pid}"):
            FileLock(lock_path, timeout=0.2).acquire()
    finally:
        stop(holder)
    with FileLock(lock_path, timeout=5) as lock:
        assert lock.took_over_from == [holder.pid]


def test_foreign_host_lock_is_stale_after_30_seconds(tmp_path: Path) -> None:
    lock_path = tmp_path / "x.lock"
    lock_path.write_text(json.dumps({"pid": 1, "host": "elsewhere.invalid", "ts": time.time() - 5}))
    with pytest.raises(StorageBusy, match="on host elsewhere.invalid"):
        FileLock(lock_path, timeout=0.2).acquire()
    lock_path.write_text(json.dumps({"pid": 1, "host": "elsewhere.invalid", "ts": time.time() - 31}))
    with FileLock(lock_path, timeout=2):
        pass


def test_threads_of_one_process_exclude_each_other(tmp_path: Path) -> None:
    counter = tmp_path / "counter"
    counter.write_text("0")
    lock_path = tmp_path / "counter.lock"

    def work() -> None:
        for _ in range(25):
            with FileLock(lock_path, timeout=10):
                n = int(counter.read_text())
                time.sleep(0.0005)
                counter.write_text(str(n + 1))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert counter.read_text() == "100"


def test_processes_exclude_each_other(tmp_path: Path) -> None:
    """Three real processes doing unprotected read-sleep-write under the lock lose nothing."""
    counter = tmp_path / "counter"
    counter.write_text("0")
    code = """
import sys, time
from pathlib import Path
from nervous.kernel.durable import FileLock
c = Path(sys.argv[1])
for _ in range(40):
    with FileLock(sys.argv[2], timeout=30):
        n = int(c.read_text())
        time.sleep(0.0005)
        c.write_text(str(n + 1))
"""
    procs = [subprocess.Popen([sys.executable, "-c", code, str(counter), str(tmp_path / "counter.lock")])
             for _ in range(3)]
    assert [p.wait(60) for p in procs] == [0, 0, 0]
    assert counter.read_text() == "120"
