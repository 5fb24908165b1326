"""Where the CPU time of ``nervous perceive TASK --json`` goes, phase by phase, in fresh processes.

    python benchmarks/startup_phases.py [--runs 11] [--python PATH] [--baseline PATH]

Each run is a new interpreter (``PYTHONDONTWRITEBYTECODE`` dropped, a fresh ``NERVOUS_HOME``, one
warm-up run first, as in ``benchmarks/startup.py``) that does what the launcher does for
``perceive TASK --json``, reading the process CPU clock between phases: the imports any design
pays (``json``, ``pathlib``, pluggy, attrs), then nervous's own imports, loading the configuration,
building the plugin manager, resolving the selection, opening the store, reading the memory,
creating the matcher, the perception and its JSON, then what the installed launcher does before
exit (``gc.freeze()`` where it has ``_before_exit``). The process CPU clock at the program's first
line is the interpreter's start; the child's rusage less the clock at its last line is the exit. It prints each
phase's median and share, the attrs record classes that exist at the end (each compiled its
generated methods) and the modules loaded beyond the design's fixed imports. ``--baseline PATH``
runs another interpreter (a regular install of the code before) in the same rounds, alternating,
and prints its phases beside.
``startup.py`` gives the ratios; this says what is in them.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from typing import Any

PROBE = r"""
import time
clock = time.process_time
marks = [("start", clock())]
def mark(name):
    marks.append((name, clock()))
import json, pathlib, pluggy, attrs, sys
fixed = set(sys.modules)
mark("json, pathlib, pluggy, attrs (fixed)")
from nervous.frontends.launch import App, json_result
mark("import the launcher")
from nervous.engines.cortex import Cortex
mark("import the cortex engine")
app = App([], None, [], [])
app.command = "perceive"
config = app.config
mark("load the configuration")
from nervous.kernel.manager import PluginManager
manager = PluginManager(config, blocked=app.blocked, autoload=app.autoload)
mark("build the plugin manager")
manager.check_selection()
app._manager = manager
mark("resolve the selected providers")
cortex = Cortex(manager)
store = cortex.store
mark("open the store (file_store import)")
doc = cortex._read()
mark("read the memory")
matcher = cortex.matcher()
mark("create the matcher (import)")
perception = cortex.perceive(TASK)
mark("perceive (entity filter, word lists)")
text = json_result(perception.to_json(), app.all_warnings())
mark("JSON answer")
records = sorted({f"{c.__module__}.{c.__qualname__}" for m in list(sys.modules.values())
                  if getattr(m, "__name__", "").startswith("nervous")
                  for c in vars(m).values() if isinstance(c, type) and attrs.has(c)
                  and c.__module__ == m.__name__})
phases = {b: (y - x) * 1000 for (_, x), (b, y) in zip(marks, marks[1:])}
print(json.dumps({"phases": phases, "records": records, "start": marks[0][1] * 1000, "end": clock() * 1000,
                  "extra": sorted(m for m in set(sys.modules) - fixed)}))
sys.stdout.flush()
import nervous.frontends.launch as launch
if hasattr(launch, "_before_exit"):
    launch._before_exit()  # what the launcher does once it has answered (nothing before it did)
"""

TASK = "count the words in my report"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--python", default=sys.executable, help="the interpreter to profile (default: this one)")
    ap.add_argument("--baseline", default=None, help="another interpreter run in the same rounds")
    args = ap.parse_args()
    probe = PROBE.replace("TASK", repr(TASK))
    pythons = [args.python, *([args.baseline] if args.baseline else [])]
    runs: dict[str, list[dict[str, Any]]] = {py: [] for py in pythons}
    with tempfile.TemporaryDirectory() as home:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["NERVOUS_HOME"] = home
        for i in range(args.runs + 1):
            for py in pythons:
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                out = subprocess.run([py, "-c", probe], env=env, cwd=home, capture_output=True, text=True,
                                     check=True).stdout
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                if i:  # the first round warms the bytecode and the entry-point cache
                    row = json.loads(out)
                    used = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
                    row["phases"] = {"interpreter start (before the program)": row["start"], **row["phases"],
                                     "exit (after the answer)": used - row["end"]}
                    runs[py].append(row)
    rows = runs[args.python]
    phases = list(rows[0]["phases"])
    medians = {py: {p: statistics.median(r["phases"][p] for r in rs) for p in phases} for py, rs in runs.items()}
    totals = {py: statistics.median(sum(r["phases"].values()) for r in rs) for py, rs in runs.items()}
    total = totals[args.python]
    print(f"interpreter: {args.python}, {args.runs} runs, median process CPU per phase"
          + (f"; baseline: {args.baseline}" if args.baseline else ""))
    print(f"{'phase':42} {'ms':>7} {'share':>6}" + (f" {'baseline':>9}" if args.baseline else ""))
    for p in phases:
        line = f"{p:42} {medians[args.python][p]:7.2f} {medians[args.python][p] / total:6.1%}"
        if args.baseline:
            line += f" {medians[args.baseline][p]:9.2f}"
        print(line)
    print(f"{'total (median of the sums)':42} {total:7.2f}       "
          + (f" {totals[args.baseline]:9.2f}" if args.baseline else ""))
    nervous = [m for m in rows[0]["extra"] if m.split(".")[0] in ("nervous", "nervous_plugins")]
    other = [m for m in rows[0]["extra"] if m not in nervous]
    print(f"attrs record classes built ({len(rows[0]['records'])}): {', '.join(rows[0]['records'])}")
    print(f"modules beyond the fixed imports: {len(nervous)} of nervous, others: {', '.join(other) or 'none'}")
    if args.baseline:
        base = runs[args.baseline][0]
        print(f"baseline: {len(base['records'])} attrs record classes, "
              f"{sum(m.split('.')[0] in ('nervous', 'nervous_plugins') for m in base['extra'])} nervous modules")
    print(json.dumps({"runs": args.runs, "python": args.python, "baseline": args.baseline, "ms": medians,
                      "total_ms": totals, "records": rows[0]["records"], "nervous_modules": len(nervous), "other_modules": other}))


if __name__ == "__main__":
    main()
