"""The console script's fast command lines answer exactly as the click application does.

``nervous --version`` and ``nervous perceive TASK --json`` are answered by
:mod:`nervous.frontends.launch` without importing click; every command line here is run both ways —
through the launcher (``python -m nervous``, the installed ``nervous`` script, ``main()`` in-process)
and through the click application (``cli()``) — and must give the same bytes on standard output and
standard error and the same exit code.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from nervous.frontends.launch import main
from nervous.testing.cli import write_distribution

CLICK = [sys.executable, "-c", "import sys; from nervous.frontends.cli import cli; sys.exit(cli())"]
LAUNCHER = [sys.executable, "-m", "nervous"]
SCRIPT = Path(sys.executable).parent / "nervous"

#: command lines the launcher answers itself, and neighbours it must hand to click
ARGVS = [
    ["--version"],
    ["perceive", "count the words in my report", "--json"],
    ["perceive", "--json", "count the words in my report"],
    ["perceive", "count the words in my report"],  # human output: click's
    ["perceive", "", "--json"],  # an empty task: the engine's usage error, as JSON
    ["perceive", "--json"],  # no task: click's usage error
    ["perceive", "-x", "--json"],  # an unknown option
    ["perceive", "--json", "--json"],
    ["perceive", "a", "b", "--json"],
    ["perceive", "--help"],
    ["--help"],
    ["--version", "--help"],
    ["perceive", "x" * 100_001, "--json"],  # longer than an argument may be
]


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NERVOUS_")}
    env.pop("_NERVOUS_COMPLETE", None)
    env.update({"NERVOUS_HOME": str(home), "PYTHONIOENCODING": "utf-8"}, **extra)
    return env


def _both(cmd: list[str], argv: list[str], env: dict[str, str], cwd: Path) -> None:
    fast = subprocess.run([*cmd, *argv], capture_output=True, env=env, cwd=cwd, timeout=120)
    slow = subprocess.run([*CLICK, *argv], capture_output=True, env=env, cwd=cwd, timeout=120)
    shown = " ".join(a if len(a) < 40 else a[:20] + "..." for a in argv)
    assert (fast.returncode, fast.stdout, fast.stderr) == (slow.returncode, slow.stdout, slow.stderr), shown
    assert slow.stdout or slow.stderr, shown  # every case says something


@pytest.fixture
def learned(nervous_home: Path) -> Path:
    """A home whose cortex has a region, so ``perceive`` can hit (with candidates) as well as miss."""
    from nervous.testing.cli import run_cli

    for outcome in ("success", "success", "api_error"):
        res = run_cli("report", "word-counter", "--region", "text-stats", "--outcome", outcome,
                      "--task", "count the words in my report", "--json")
        assert res.exit_code == 0, res.stdout + res.stderr
    return nervous_home


@pytest.mark.parametrize("argv", ARGVS, ids=lambda a: " ".join(x[:12] for x in a))
def test_python_m_nervous_answers_as_click(learned: Path, argv: list[str]) -> None:
    _both(LAUNCHER, argv, _env(learned), learned)


def test_a_miss_and_a_fresh_home_answer_as_click(nervous_home: Path) -> None:
    env = _env(nervous_home)
    for argv in (["perceive", "count the words in my report", "--json"], ["--version"]):
        _both(LAUNCHER, argv, env, nervous_home)
    assert not list(nervous_home.rglob("*"))  # neither wrote anything


@pytest.mark.skipif(not SCRIPT.exists(), reason="the nervous console script is not installed next to python")
@pytest.mark.parametrize("argv", [["--version"], ["perceive", "count the words in my report", "--json"],
                                  ["perceive", "", "--json"], ["--help"]], ids=lambda a: " ".join(a))
def test_the_installed_console_script_answers_as_click(learned: Path, argv: list[str]) -> None:
    _both([str(SCRIPT)], argv, _env(learned), learned)


@pytest.mark.parametrize("setting", ["env", "config", "broken-config", "unknown-matcher", "sqlite", "autoload-off",
                                     "ascii", "completion"])
def test_settings_that_change_the_answer(learned: Path, setting: str) -> None:
    env = _env(learned)
    if setting == "env":
        env["NERVOUS_DISABLE_PLUGINS"] = "github,Review_Policy"
    elif setting == "config":
        (learned / "config").mkdir(exist_ok=True)
        (learned / "config" / "nervous.toml").write_text('[plugins]\ndisable = ["sqlite", "postgres"]\n',
                                                         encoding="utf-8")
    elif setting == "broken-config":
        (learned / ".nervous.toml").write_text("[plugins\n", encoding="utf-8")
    elif setting == "unknown-matcher":
        env["NERVOUS_MATCHER"] = "nope"
    elif setting == "sqlite":
        env["NERVOUS_STORAGE_BACKEND"] = "sqlite"
    elif setting == "autoload-off":
        env["NERVOUS_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    elif setting == "ascii":
        env["PYTHONIOENCODING"] = "ascii"
    else:
        env["_NERVOUS_COMPLETE"] = "bash_complete"
        env["COMP_WORDS"], env["COMP_CWORD"] = "nervous perc", "1"
    for argv in (["--version"], ["perceive", "count the words in my report", "--json"]):
        _both(LAUNCHER, argv, env, learned)


def test_third_party_plugins_are_loaded_for_the_version(nervous_home: Path, tmp_path: Path) -> None:
    """An entry-point plugin (one that loads, one that fails) is the full command's; blocked, it is not."""
    site = tmp_path / "site"
    write_distribution(site, "nervous-extra", {"nervous_extra": "from nervous import hookimpl\n"},
                       {"extra": "nervous_extra"})
    write_distribution(site, "nervous-broken", {"nervous_broken": "raise RuntimeError('no')\n"},
                       {"broken": "nervous_broken"})
    env = _env(nervous_home, PYTHONPATH=str(site))
    for extra in ({}, {"NERVOUS_DISABLE_PLUGINS": "extra,nervous-broken"}):
        for argv in (["--version"], ["perceive", "count the words in my report", "--json"]):
            _both(LAUNCHER, argv, {**env, **extra}, nervous_home)
    out = subprocess.run([*LAUNCHER, "--version"], capture_output=True, text=True, env=env, timeout=120).stdout
    assert "extra" in out.splitlines()[1]


def _imported(argv: list[str], env: dict[str, str], cwd: Path) -> set[str]:
    """Every module ``python -m nervous ARGV`` imports (``-X importtime`` lists each one)."""
    proc = subprocess.run([sys.executable, "-X", "importtime", *LAUNCHER[1:], *argv], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return {line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}


def test_version_imports_neither_click_nor_pluggy_nor_attrs(learned: Path) -> None:
    loaded = _imported(["--version"], _env(learned), learned)
    assert "nervous.kernel.config" in loaded  # the probe sees nervous's own imports
    tops = {m.split(".")[0] for m in loaded}
    assert not tops & {"click", "pluggy", "attr", "attrs", "cattrs", "platformdirs", "inspect"}, tops


def test_perceive_json_imports_no_click_but_runs_hooks_through_pluggy(learned: Path) -> None:
    loaded = _imported(["perceive", "count the words in my report", "--json"], _env(learned), learned)
    tops = {m.split(".")[0] for m in loaded}
    assert "click" not in tops
    assert {"pluggy", "nervous_plugins"} <= tops  # the matcher and the store came through the plugin manager


def _in_process(fn: object, argv: list[str]) -> tuple[int, str, str]:
    out, err = _Utf8(), _Utf8()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = fn(list(argv))  # type: ignore[operator]
    return int(code or 0), out.getvalue(), err.getvalue()


class _Utf8(io.TextIOWrapper):
    def __init__(self) -> None:
        super().__init__(io.BytesIO(), encoding="utf-8", write_through=True)

    def isatty(self) -> bool:
        return False

    def getvalue(self) -> str:
        return str(self.buffer.getvalue().decode("utf-8"))  # type: ignore[attr-defined]


@pytest.mark.parametrize("argv", [["--version"], ["perceive", "count the words in my report", "--json"],
                                  ["perceive", "--json", "Count WORDS!"], ["perceive", " ", "--json"],
                                  ["perceive", "count words"], ["perceive", "--json"], ["--help"],
                                  ["perceive", "--help"]],
                         ids=lambda a: " ".join(a))
def test_in_process_main_answers_as_click(learned: Path, argv: list[str]) -> None:
    from nervous.frontends.cli import cli

    assert _in_process(main, argv) == _in_process(cli, argv)


def test_the_console_script_entry_point_is_the_launcher() -> None:
    import tomllib

    pyproject = Path(__file__).parents[2] / "pyproject.toml"
    scripts = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["scripts"]
    assert scripts["nervous"] == "nervous.frontends.launch:main"
    if SCRIPT.exists() and shutil.which("nervous") == str(SCRIPT):
        assert "nervous.frontends.launch" in SCRIPT.read_text(encoding="utf-8")


FREEZE_PROBE = """
import gc, sys
from nervous.frontends.launch import main
sys.argv = ["nervous", *sys.argv[1:]]
code = main()
sys.stderr.write(f"frozen={gc.get_freeze_count() > 0}\\n")
sys.exit(code)
"""


@pytest.mark.parametrize("argv", [["--version"], ["perceive", "count the words in my report", "--json"]],
                         ids=lambda a: a[0])
def test_a_fast_command_run_as_the_program_leaves_its_objects_to_exit(learned: Path, argv: list[str]) -> None:
    """As the program, the fast command lines freeze the collector's objects once they have answered."""
    proc = subprocess.run([sys.executable, "-c", FREEZE_PROBE, *argv], capture_output=True, text=True,
                          env=_env(learned), cwd=learned, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip()
    assert proc.stderr.splitlines()[-1] == "frozen=True"


def test_main_called_in_process_never_freezes_the_callers_objects(learned: Path) -> None:
    """A host that calls ``main(argv)`` goes on running: its garbage must stay collectable."""
    import gc

    before = gc.get_freeze_count()
    code, out, _err = _in_process(main, ["perceive", "count the words in my report", "--json"])
    assert code == 0 and '"ok": true' in out
    assert gc.get_freeze_count() == before


@pytest.mark.parametrize("args", [["list", "--json"], ["list"], ["perceive", "count words", "--json"], ["--version"],
                                  ["list", "--bogus"]])
def test_a_closed_standard_output_or_error_is_written_to_nothing(tmp_path: Path, args: list[str]) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NERVOUS_")}
    env["NERVOUS_HOME"] = str(tmp_path / "home")
    for closed in ("stdout", "stderr"):
        kw = {"stdout": subprocess.DEVNULL, "stderr": subprocess.PIPE} if closed == "stdout" else \
             {"stdout": subprocess.PIPE, "stderr": subprocess.DEVNULL}
        # the child starts with the descriptor closed (a shell's ">&-"), as Python then sees it: None
        code = "import os, sys; os.close({fd}); os.execv(sys.executable, [sys.executable, '-m', 'nervous', *sys.argv[1:]])"
        proc = subprocess.run([sys.executable, "-c", code.format(fd=1 if closed == "stdout" else 2), *args], env=env,
                              cwd=tmp_path, timeout=60, **kw)  # type: ignore[call-overload]
        other = (proc.stderr if closed == "stdout" else proc.stdout) or b""
        assert proc.returncode == (2 if "--bogus" in args else 0), (closed, other)
        assert b"Traceback" not in other, other


def test_a_token_given_in_the_wrong_place_is_masked_in_the_usage_error(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NERVOUS_")}
    env["NERVOUS_HOME"] = str(tmp_path / "home")
    for extra in ([], ["--json"]):
        proc = subprocess.run([sys.executable, "-m", "nervous", "registry", "token", "revoke", "clh_SECRETvalue42abc",
                               *extra], env=env, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2
        assert "SECRETvalue42abc" not in proc.stdout + proc.stderr and "clh_SECR****" in proc.stdout + proc.stderr
