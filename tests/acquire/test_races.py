"""Concurrent answers to one acquisition (real processes): each step is claimed once, the store agrees.

``done`` and ``cancel`` claim the session in one storage transaction before learning or uninstalling,
so of eight concurrent ``done`` calls exactly one learns, and a ``cancel`` racing an ``approve``
either wins (the install is undone) or is refused, never reporting a state the store does not hold.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from acquire_helpers import TASK

from nervous.testing.clawhub_server import ClawHubStandin
from nervous.testing.cli import run_cli

#: ``python -c SLOW_CLI ARGS...``: the CLI, with every install taking ``NERVOUS_TEST_INSTALL_DELAY`` s longer
SLOW_CLI = """
import os, sys, time
from nervous.engines.install.installer import Installer
from nervous.frontends.launch import main

delay = float(os.environ.get("NERVOUS_TEST_INSTALL_DELAY", "0"))
real = Installer.install

def slow(self, *args, **kwargs):
    time.sleep(delay)
    return real(self, *args, **kwargs)

Installer.install = slow
sys.exit(main(sys.argv[1:]))
"""


@pytest.fixture
def env(nervous_home: Path, standin: ClawHubStandin) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if not k.startswith(("NERVOUS_", "CLAWHUB_"))}
    out.update(NERVOUS_HOME=str(nervous_home), CLAWHUB_REGISTRY=standin.url, NERVOUS_REGISTRIES="clawhub",
               NERVOUS_DISABLE_PLUGIN_AUTOLOAD="1", NERVOUS_NOW="2026-06-17T09:00:00Z")
    return out


def agent(env: dict[str, str], cwd: Path, *args: str) -> dict[str, Any]:
    proc = run_cli(*args, "--json", environ=env, cwd=cwd)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


def spawn(env: dict[str, str], cwd: Path, *args: str, install_delay: float | None = None) -> subprocess.Popen[str]:
    if install_delay is None:
        cmd = [sys.executable, "-m", "nervous", *args, "--json"]
    else:
        cmd = [sys.executable, "-c", SLOW_CLI, *args, "--json"]
        env = {**env, "NERVOUS_TEST_INSTALL_DELAY": str(install_delay)}
    return subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def answer(proc: subprocess.Popen[str]) -> tuple[int, dict[str, Any]]:
    out, err = proc.communicate(timeout=60)
    assert proc.returncode in (0, 1), f"rc {proc.returncode}: {out}{err}"  # never 70 (internal error)
    data: dict[str, Any] = json.loads(out)
    return proc.returncode, data


def stored(env: dict[str, str], session: str) -> dict[str, Any]:
    from nervous.kernel.config import load_config
    from nervous.kernel.manager import PluginManager

    pm = PluginManager(load_config(), autoload=False)
    try:
        doc: dict[str, Any] = pm.storage().read("acquisitions", session).value or {}
        return doc
    finally:
        pm.close()


def successes(env: dict[str, str]) -> dict[str, int]:
    from nervous.engines.cortex import Cortex
    from nervous.kernel.config import load_config
    from nervous.kernel.manager import PluginManager

    pm = PluginManager(load_config(), autoload=False)
    try:
        shown = Cortex(pm).show()
        return {c["slug"]: c["successes"] + c["failures"] for r in shown["regions"].values()
                for c in r["candidates"]}
    finally:
        pm.close()


@pytest.mark.parametrize("backend", ["file", "sqlite"])
def test_eight_concurrent_done_learn_once(env: dict[str, str], workdir: Path, backend: str,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    env["NERVOUS_STORAGE_BACKEND"] = backend
    monkeypatch.setenv("NERVOUS_STORAGE_BACKEND", backend)
    state = agent(env, workdir, "acquire", TASK)
    session = state["session"]
    assert agent(env, workdir, "approve", state["candidates"][0]["token"])["state"] == "installed"
    procs = [spawn(env, workdir, "done", "word-count", "--outcome", "success") for _ in range(8)]
    answers = [answer(p) for p in procs]
    won = [data for rc, data in answers if rc == 0]
    lost = [data for rc, data in answers if rc != 0]
    assert len(won) == 1, answers
    assert won[0]["state"] in ("done", "retention") and won[0]["learned"]["successes"] == 1
    assert len(lost) == 7 and {d["error"]["code"] for d in lost} <= {"invalid_transition", "not_found"}, lost
    assert stored(env, session)["state"] == won[0]["state"]
    assert successes(env) == {"word-count": 1}, "exactly one outcome was learned"


@pytest.mark.parametrize("install_delay", [None, 1.5])
def test_a_cancel_racing_an_approve_agrees_with_the_store(env: dict[str, str], workdir: Path,
                                                          install_delay: float | None) -> None:
    """Without a delay either may come first; with a slow install the cancel waits for it, then undoes it."""
    state = agent(env, workdir, "acquire", TASK)
    session, token = state["session"], state["candidates"][0]["token"]
    approving = spawn(env, workdir, "approve", token, install_delay=install_delay)
    if install_delay:
        deadline = time.monotonic() + 20
        while stored(env, session).get("state") != "installing":
            assert time.monotonic() < deadline and approving.poll() is None, "approve never started installing"
            time.sleep(0.05)
    else:
        time.sleep(0.15)
    cancelling = spawn(env, workdir, "cancel", token)
    (approve_rc, approved), (cancel_rc, cancelled) = answer(approving), answer(cancelling)
    final = stored(env, session)["state"]
    folder = workdir / "skills" / "word-count" / "SKILL.md"
    if cancel_rc == 0:
        assert cancelled["state"] == "cancelled" and final == "cancelled"
        assert not folder.exists(), "a cancel that won leaves nothing installed"
        assert approve_rc == 1 or approved["state"] == "installed", approved
    else:
        assert cancelled["error"]["code"] == "invalid_transition", cancelled
        assert approve_rc == 0 and approved["state"] == final == "installed" and folder.exists()
    if install_delay:
        assert (approve_rc, cancel_rc, final) == (0, 0, "cancelled"), "the cancel waited for the install"
    assert successes(env) == {}, "a cancel learns nothing"
