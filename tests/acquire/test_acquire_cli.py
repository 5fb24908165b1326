"""Both front ends as processes: people (tables, prompts, no waiting without a terminal) and agents (JSON)."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from acquire_helpers import TASK

from nervous.testing.clawhub_server import ClawHubStandin
from nervous.testing.cli import CliResult, run_cli

#: a real process only where a terminal (pty) is needed
NERVOUS = [sys.executable, "-m", "nervous"]
TOKEN = re.compile(r"nervous approve (\S+)")


@pytest.fixture
def env(nervous_home: Path, standin: ClawHubStandin) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if not k.startswith(("NERVOUS_", "CLAWHUB_"))}
    out.update(NERVOUS_HOME=str(nervous_home), CLAWHUB_REGISTRY=standin.url, NERVOUS_REGISTRIES="clawhub",
               NERVOUS_DISABLE_PLUGIN_AUTOLOAD="1", NERVOUS_NOW="2026-06-17T09:00:00Z")
    out.pop("NO_COLOR", None)
    return out


def run(env: dict[str, str], cwd: Path, *args: str) -> CliResult:
    return run_cli(*args, environ=env, cwd=cwd)


def agent(env: dict[str, str], cwd: Path, *args: str, rc: int = 0) -> dict[str, Any]:
    proc = run(env, cwd, *args, "--json")
    assert proc.returncode == rc, proc.stdout + proc.stderr
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


def test_without_a_terminal_nothing_waits_and_the_approve_commands_are_printed(env: dict[str, str],
                                                                              workdir: Path) -> None:
    started = time.monotonic()
    proc = run(env, workdir, "acquire", TASK)
    assert proc.returncode == 0, proc.stderr
    assert time.monotonic() - started < 30
    out = proc.stdout
    assert "Traceback" not in out + proc.stderr and "\x1b[" not in out, "no colours without a terminal"
    assert out.startswith("Perception: miss — searched clawhub for \"count words report\"")
    assert all(len(line) <= 80 for line in out.splitlines() if not line.startswith("  nervous ")), out
    assert "word-count" in out and "5.4k" in out and "clean" in out
    tokens = TOKEN.findall(out)
    assert len(tokens) == 2, "one command per approvable candidate (the malicious one has none)"
    assert not (workdir / "skills").exists()
    installed = run(env, workdir, "approve", tokens[0])
    assert installed.returncode == 0 and "Plan: word-count v1.0.0" in installed.stdout
    assert "(installed in skills/word-count)" in installed.stdout
    assert "nervous done word-count --outcome" in installed.stdout
    done = run(env, workdir, "done", "word-count", "--outcome", "success")
    assert done.returncode == 0 and "weight 0.575 (1 success, 0 failures)" in done.stdout


def test_the_agent_json_session(env: dict[str, str], workdir: Path) -> None:
    state = agent(env, workdir, "acquire", TASK)
    assert state["ok"] and state["schema"] == "nervous.acquire.v1" and state["next"] == ["approve", "cancel"]
    token = state["candidates"][0]["token"]
    installed = agent(env, workdir, "approve", token)
    assert installed["state"] == "installed" and installed["next"] == ["done", "cancel"]
    reused = agent(env, workdir, "approve", token, rc=1)
    assert reused == {"ok": False, "error": reused["error"], "warnings": []}
    assert reused["error"]["code"] == "invalid_token"
    done = agent(env, workdir, "done", "word-count", "--outcome", "runtime_error", "--detail", "crashed")
    assert done["state"] == "awaiting_approval" and done["learned"]["weight"] == pytest.approx(0.3)
    cancelled = agent(env, workdir, "cancel", done["candidates"][1]["token"])
    assert cancelled["state"] == "cancelled"
    bad = agent(env, workdir, "done", "word-count", "--outcome", "exploded", rc=2)
    assert bad["ok"] is False
    nothing = agent(env, workdir, "done", "word-count", "--outcome", "success", rc=1)
    assert nothing["error"]["code"] == "not_found"


def test_the_terminal_session_with_prompts(env: dict[str, str], workdir: Path) -> None:
    """A real pseudo-terminal: choose candidate 1, confirm the plan, report success."""
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.chdir(workdir)
        os.execvpe(sys.executable, [*NERVOUS, "acquire", TASK], {**env, "COLUMNS": "80", "TERM": "xterm"})
    transcript = ""

    def until(pattern: str) -> None:
        nonlocal transcript
        deadline = time.monotonic() + 60
        while re.search(pattern, transcript) is None:
            assert time.monotonic() < deadline, transcript
            ready, _, _ = select.select([fd], [], [], 1)
            if ready:
                try:
                    transcript += os.read(fd, 4096).decode(errors="replace")
                except OSError:
                    break

    until(r"Install which candidate\?")
    os.write(fd, b"1\n")
    until(r"Use this skill as planned\?")
    os.write(fd, b"y\n")
    until(r"How did it go\?")
    os.write(fd, b"s\n")
    until(r"learned from the success")
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    assert os.waitstatus_to_exitcode(status) == 0, transcript
    assert "Plan: word-count v1.0.0" in transcript and "Traceback" not in transcript
    assert "weight 0.575" in transcript


def test_a_clock_set_back_does_not_stretch_a_token(env: dict[str, str], workdir: Path) -> None:
    token = agent(env, workdir, "acquire", TASK)["candidates"][0]["token"]
    earlier = agent({**env, "NERVOUS_NOW": "2025-06-17T09:00:00Z"}, workdir, "approve", token, rc=1)
    assert earlier["error"]["code"] == "token_expired" and "clock went back" in earlier["error"]["message"]
    assert not (workdir / "skills").exists()
    assert agent(env, workdir, "approve", token)["state"] == "installed"
