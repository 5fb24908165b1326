"""Cold start-up cost of the CLI, as a ratio to the bare interpreter measured in the same run.

    python benchmarks/startup.py [--runs 15]

Prints the median wall time of ``python -c pass``, ``nervous --version``,
``nervous plugins --json``, ``nervous perceive --json`` and, when the clawhub CLI is on ``PATH``,
``clawhub list`` (each a fresh process, interleaved so load changes hit every command alike), their
ratios to the bare interpreter, and the
heavy modules (HTTP clients, YAML, rich, numpy, psycopg, mcp) that ``import nervous`` and the
plugin load pull in — there must be none.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HEAVY = {"httpx", "httpcore", "requests", "urllib3", "yaml", "rich", "typer", "numpy", "psycopg", "psycopg_pool",
         "mcp", "anyio", "sqlalchemy", "onnxruntime"}

PROBE = """
import sys
from nervous.kernel.manager import PluginManager
from nervous.kernel.config import load_config
pm = PluginManager(load_config())
pm.plugins()
print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))
"""


def timed_all(cmds: list[list[str]], env: dict[str, str], runs: int, cwd: str) -> list[float]:
    """Median wall time of each command; rounds interleave the commands (a load spike hits all)."""
    samples: list[list[float]] = [[] for _ in cmds]
    for _ in range(runs):
        for i, cmd in enumerate(cmds):
            t0 = time.perf_counter()
            subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, cwd=cwd)
            samples[i].append(time.perf_counter() - t0)
    return [statistics.median(s) for s in samples]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "NERVOUS_HOME": home}
        py = sys.executable
        cmds = {
            "python -c pass": [py, "-c", "pass"],
            "nervous --version": [py, "-m", "nervous", "--version"],
            "nervous plugins --json": [py, "-m", "nervous", "plugins", "--json"],
            "nervous perceive --json": [py, "-m", "nervous", "perceive", "count the words in my report", "--json"],
        }
        clawhub = shutil.which("clawhub")
        if clawhub:
            cmds["clawhub list"] = [clawhub, "list", "--workdir", home]
        subprocess.run(cmds["nervous --version"], env=env, capture_output=True, check=False)  # warm caches
        medians = timed_all(list(cmds.values()), env, args.runs, home)
        rows = list(zip(cmds, medians, strict=True))
        base = rows[0][1]
        loaded = subprocess.run([py, "-c", PROBE], env=env, capture_output=True, text=True, check=True).stdout.split()
    heavy = sorted(HEAVY & set(loaded))
    print(f"{'command':28} {'median ms':>10} {'ratio':>7}")
    for name, t in rows:
        print(f"{name:28} {t * 1000:10.1f} {t / base:7.2f}x")
    times = dict(rows)
    if "clawhub list" in times:
        print(f"perceive / clawhub list: {times['nervous perceive --json'] / times['clawhub list']:.2f}")
    print(f"heavy modules loaded with every plugin: {', '.join(heavy) or 'none'}")
    print(json.dumps({"runs": args.runs, "ms": {n: round(t * 1000, 1) for n, t in rows},
                      "ratio": {n: round(t / base, 2) for n, t in rows}, "heavy": heavy}))


if __name__ == "__main__":
    main()
