"""Search fan-out and install throughput against ClawHub stand-ins on loopback.

Fan-out: three registries answer after injected latencies (default 50, 150 and 400 ms); the figure
is the fan-out's wall time as a ratio to the slowest registry's latency (target <= 1.2: the
registries are queried concurrently, so the slowest one bounds the answer).

Install: a skill of N files (default 50) installed end to end (detail, version detail, download,
archive checks, per-file sha256 verification, staged swap, lockfile, origin file, install record),
as a ratio to a plain copy of the same bytes into a folder measured in the same run.

    python benchmarks/search.py [--latencies 50,150,400] [--rounds 5] [--files 50] [--file-size 4096]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def _fan_out(latencies_ms: list[int], rounds: int) -> dict[str, Any]:
    from nervous_plugins.clawhub import ClawHubRegistry

    import nervous
    from nervous.engines.search import search
    from nervous.kernel.config import Config
    from nervous.kernel.manager import PluginManager
    from nervous.kernel.paths import Paths
    from nervous.testing.clawhub_server import ClawHubStandin, skill_md

    servers = {}
    for i, ms in enumerate(latencies_ms):
        skills = [{"slug": f"pdf-{i}-{k}", "owner": f"owner{i}", "summary": "pdf tools",
                   "files": {"SKILL.md": skill_md(f"pdf-{i}-{k}", "pdf")}} for k in range(5)]
        servers[f"hub-{ms}ms"] = ClawHubStandin(skills, latency=ms / 1000.0).start()

    class Hubs:
        @nervous.hookimpl
        def nervous_registries(self) -> list[nervous.Provider]:
            out = []
            for name, server in servers.items():
                def make(ctx: Any, url: str = server.url, name: str = name) -> ClawHubRegistry:
                    reg = ClawHubRegistry(registry=url, http_options={"retries": 0})
                    reg.name = name
                    return reg
                out.append(nervous.Provider(name, "stand-in", make))
            return out

    cfg = Config()
    cfg.paths = Paths.from_env()
    cfg.registries.use = list(servers)
    pm = PluginManager(cfg, autoload=False, builtins=True)
    pm.register(Hubs(), "bench-hubs")
    try:
        search(pm, "pdf")  # warm-up: connections, imports
        walls = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            result = search(pm, "pdf")
            walls.append(time.perf_counter() - t0)
            assert all(s.status == "ok" for s in result.registries), result.registries
            assert len(result.hits) == 5 * len(servers)
        slowest = max(latencies_ms) / 1000.0
        sequential = sum(latencies_ms) / 1000.0
        median = statistics.median(walls)
        return {"median_s": median, "slowest_s": slowest, "ratio": median / slowest,
                "sequential_ratio": sequential / slowest}
    finally:
        pm.close()
        for s in servers.values():
            s.stop()


def _install(files: int, size: int, rounds: int) -> dict[str, Any]:
    from nervous.engines.install.installer import Installer
    from nervous.kernel.config import Config
    from nervous.kernel.manager import PluginManager
    from nervous.kernel.paths import Paths
    from nervous.testing.clawhub_server import ClawHubStandin, skill_md

    payload = {"SKILL.md": skill_md("bulk", "A skill with many files.")}
    for k in range(files - 1):
        payload[f"references/part-{k:03d}.md"] = (f"# part {k}\n" + os.urandom(size // 2).hex())[:size]
    total = sum(len(v.encode()) for v in payload.values())
    with ClawHubStandin([{"slug": "bulk", "owner": "bench", "files": payload}]) as server, \
            tempfile.TemporaryDirectory() as tmp:
        os.environ["CLAWHUB_REGISTRY"] = server.url
        installs, copies = [], []
        for r in range(rounds):
            work = Path(tmp) / f"round{r}"
            work.mkdir()
            cfg = Config()
            cfg.paths = Paths.from_env()
            cfg.registries.use = ["clawhub"]
            cfg.install.dir = str(work / "skills")
            pm = PluginManager(cfg, autoload=False)
            try:
                t0 = time.perf_counter()
                installer = Installer(pm)
                installer.install(installer.plan("bulk"))
                installs.append(time.perf_counter() - t0)
            finally:
                pm.close()
            t0 = time.perf_counter()
            dest = work / "copy"
            for rel, text in payload.items():
                p = dest / rel
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_bytes(text.encode())
            copies.append(time.perf_counter() - t0)
        inst, copy = statistics.median(installs), statistics.median(copies)
        return {"files": files, "bytes": total, "install_s": inst, "copy_s": copy, "ratio": inst / copy,
                "files_per_s": files / inst, "mib_per_s": total / inst / 1024 / 1024}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--latencies", default="50,150,400", help="registry latencies in ms (comma-separated)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--files", type=int, default=50)
    ap.add_argument("--file-size", type=int, default=4096)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as home:
        os.environ["NERVOUS_HOME"] = home
        latencies = [int(x) for x in args.latencies.split(",") if x.strip()]
        fan = _fan_out(latencies, args.rounds)
        print(f"fan-out over {len(latencies)} registries ({args.latencies} ms), median of {args.rounds}: "
              f"{fan['median_s'] * 1000:.0f} ms = {fan['ratio']:.3f} x the slowest registry "
              f"(sequential would be {fan['sequential_ratio']:.2f} x; target <= 1.2)")
        inst = _install(args.files, args.file_size, args.rounds)
        print(f"install of a {inst['files']}-file skill ({inst['bytes'] / 1024:.0f} KiB), median of {args.rounds}: "
              f"{inst['install_s'] * 1000:.1f} ms = {inst['ratio']:.1f} x a plain copy of the same bytes "
              f"({inst['copy_s'] * 1000:.2f} ms); {inst['files_per_s']:.0f} files/s, {inst['mib_per_s']:.2f} MiB/s")
    return 0 if fan["ratio"] <= 1.2 else 1


if __name__ == "__main__":
    sys.exit(main())
