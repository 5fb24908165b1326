"""Cold start-up cost of the CLI, as a ratio to the bare interpreter measured in the same run.

    python benchmarks/startup.py [--runs 15]

Prints the median wall time of ``python -c pass``, ``nervous --version`` and
``nervous plugins --json`` (each a fresh process), their ratios to the bare interpreter, and the
heavy modules (HTTP clients, YAML, rich, numpy, psycopg, mcp) that ``import nervous`` and the
plugin load pull in — there must be none.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HEAVY = {"httpx", "httpcore", "requests", "urllib3", "yaml", "rich", "typer", "numpy", "psycopg", "psycopg_pool",
         "mcp", "anyio", "sqlalchemy", "onnxruntime"}

PROBE = """
import sys
from nervous.manager import PluginManager
from nervous.config import load_config
pm = PluginManager(load_config())
pm.plugins()
print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))
"""


def timed(cmd: list[str], env: dict[str, str], runs: int) -> float:
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "NERVOUS_HOME": home}
        py = sys.executable
        base = timed([py, "-c", "pass"], env, args.runs)
        rows = [("python -c pass", base)]
        rows.append(("nervous --version", timed([py, "-m", "nervous", "--version"], env, args.runs)))
        rows.append(("nervous plugins --json", timed([py, "-m", "nervous", "plugins", "--json"], env, args.runs)))
        loaded = subprocess.run([py, "-c", PROBE], env=env, capture_output=True, text=True, check=True).stdout.split()
    heavy = sorted(HEAVY & set(loaded))
    print(f"{'command':28} {'median ms':>10} {'ratio':>7}")
    for name, t in rows:
        print(f"{name:28} {t * 1000:10.1f} {t / base:7.2f}x")
    print(f"heavy modules loaded with every plugin: {', '.join(heavy) or 'none'}")
    print(json.dumps({"runs": args.runs, "ms": {n: round(t * 1000, 1) for n, t in rows},
                      "ratio": {n: round(t / base, 2) for n, t in rows}, "heavy": heavy}))


if __name__ == "__main__":
    main()
