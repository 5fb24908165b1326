"""The self-hosted registry server (``nervous registry serve``) under load, on loopback.

1,000 skills are published through the server's own publish path (upload, scan by the review
policy, atomic metadata write) into a SQLite store and a blob directory, then one server process
is started on them (uvicorn, one worker: one core) and measured over keep-alive HTTP connections:

- search p50 (``/api/v1/search``), against the discovery document round trip measured in the same
  run (the baseline: HTTP + routing with no work);
- download of a 50-file skill (``/api/v1/download``), cold (zip built) and warm;
- sustained downloads/s from 8 concurrent client processes for ``--seconds``, every archive
  checked against the published fingerprint (files re-hashed, ``_meta.json`` excluded).

    python benchmarks/registry.py [--skills 1000] [--seconds 10] [--clients 8] [--queries 300]
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import io
import json
import multiprocessing
import os
import random
import statistics
import sys
import tempfile
import time
import urllib.parse
import zipfile
from pathlib import Path
from typing import Any

WORDS = ("pdf", "gif", "weather", "deploy", "notes", "calendar", "mail", "search", "chart", "image", "audio",
         "video", "backup", "lint", "format", "test", "docs", "sql", "csv", "json", "yaml", "git", "shell", "http")


def _skill_files(i: int, n_files: int = 2) -> dict[str, bytes]:
    a, b = WORDS[i % len(WORDS)], WORDS[(i * 7 + 3) % len(WORDS)]
    files = {"SKILL.md": (f"---\nname: skill-{i}\ndescription: {a.title()} and {b} helper number {i}.\n---\n"
                          f"# Skill {i}\n\nUse it for {a} and {b} tasks.\n").encode()}
    for k in range(1, n_files):
        files[f"docs/{k:02d}.md"] = (f"Page {k} of skill {i}.\n" * 100).encode()
    return files


def _fingerprint(files: dict[str, bytes]) -> str:
    from nervous.kernel.fingerprint import skill_fingerprint

    return skill_fingerprint([(p, hashlib.sha256(b).hexdigest()) for p, b in files.items()])


def _seed(env: dict[str, str], data_dir: Path, n: int) -> tuple[dict[str, str], float]:
    """Publish ``n`` skills (plus ``big``, 50 files) in-process; slug -> fingerprint, seconds per publish."""
    os.environ.update(env)
    from nervous.frontends.registry_server.server import build_registry
    from nervous.kernel.config import load_config
    from nervous.kernel.manager import PluginManager

    pm = PluginManager(load_config())
    reg = build_registry(pm, data_dir)
    user = {"handle": "bench", "role": "publisher"}
    expected = {}
    started = time.perf_counter()
    for i in range(n + 1):
        slug = "big" if i == n else f"skill-{i}"
        files = _skill_files(i, 50 if slug == "big" else 2)
        rows = [{"path": p, "size": len(b), "sha256": reg.blobs.put(b), "storageId": hashlib.sha256(b).hexdigest()}
                for p, b in files.items()]
        out = reg.publish(user, json.dumps({"slug": slug, "version": "1.0.0", "ownerHandle": "bench",
                                            "files": rows}).encode())
        assert out["verdict"] == "clean", out
        expected[slug] = _fingerprint(files)
    per = (time.perf_counter() - started) / (n + 1)
    pm.storage().close()
    return expected, per


class Client:
    def __init__(self, url: str) -> None:
        parts = urllib.parse.urlsplit(url)
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)

    def get(self, path: str) -> tuple[int, bytes]:
        self.conn.request("GET", path)
        resp = self.conn.getresponse()
        return resp.status, resp.read()


def _timed(client: Client, paths: list[str]) -> list[float]:
    out = []
    for path in paths:
        t = time.perf_counter()
        status, _ = client.get(path)
        out.append((time.perf_counter() - t) * 1000)
        assert status == 200, (path, status)
    return out


def _verify(data: bytes, expected: str) -> bool:
    from nervous.kernel.fingerprint import skill_fingerprint

    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        names = zf.namelist()
        if names[-1] != "_meta.json":
            return False
        got = skill_fingerprint([(n, hashlib.sha256(zf.read(n)).hexdigest()) for n in names if n != "_meta.json"])
    return got == expected


def _worker(url: str, expected: dict[str, str], seconds: float, seed: int, out: Any, ready: Any, go: Any) -> None:
    client = Client(url)
    rng = random.Random(seed)
    slugs = sorted(expected)
    status, data = client.get("/api/v1/download?slug=big")  # imports and the collator load before the clock
    assert status == 200 and _verify(data, expected["big"])
    ready.put(seed)
    go.wait()
    ok = bad = errors = 0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        slug = rng.choice(slugs)
        try:
            status, data = client.get(f"/api/v1/download?slug={slug}")
        except OSError:
            errors += 1
            client = Client(url)
            continue
        if status != 200:
            errors += 1
        elif _verify(data, expected[slug]):
            ok += 1
        else:
            bad += 1
    out.put((ok, bad, errors))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--skills", type=int, default=1000)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--queries", type=int, default=300)
    args = ap.parse_args()

    from nervous.testing.registry_process import RegistryProcess, registry_env

    with tempfile.TemporaryDirectory(prefix="nervous-registry-bench-") as tmp:
        root = Path(tmp)
        (root / "home").mkdir()
        env = registry_env(root / "home")
        t0 = time.perf_counter()
        expected, per_publish = _seed(env, root / "data", args.skills)
        print(f"seeded {len(expected)} skills in {time.perf_counter() - t0:.1f} s "
              f"({per_publish * 1000:.1f} ms per publish, scan included)")
        with RegistryProcess(env, root / "data", extra_args=("--no-rate-limit",), refresh_interval=5.0) as server:
            client = Client(server.url)
            _timed(client, ["/.well-known/clawhub.json"] * 50 + ["/api/v1/search?q=pdf"] * 20
                   + ["/api/v1/download?slug=skill-0"] * 5)  # warm-up: imports, collator, caches
            base = _timed(client, ["/.well-known/clawhub.json"] * args.queries)
            rng = random.Random(1)
            queries = [f"/api/v1/search?q={rng.choice(WORDS)}+{rng.choice(WORDS)}" for _ in range(args.queries)]
            search = _timed(client, queries)
            cold = _timed(client, ["/api/v1/download?slug=big"])[0]
            status, data = client.get("/api/v1/download?slug=big")
            assert status == 200 and _verify(data, expected["big"])
            warm = _timed(client, ["/api/v1/download?slug=big"] * 100)
            p50 = statistics.median
            print(f"\n{'request':38} {'p50 ms':>8} {'p90 ms':>8} {'ratio':>7}")
            for name, xs in (("discovery document (baseline)", base), (f"search, {args.skills:,} skills", search),
                             ("download 50-file skill, warm", warm)):
                p90 = sorted(xs)[int(len(xs) * 0.9)]
                print(f"{name:38} {p50(xs):8.2f} {p90:8.2f} {p50(xs) / p50(base):6.2f}x")
            print(f"{'download 50-file skill, cold (zip built)':38} {cold:8.2f}")

            ctx = multiprocessing.get_context("spawn")
            queue: Any = ctx.Queue()
            ready: Any = ctx.Queue()
            go = ctx.Event()
            procs = [ctx.Process(target=_worker, args=(server.url, expected, args.seconds, i, queue, ready, go))
                     for i in range(args.clients)]
            for p in procs:
                p.start()
            for _ in procs:
                ready.get(timeout=300)
            started = time.perf_counter()
            go.set()
            results = [queue.get(timeout=args.seconds + 120) for _ in procs]
            wall = time.perf_counter() - started
            for p in procs:
                p.join()
            ok = sum(r[0] for r in results)
            bad = sum(r[1] for r in results)
            errors = sum(r[2] for r in results)
            print(f"\nsustained downloads: {args.clients} client processes, {args.seconds:.0f} s, random skills "
                  f"of {args.skills + 1}")
            print(f"  {ok / wall:.0f} verified downloads/s ({ok} in {wall:.1f} s); "
                  f"corrupted {bad}, errors {errors}")
    return 0 if bad == 0 and errors == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
