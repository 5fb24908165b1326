"""Install round trips under registry latency: nervous beside the clawhub CLI, same stand-in.

A ClawHub stand-in answers every request after an injected latency (default 100 ms). The figure
is an install's wall time as a ratio to one request's round trip measured in the same run (a GET
of the skill detail), with the number of requests each install made. With the clawhub CLI on PATH
(or ``NERVOUS_CLAWHUB_CLI``), its install of the same skill is measured the same way (its time
includes starting node).

    python benchmarks/install_latency.py [--latency-ms 100] [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


def _nervous_install(url: str, work: Path, home: Path) -> None:
    env = {**os.environ, "CLAWHUB_REGISTRY": url, "NERVOUS_REGISTRIES": "clawhub", "NERVOUS_HOME": str(home),
           "NERVOUS_DISABLE_PLUGIN_AUTOLOAD": "1"}
    from nervous.engines.install.installer import Installer
    from nervous.kernel.config import load_config
    from nervous.kernel.manager import PluginManager

    old = dict(os.environ)
    os.environ.update(env)
    cwd = os.getcwd()
    os.chdir(work)
    try:
        pm = PluginManager(load_config(), autoload=False)
        try:
            installer = Installer(pm)
            installer.install(installer.plan("weather"), confirmed=True)
        finally:
            pm.close()
    finally:
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(old)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--latency-ms", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    from nervous.kernel.http import HttpClient
    from nervous.testing.clawhub_server import ClawHubStandin, skill_md

    skills = [{"slug": "weather", "owner": "alice", "summary": "Weather forecast",
               "files": {"SKILL.md": skill_md("weather", "Weather forecast."), "notes.md": "notes\n"}}]
    server = ClawHubStandin(skills, latency=args.latency_ms / 1000.0).start()
    rows: list[tuple[str, float, int]] = []
    try:
        probe = HttpClient(server.url, retries=0)
        probe.get_json("/api/v1/skills/weather")  # warm-up
        rtt = statistics.median(_timed(lambda: probe.get_json("/api/v1/skills/weather")) for _ in range(args.rounds))
        times, counts = [], []
        for _ in range(args.rounds):
            with tempfile.TemporaryDirectory() as tmp:
                work, home = Path(tmp) / "work", Path(tmp) / "home"
                work.mkdir()
                server.requests.clear()
                times.append(_timed(lambda w=work, h=home: _nervous_install(server.url, w, h)))
                counts.append(len(server.requests))
        rows.append(("nervous install", statistics.median(times), max(counts)))
        cli = os.environ.get("NERVOUS_CLAWHUB_CLI") or shutil.which("clawhub")
        if cli:
            times, counts = [], []
            for _ in range(args.rounds):
                with tempfile.TemporaryDirectory() as tmp:
                    env = {**os.environ, "CLAWHUB_CONFIG_PATH": str(Path(tmp) / "c.json"),
                           "CLAWHUB_DISABLE_TELEMETRY": "1"}
                    server.requests.clear()
                    cmd = [cli, "--registry", server.url, "--workdir", tmp, "--no-input", "install", "weather"]
                    times.append(_timed(lambda c=cmd, e=env: subprocess.run(c, env=e, capture_output=True,
                                                                            check=True, timeout=120)))
                    counts.append(len(server.requests))
            rows.append(("clawhub install (CLI)", statistics.median(times), max(counts)))
    finally:
        server.stop()
    print(f"latency {args.latency_ms} ms; one request round trip {rtt * 1000:.1f} ms (the baseline)")
    print(f"{'install':24} {'median ms':>10} {'requests':>9} {'x round trip':>13}")
    for name, t, n in rows:
        print(f"{name:24} {t * 1000:10.1f} {n:9d} {t / rtt:12.2f}x")
    return 0


def _timed(fn: Any) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


if __name__ == "__main__":
    sys.exit(main())
