"""Hostile storage and oversized input through the real CLI: a FIFO or a folder where the goal
document is expected is refused (exit 2, ``bad_path``) without ever being opened for reading."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from nervous.testing.files import filled_file

#: a real process: a regression (a blocking read) must fail the test, not hang it
NERVOUS = [str(Path(sys.executable).with_name("nervous"))]


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NERVOUS_")}
    env.update(NERVOUS_HOME=str(home), NERVOUS_PROJECT="demo", NERVOUS_CONTEXT="main",
               NERVOUS_DISABLE_PLUGIN_AUTOLOAD="1", NO_COLOR="1", **extra)
    return env


def goal(tmp_path: Path, *args: str, input: str | None = None, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*NERVOUS, "goal", *args], env=_env(tmp_path / "home", **extra), cwd=tmp_path,
                          capture_output=True, text=True, timeout=60, input=input)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_named_by_nervous_goals_path_is_refused_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "goals.fifo"
    os.mkfifo(fifo)
    for args in (["list"], ["analyze", "Write the report"], ["list", "--json"]):
        proc = goal(tmp_path, *args, NERVOUS_GOALS_PATH=str(fifo))
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert "not a regular file" in proc.stdout + proc.stderr
    data = json.loads(goal(tmp_path, "list", "--json", NERVOUS_GOALS_PATH=str(fifo)).stdout)
    assert data["error"]["code"] == "bad_path"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_at_the_stored_goal_document_is_refused_not_read(tmp_path: Path) -> None:
    where = tmp_path / "home" / "data" / "goals" / "demo"
    where.mkdir(parents=True)
    os.mkfifo(where / "main.json")
    for args in (["list"], ["analyze", "Write the report"], ["quarantine", "list"]):
        proc = goal(tmp_path, *args)
        assert proc.returncode == 2, proc.stdout + proc.stderr
    assert json.loads(goal(tmp_path, "list", "--json").stdout)["error"]["code"] == "bad_path"


def test_a_folder_named_by_nervous_goals_path_is_a_bad_path(tmp_path: Path) -> None:
    proc = goal(tmp_path, "list", "--json", NERVOUS_GOALS_PATH=str(tmp_path))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert json.loads(proc.stdout)["error"]["code"] == "bad_path"


def _cli(tmp_path: Path, *args: str, input: str | None = None, **extra: str):  # type: ignore[no-untyped-def]
    from nervous.testing.cli import run_cli

    return run_cli("goal", *args, input=input, environ=_env(tmp_path / "home", **extra), cwd=tmp_path)


def test_a_wrong_typed_goals_field_is_quarantined_and_its_ids_never_reused(tmp_path: Path) -> None:
    assert _cli(tmp_path, "analyze", "Write the report").returncode == 0
    assert _cli(tmp_path, "analyze", "Send it").returncode == 0
    path = tmp_path / "home" / "data" / "goals" / "demo" / "main.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["goals"] = list(doc["goals"].values())
    path.write_text(json.dumps(doc), encoding="utf-8")
    first = _cli(tmp_path, "list")
    assert first.returncode == 0 and "expected an object, got a JSON list" in first.stderr, first.stderr
    assert list(path.parent.glob("main.json.corrupt-*")), "a copy of the document is kept"
    made = json.loads(_cli(tmp_path, "analyze", "Third", "--json").stdout)
    assert made["goal"]["id"] == "goal-003", "ids of the set-aside goals are never reused"
    for _ in range(2):  # still said on every load after the write, until a person repairs it
        again = _cli(tmp_path, "list")
        assert "goal-001 is quarantined" in again.stderr and "goal-002 is quarantined" in again.stderr
    listed = _cli(tmp_path, "quarantine", "list")
    assert "goal-001" in listed.stdout and "goal-002" in listed.stdout
    assert _cli(tmp_path, "quarantine", "repair", "goal-001").returncode == 0
    assert "goal-001" in _cli(tmp_path, "list").stdout


DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("args, stdin", [(["call", "-"], DEEP), (["call", "[]"], None), (["call", "not json"], None)],
                         ids=["deep", "list", "garbage"])
def test_goal_call_answers_bad_input_with_one_result_object(tmp_path: Path, args: list[str], stdin: str | None) -> None:
    proc = _cli(tmp_path, *args, input=stdin)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    out = json.loads(proc.stdout)
    assert out["ok"] is False and out["code"] == "invalid_arg" and "--args" not in out["message"], out


def test_goal_text_is_bounded_when_written(tmp_path: Path) -> None:
    long = _cli(tmp_path, "analyze", "x" * 30_000, "--json")
    assert long.returncode == 2 and json.loads(long.stdout)["error"]["code"] == "too_large"
    many = json.dumps({"constraints": [f"{i} " + "c" * 15_000 for i in range(100)]})
    big = _cli(tmp_path, "analyze", "Write", "--args", "-", "--json", input=many)
    assert big.returncode == 2 and json.loads(big.stdout)["error"]["code"] == "too_large", big.stdout
    # 17 MiB on standard input, streamed from a file to a child process (the test process never holds it)
    source = filled_file(tmp_path / "huge.json", '{"a": "', "x", 17, '"}')
    with source.open("rb") as stdin:
        huge = subprocess.run([*NERVOUS, "goal", "analyze", "Write", "--args", "-", "--json"], stdin=stdin,
                              capture_output=True, text=True, env=_env(tmp_path / "home"), cwd=tmp_path, timeout=120)
    assert huge.returncode == 2 and json.loads(huge.stdout)["error"]["code"] == "too_large"
    assert not (tmp_path / "home" / "data" / "goals" / "demo" / "main.json").exists(), "nothing was written"


@pytest.mark.parametrize("given", [["--max-attempts", "0"], ["--max-attempts", "-1"], ["--args", '{"max_attempts": 0}']])
def test_an_out_of_range_attempt_limit_is_refused_not_clamped(tmp_path: Path, given: list[str]) -> None:
    assert _cli(tmp_path, "analyze", "Write the report").returncode == 0
    proc = _cli(tmp_path, "record-failure", "--reason", "r", "--evidence", "e", *given)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    shown = json.loads(_cli(tmp_path, "get", "--json").stdout)
    assert shown["goal"].get("failure") is None


def test_a_file_where_the_goals_folder_belongs_is_a_bad_path_and_left_alone(tmp_path: Path) -> None:
    """``<data>/goals`` replaced by a regular file: every goal command ends with exit 2 ``bad_path`` naming that
    file (never a traceback or exit 70), nothing deletes or overwrites it, and ``storage check`` lists it."""
    assert _cli(tmp_path, "analyze", "Write the report").returncode == 0
    data = tmp_path / "home" / "data"
    shutil.rmtree(data / "goals")
    (data / "goals").write_bytes(b"a person's notes\n")
    exported = tmp_path / "exported.json"
    exported.write_text('{"goals": {}}')
    for args in (["list"], ["list", "--json"], ["analyze", "Write the report"], ["get", "current"],
                 ["set-config", "drain=manual"], ["reset", "--yes"], ["import", "--replace", str(exported)],
                 ["quarantine", "list"], ["export"], ["call", '{"action": "analyze", "prompt": "Write it"}']):
        proc = _cli(tmp_path, *args)
        out = proc.stdout + proc.stderr
        assert proc.returncode == 2 and "Traceback" not in out, (args, out)
        assert f"{data / 'goals'} is a regular file where a folder is expected" in out, (args, out)
    err = json.loads(_cli(tmp_path, "list", "--json").stdout)["error"]
    assert err["code"] == "bad_path" and err["details"]["path"] == str(data / "goals")
    assert (data / "goals").read_bytes() == b"a person's notes\n"  # never deleted or overwritten
    from nervous.testing.cli import run_cli

    check = run_cli("storage", "check", "--json", environ=_env(tmp_path / "home"), cwd=tmp_path)
    assert check.exit_code == 1 and [p["where"] for p in json.loads(check.stdout)["problems"]] == [str(data / "goals")]
