"""Cold start-up cost of the CLI, as a ratio to the bare interpreter measured in the same run.

    python benchmarks/startup.py [--runs 21] [--python PATH] [--baseline PATH] [--floor]

Prints the median wall time and the median CPU time (user + system of the child) of
``python -c pass``, ``nervous --version``, ``nervous plugins --json``, ``nervous perceive --json``,
``nervous scan --json`` of a one-file and of a three-file skill (:data:`SCAN_SKILLS`) and, when the
clawhub CLI is on ``PATH``, ``clawhub list`` (each a fresh process, interleaved so load changes hit
every command alike), their ratios to the bare interpreter, and the heavy modules
(HTTP clients, YAML, rich, numpy, psycopg, mcp) that ``import nervous`` and the plugin load pull
in — there must be none.

``--baseline PATH`` also times ``nervous --version``, ``nervous perceive --json`` and the scans of another
interpreter in the same interleaved rounds (e.g. a regular install of the main branch) and prints
each command's time over the baseline's, a before/after ratio that one load level affects alike.

``--floor`` also times, in the same rounds, what the design costs whatever the code does: the
interpreter importing ``json``, ``pathlib`` and ``pluggy``; then ``attrs`` too; then a program
that also builds a pluggy manager, calls one hook through it, looks for the files perceive reads
(the user configuration, a project file up from the working directory, the cortex document) and
prints a JSON answer; then that program defining seven attrs classes shaped like the records perceive builds (a
class compiles its generated methods when it is defined); then that program started as the
commands are, ``python -m MODULE`` (``-m``
loads ``runpy`` and ``importlib.util``); then the same ending as the launcher's fast command lines
end, with ``gc.freeze()`` (the last collections at exit skip what the imports made); and an empty
module started with ``-m``. ``perceive --json`` cannot start faster than the frozen ``python -m``
floor line; ``perceive --json / floor`` is over that line.

The ``(platform folders)`` lines run the same two commands as most users do, without
``NERVOUS_HOME``: the folders are platformdirs', under a fresh ``HOME`` inside the temporary folder.

``--python`` times another interpreter, e.g. a virtual environment with a regular (not editable)
``pip install .``, which is what users get: an editable install adds a path finder to *every*
interpreter start of its environment (the bare ``python -c pass`` included), so the ratios of a
development checkout are lower than a regular install's. ``PYTHONDONTWRITEBYTECODE`` is dropped
from the children's environment and every command runs once before timing, so a checkout's modules
are timed from their bytecode, as an installed package's are (pip compiles it on install).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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

#: the design's fixed costs of ``perceive --json`` (see ``--floor``), one program each, cumulative
FLOOR = {
    "floor: json pathlib pluggy": "import json, pathlib, pluggy",
    "floor: + attrs": "import json, pathlib, pluggy, attrs",
    "floor: + hook call, file reads": """
import json, os, pathlib, pluggy, attrs
spec, impl = pluggy.HookspecMarker("floor"), pluggy.HookimplMarker("floor")
class Spec:
    @spec(firstresult=True)
    def answer(self, task): ...
class Plugin:
    @impl
    def answer(self, task):
        return {"ok": True, "task": task}
pm = pluggy.PluginManager("floor")
pm.add_hookspecs(Spec)
pm.register(Plugin())
home = pathlib.Path(os.environ["NERVOUS_HOME"])
user = home / "config" / "nervous.toml"
if user.is_file():
    import tomllib
    tomllib.loads(user.read_text("utf-8"))
cwd = pathlib.Path.cwd()
for folder in (cwd, *cwd.parents):
    if (folder / ".nervous.toml").is_file() or (folder / "pyproject.toml").is_file():
        break
cortex = home / "data" / "skill-cortex" / "cortex.json"
doc = json.loads(cortex.read_text("utf-8")) if cortex.is_file() else {}
print(json.dumps(pm.hook.answer(task="count the words in my report"), indent=2))
""",
}

#: the records ``perceive --json`` builds (attrs classes, as the design asks): their shapes, fields with
#: defaults last; each class compiles its generated methods when defined, whatever the code around it
RECORD_SHAPES = (("FilterResult", 2, 0, True), ("Perception", 13, 10, True), ("MatcherMemory", 4, 3, True),
                 ("LoadResult", 5, 5, False), ("Snapshot", 2, 1, True), ("ProviderContext", 4, 0, True),
                 ("Provider", 4, 1, True))


def _records_program() -> str:
    """The last floor program, which also defines classes shaped like perceive's records."""
    lines = []
    for name, fields, defaults, frozen in RECORD_SHAPES:
        lines.append(f"@attrs.{'frozen' if frozen else 'define'}\nclass {name}:")
        lines += [f"    f{i}: object" + (" = None" if i >= fields - defaults else "") for i in range(fields)]
    program = FLOOR["floor: + hook call, file reads"]
    head, _, tail = program.partition("pm = pluggy.PluginManager")
    return head + "\n".join(lines) + "\npm = pluggy.PluginManager" + tail


FLOOR["floor: + perceive's 7 record classes"] = _records_program()

LAST_FLOOR = list(FLOOR)[-1]
#: the last floor program started as the commands are (``python -m``) and ending as the launcher's fast
#: command lines end (``gc.freeze()``): what perceive is compared with
M_FLOOR = "floor: the same, frozen before exit"


#: skills ``nervous scan`` reads, each in a fresh process: what a user waits for when checking one skill
SCAN_SKILLS = {
    "one-file skill": {"SKILL.md": "---\nname: word-count\ndescription: Count the words of a text file.\n---\n"
                                   "# Word count\n\nRun `wc -w FILE` and tell the user the number.\n"},
    "three-file skill": {
        "SKILL.md": "---\nname: weather\ndescription: Current weather for a city from the Open-Meteo API.\n"
                    "metadata: {\"openclaw\": {\"requires\": {\"bins\": [\"curl\", \"jq\"]}}}\n---\n"
                    "# Weather\n\n1. Run `scripts/weather.sh CITY`.\n2. Read `references/api.md` for the fields.\n"
                    "3. Tell the user the temperature and the wind.\n",
        "scripts/weather.sh": "#!/usr/bin/env bash\nset -euo pipefail\ncity=\"${1:?city}\"\n"
                              "curl -fsS \"https://geocoding-api.open-meteo.com/v1/search?name=${city}&count=1\" "
                              "| jq -r '.results[0] | \"\\(.latitude) \\(.longitude)\"'\n",
        "references/api.md": "# Open-Meteo fields\n\n" + "".join(
            f"- `field_{i}`: a value the forecast returns, in its unit.\n" for i in range(60)),
    },
}
#: the commands ``--baseline`` also times with the other interpreter
BASELINE_COMMANDS = ("nervous --version", "nervous perceive --json", "nervous scan --json")


def timed_all(cmds: list[list[str]], env: dict[str, str], runs: int, cwd: str,
              envs: dict[int, dict[str, str]] | None = None) -> tuple[list[float], list[float]]:
    """Median wall and CPU time of each command; rounds interleave the commands (a load spike hits all).

    ``envs`` gives some commands (by index) their own environment.
    """
    wall: list[list[float]] = [[] for _ in cmds]
    cpu: list[list[float]] = [[] for _ in cmds]
    for _ in range(runs):
        for i, cmd in enumerate(cmds):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run(cmd, env=(envs or {}).get(i, env), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           check=False, cwd=cwd)
            wall[i].append(time.perf_counter() - t0)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[i].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return [statistics.median(s) for s in wall], [statistics.median(s) for s in cpu]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--python", default=sys.executable,
                    help="the interpreter to time (default: this one), e.g. a venv with a regular pip install")
    ap.add_argument("--baseline", default=None,
                    help="another interpreter whose --version, perceive --json and scans are timed in the same rounds")
    ap.add_argument("--floor", action="store_true",
                    help="also time the design's fixed costs (imports, a hook call, the file reads) in the same rounds")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as modules, \
            tempfile.TemporaryDirectory() as skills:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["NERVOUS_HOME"] = home
        py = args.python
        cmds = {
            "python -c pass": [py, "-c", "pass"],
            "nervous --version": [py, "-m", "nervous", "--version"],
            "nervous plugins --json": [py, "-m", "nervous", "plugins", "--json"],
            "nervous perceive --json": [py, "-m", "nervous", "perceive", "count the words in my report", "--json"],
        }
        for name, files in SCAN_SKILLS.items():
            folder = Path(skills, name)
            for rel, text in files.items():
                Path(folder, rel).parent.mkdir(parents=True, exist_ok=True)
                Path(folder, rel).write_text(text, encoding="utf-8")
            cmds[f"nervous scan --json ({name})"] = [py, "-m", "nervous", "scan", str(folder), "--json"]
        # as most users run: no NERVOUS_HOME, the folders platformdirs gives under a (fresh) home folder
        for name in ("nervous --version", "nervous perceive --json"):
            cmds[f"{name} (platform folders)"] = cmds[name]
        if args.baseline:
            for name in [n for n in cmds if n.startswith(BASELINE_COMMANDS)]:
                cmds[f"baseline: {name}"] = [args.baseline, *cmds[name][1:]]
        floor_env = {**env, "PYTHONPATH": modules}  # the -m floor modules live outside the home
        if args.floor:
            cmds.update({name: [py, "-c", code] for name, code in FLOOR.items()})
            Path(modules, "nervous_floor.py").write_text(FLOOR[LAST_FLOOR], encoding="utf-8")
            Path(modules, "nervous_floor_frozen.py").write_text(FLOOR[LAST_FLOOR] + "import gc\ngc.freeze()\n",
                                                                encoding="utf-8")
            Path(modules, "nervous_floor_empty.py").write_text("", encoding="utf-8")
            cmds["floor: the same, as python -m"] = [py, "-m", "nervous_floor"]
            cmds[M_FLOOR] = [py, "-m", "nervous_floor_frozen"]
            cmds["python -m (an empty module)"] = [py, "-m", "nervous_floor_empty"]
        user_env = {k: v for k, v in env.items() if k != "NERVOUS_HOME" and not k.startswith("XDG_")}
        user_env["HOME"] = str(Path(home, "user"))
        envs = {i: floor_env for i, c in enumerate(cmds.values()) if c[1] == "-m" and c[2].startswith("nervous_floor")}
        envs.update({i: user_env for i, name in enumerate(cmds) if name.endswith("(platform folders)")})
        clawhub = shutil.which("clawhub")
        if clawhub:
            cmds["clawhub list"] = [clawhub, "list", "--workdir", home]
        for i, cmd in enumerate(cmds.values()):  # warm caches: bytecode, the entry-point cache
            subprocess.run(cmd, env=envs.get(i, env), capture_output=True, check=False, cwd=home)
        wall, cpu = timed_all(list(cmds.values()), env, args.runs, home, envs)
        loaded = subprocess.run([py, "-c", PROBE], env=env, capture_output=True, text=True, check=True).stdout.split()
        created = sorted(str(p.relative_to(home)) for p in Path(home).rglob("*")
                         if p.relative_to(home).parts[0] != "user")
    heavy = sorted(HEAVY & set(loaded))
    names = list(cmds)
    print(f"interpreter: {py}")
    print(f"{'command':52} {'median ms':>10} {'ratio':>7} {'CPU ms':>8} {'CPU ratio':>10}")
    for i, name in enumerate(names):
        print(f"{name:52} {wall[i] * 1000:10.1f} {wall[i] / wall[0]:7.2f}x {cpu[i] * 1000:8.1f} "
              f"{cpu[i] / cpu[0]:9.2f}x")
    times, cpus = dict(zip(names, wall, strict=True)), dict(zip(names, cpu, strict=True))
    if "clawhub list" in times:
        print(f"perceive / clawhub list: {times['nervous perceive --json'] / times['clawhub list']:.2f} "
              f"(CPU {cpus['nervous perceive --json'] / cpus['clawhub list']:.2f})")
    for name in [n for n in names if not n.startswith("baseline: ") and f"baseline: {n}" in times]:
        print(f"{name} / baseline: {times[name] / times['baseline: ' + name]:.2f} "
              f"(CPU {cpus[name] / cpus['baseline: ' + name]:.2f})")
    if args.floor:
        print(f"perceive --json / floor: {times['nervous perceive --json'] / times[M_FLOOR]:.2f} "
              f"(CPU {cpus['nervous perceive --json'] / cpus[M_FLOOR]:.2f})")
    print(f"heavy modules loaded with every plugin: {', '.join(heavy) or 'none'}")
    print(f"files the commands created in the fresh NERVOUS_HOME: {', '.join(created) or 'none'}")
    print(json.dumps({"runs": args.runs, "python": py, "baseline": args.baseline, "floor": args.floor,
                      "ms": {n: round(t * 1000, 1) for n, t in times.items()},
                      "ratio": {n: round(t / wall[0], 2) for n, t in times.items()},
                      "cpu_ms": {n: round(t * 1000, 1) for n, t in cpus.items()},
                      "cpu_ratio": {n: round(t / cpu[0], 2) for n, t in cpus.items()}, "heavy": heavy}))


if __name__ == "__main__":
    main()
