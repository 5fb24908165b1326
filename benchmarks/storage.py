"""Storage benchmark: durable update throughput and the cost of one update as documents grow.

Every figure is printed next to a baseline measured in the same run: a plain ``open / write /
fsync / close`` of the same document bytes (the least any crash-safe write can cost). Backends are
created through the plugin manager by provider name, so any installed backend (``postgres``, a
third party's) can be measured the same way.

    python benchmarks/storage.py --backends file,sqlite --clients 1,8
    python benchmarks/storage.py --backends file,sqlite,postgres --postgres-dsn postgresql://127.0.0.1/test
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

# ---------------------------------------------------------------------------------------------
# Stores by provider name
# ---------------------------------------------------------------------------------------------


def open_store(backend: str, root: str, dsn: str | None) -> tuple[Any, Any]:
    """(plugin manager, store) for ``backend``, with its files under ``root``."""
    from nervous.kernel.config import Config
    from nervous.kernel.manager import PluginManager
    from nervous.kernel.paths import Paths

    base = Path(root)
    cfg = Config()
    cfg.paths = Paths(base / "config", base / "data", base / "state", base / "cache")
    cfg.storage.backend = backend
    cfg.storage.lock_timeout = 120.0
    cfg.storage.dsn = dsn
    if backend == "file":
        cfg.storage.path = str(base / "file-store")
    elif backend == "sqlite":
        cfg.storage.path = str(base / "bench.sqlite3")
    pm = PluginManager(cfg)
    return pm, pm.storage()


# ---------------------------------------------------------------------------------------------
# Realistic documents
# ---------------------------------------------------------------------------------------------


def cortex_document(regions: int, candidates: int = 5, lessons: int = 30) -> dict[str, Any]:
    """A skill cortex at ``regions`` regions (schema of specs/skill-cortex.md §3)."""
    motor = {}
    patterns = []
    for r in range(regions):
        name = f"region-{r:03d}-{['pdf', 'todo', 'image', 'git', 'mail'][r % 5]}"
        patterns.append({"signal": [f"word{r}", f"verb{r % 7}", f"noun{r % 11}", "extract", "convert"],
                         "region": name})
        cands = []
        for c in range(candidates):
            fp = f"{(r * 31 + c * 7):064x}"
            cands.append({
                "slug": f"@owner{c}/skill-{r}-{c}", "source": ["clawhub", "github", "local"][c % 3],
                "version": f"1.{c}.{r}", "weight": round(0.3 + 0.1 * c, 3),
                "runs": {"success": 10 + c, "fail": c, "recent_successes_7d": 2, "consecutive_successes": c,
                         "recent_success_times": [f"2026-03-0{1 + i}T09:12:0{i}Z" for i in range(4)]},
                "last_fail": {"type": "api_error", "detail": "service unavailable, retry failed",
                              "date": "2026-02-20"} if c % 2 else None,
                "side_effects": ["network:api.example.com", "read:env:EXAMPLE_TOKEN", "write:./out"],
                "skill_md_chars": 3120 + c, "reflex": c == 0, "last_used": "2026-03-04",
                "owner": f"owner{c}", "fingerprint": fp, "side_effects_for": fp, "scan_decision": "allow",
                "policy_state": {"discounted-thompson": {"alpha": 4.1 + c, "beta": 1.3}},
            })
        motor[name] = {"candidates": cands, "last_used": "2026-03-04"}
    lesson_list = []
    for i in range(lessons):
        kind = ["dependency_warning", "skill_quality_warning", "env_ready"][i % 3]
        lesson: dict[str, Any] = {"type": kind, "confidence": 0.6, "created": "2026-03-01", "validations": 2,
                                  "contradictions": 0, "last_checked": "2026-03-04"}
        if kind == "skill_quality_warning":
            lesson.update(slug=f"skill-{i}", detail="output truncated on large inputs")
        else:
            lesson.update(region=f"region-{i:03d}", key=f"KEY_{i}" if kind == "env_ready" else f"bin{i}")
        lesson_list.append(lesson)
    return {"version": 1, "cortex": {"sensory": {"patterns": patterns}, "motor": motor,
                                     "prefrontal": {"lessons": lesson_list}},
            "blacklist": ["evil-skill", "@someone/fake-tool"],
            "stats": {"searches": 140, "installs": 90, "cache_hits": 60, "reflexes_fired": 20}, "ext_version": 1}


def goals_document(goals: int) -> dict[str, Any]:
    """A goal store with ``goals`` goals (shape of specs/goals.md §1-2)."""
    out = {}
    for g in range(goals):
        gid = f"goal-{g + 1:03d}"
        out[gid] = {
            "id": gid, "prompt": f"Migrate the reporting job number {g} to the new scheduler and verify it",
            "intent": {"summary": f"reporting job {g} runs on the new scheduler", "constraints": ["no downtime"]},
            "status": ["analyzed", "planned", "in_progress", "done"][g % 4], "complexity": "medium",
            "plan": {"id": f"plan-{g + 1:03d}", "steps": [{"n": s, "text": f"step {s} of goal {g}", "done": s < 2}
                                                           for s in range(4)]},
            "acceptance": {"mode": "checks", "checks": [{"name": "job runs", "status": "pending"}]},
            "axon_task_ids": [f"t-{g:04x}"], "verification": {}, "failure_history": [],
            "created_at": "2026-03-01T09:00:00.000Z", "updated_at": "2026-03-04T18:40:11.000Z",
        }
    return {"version": 1, "project": "bench-3f2a9c01", "created_at": "2026-03-01T09:00:00.000Z",
            "updated_at": "2026-03-04T18:40:11.000Z", "current_goal_id": "goal-001", "goals": out,
            "drain_runs": {}, "config": {}, "quarantined_goals": {}}


def touch(doc: dict[str, Any]) -> None:
    """A typical small mutation: record one more use (cortex) or progress (goals)."""
    if "cortex" in doc:
        motor = doc["cortex"]["motor"]
        if motor:
            cand = next(iter(motor.values()))["candidates"][0]
            cand["runs"]["success"] += 1
        doc["stats"]["searches"] += 1
    else:
        doc["updated_at"] = f"2026-03-04T18:40:{time.time() % 60:06.3f}Z"
        doc["n"] = doc.get("n", 0) + 1


# ---------------------------------------------------------------------------------------------
# Measurements
# ---------------------------------------------------------------------------------------------


def plain_write_once(path: Path, data: bytes) -> float:
    """Seconds to create a file holding ``data`` and fsync it (the baseline)."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    t0 = time.perf_counter()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    return time.perf_counter() - t0


def plain_write_rate(path: Path, data: bytes, seconds: float) -> float:
    """Plain fsync'd writes per second, one process, for ``seconds``."""
    n, spent = 0, 0.0
    while spent < seconds:
        spent += plain_write_once(path, data)
        n += 1
    return n / spent


def _throughput_worker(backend: str, root: str, dsn: str | None, collection: str, seconds: float,
                       ready: Any, go: Any, results: Any) -> None:
    pm, store = open_store(backend, root, dsn)
    payload = "x" * 1000

    def bump(doc: dict[str, Any]) -> None:
        doc["n"] = doc.get("n", 0) + 1
        doc["payload"] = payload

    try:
        ready.release()
        go.wait()
        ops = 0
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            store.update(collection, "counter", bump)
            ops += 1
        results.put(ops)
    finally:
        pm.close()


def throughput(ctx: Any, backend: str, root: str, dsn: str | None, clients: int, seconds: float,
               collection: str) -> tuple[float, int]:
    """(updates per second, final counter) with ``clients`` processes on one document."""
    ready, go, results = ctx.Semaphore(0), ctx.Event(), ctx.Queue()
    procs = [ctx.Process(target=_throughput_worker,
                         args=(backend, root, dsn, collection, seconds, ready, go, results)) for _ in range(clients)]
    for p in procs:
        p.start()
    for _ in procs:
        if not ready.acquire(timeout=60):
            raise SystemExit("a benchmark worker did not start")
    go.set()
    total = sum(results.get(timeout=seconds + 120) for _ in procs)
    for p in procs:
        p.join()
        if p.exitcode != 0:
            raise SystemExit(f"a benchmark worker failed (exit code {p.exitcode})")
    return total / seconds, total


def load(store: Any, collection: str, key: str, doc: dict[str, Any]) -> None:
    store.update(collection, key, lambda d: (d.clear(), d.update(json.loads(json.dumps(doc)))))


# ---------------------------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backends", default="file,sqlite", help="comma-separated provider names (default: file,sqlite)")
    ap.add_argument("--clients", default="1,8", help="process counts for the throughput test (default: 1,8)")
    ap.add_argument("--seconds", type=float, default=3.0, help="duration of each throughput run (default: 3)")
    ap.add_argument("--regions", default="1,10,40,80", help="cortex sizes in regions (5 candidates each, 30 lessons)")
    ap.add_argument("--goals", default="10,100,1000", help="goal store sizes")
    ap.add_argument("--repeat", type=int, default=30, help="updates timed per document size (median; default 30)")
    ap.add_argument("--postgres-dsn", default=os.environ.get("NERVOUS_POSTGRES_DSN"),
                    help="connection string for the postgres backend (default: $NERVOUS_POSTGRES_DSN)")
    ap.add_argument("--dir", default=None, help="where to put the stores (default: a new temporary directory)")
    ap.add_argument("--skip-throughput", action="store_true", help="only measure cost versus document size")
    args = ap.parse_args(argv)

    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    clients = [int(c) for c in args.clients.split(",") if c.strip()]
    workdir = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="nervous-storage-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    run = uuid.uuid4().hex[:8]
    ctx = multiprocessing.get_context("spawn")

    print(f"# storage benchmark  python {sys.version.split()[0]}  cpus {os.cpu_count()}  dir {workdir}")
    print("# baseline = open/write/fsync/close of the same document bytes, measured in this run\n")

    from nervous.kernel.durable import dumps_json

    counter_doc = dumps_json({"n": 12345, "payload": "x" * 1000})
    baseline_file = workdir / "baseline.json"

    if not args.skip_throughput:
        print(f"## throughput: updates/s on one shared document (~{len(counter_doc)} bytes), "
              f"{args.seconds:g} s per run")
        print("(baseline: plain fsync'd writes/s of the same bytes by one process, measured right before each run)\n")
        print(f"{'backend':<10} {'clients':>7} {'updates/s':>10} {'baseline/s':>11} {'ratio':>7} {'lost':>5}")
        for backend in backends:
            for c in clients:
                coll = f"bench-{run}-t{c}"
                base_rate = plain_write_rate(baseline_file, counter_doc, args.seconds)
                rate, total = throughput(ctx, backend, str(workdir), args.postgres_dsn, c, args.seconds, coll)
                pm, store = open_store(backend, str(workdir), args.postgres_dsn)
                try:
                    final = (store.read(coll, "counter").value or {}).get("n", 0)
                    store.delete(coll, "counter")
                finally:
                    pm.close()
                print(f"{backend:<10} {c:>7} {rate:>10,.0f} {base_rate:>11,.0f} {rate / base_rate:>6.2f}× "
                      f"{total - final:>5}")
        print()

    sizes: list[tuple[str, dict[str, Any]]] = []
    sizes += [(f"cortex {r} regions", cortex_document(r)) for r in (int(x) for x in args.regions.split(",") if x)]
    sizes += [(f"goals {g}", goals_document(g)) for g in (int(x) for x in args.goals.split(",") if x)]
    print(f"## one update versus document size (median of {args.repeat}; ratio = update time / plain fsync'd "
          "write of the same bytes, the two measured alternately)\n")
    header = f"{'document':<18} {'bytes':>9} {'plain write':>12}"
    for b in backends:
        header += f" {b + ' ms':>12} {'ratio':>7}"
    print(header)
    stores = {b: open_store(b, str(workdir), args.postgres_dsn) for b in backends}
    coll = f"bench-{run}-s"
    try:
        for label, doc in sizes:
            data = dumps_json(doc)
            key = label.replace(" ", "-")
            for b in backends:
                load(stores[b][1], coll, key, doc)
            base_times: list[float] = []
            times: dict[str, list[float]] = {b: [] for b in backends}
            for _ in range(args.repeat):
                base_times.append(plain_write_once(baseline_file, data))
                for b in backends:
                    t0 = time.perf_counter()
                    stores[b][1].update(coll, key, touch)
                    times[b].append(time.perf_counter() - t0)
            base = statistics.median(base_times)
            line = f"{label:<18} {len(data):>9,} {base * 1000:>9.2f} ms"
            for b in backends:
                t = statistics.median(times[b])
                line += f" {t * 1000:>12.2f} {t / base:>6.1f}×"
                stores[b][1].delete(coll, key)
            print(line)
    finally:
        for pm, _store in stores.values():
            pm.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
