"""Crash consistency and concurrency with real processes (§9).

A child ``nervous evolve`` process is killed with SIGKILL at every step of a publish (and of a
rollback) through ``NERVOUS_EVOLVER_FAULT``; the next operation must find either the old or the new
state, never a mix, and recover through the journal.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nervous.engines.evolver import Evolver, EvolverError

from .conftest import create, make_draft, tree

pytestmark = pytest.mark.slow
T1 = "2026-03-05T09:00:00Z"


def prepare(ev: Evolver, scenario: str) -> list[str]:
    """Workspace state before the operation under test, and the CLI arguments of that operation."""
    first = create(ev)
    ev.publish_candidate(first["candidate_id"], user_confirmed=True)
    patch = create(ev, change="patch_skill", draft=make_draft(steps=("Open the newest log.", "Group errors.")))
    ev.approve(patch["candidate_id"], user_confirmed=True)
    if scenario == "publish":
        return ["publish", patch["candidate_id"], "--yes"]
    ev.publish_candidate(patch["candidate_id"], user_confirmed=True)
    return ["rollback", "log-summary", "--yes"]


def child(ws: Path, args: list[str], fault: str | None) -> subprocess.CompletedProcess[str]:
    env = {"NERVOUS_NOW": T1}
    if fault is not None:
        env["NERVOUS_EVOLVER_FAULT"] = fault
    # a real process: the fault kills it with SIGKILL
    return subprocess.run([sys.executable, "-m", "nervous", "--disable-plugin-autoload", "evolve", *args, "--json",
                           "-w", str(ws)], capture_output=True, text=True, env={**os.environ, **env}, timeout=60)


@pytest.mark.parametrize("scenario", ["publish", "rollback"])
def test_crash_at_every_commit_step_recovers_all_or_nothing(evolver: Evolver, nervous_pm, workspace: Path,
                                                            tmp_path: Path, scenario: str,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    args = prepare(evolver, scenario)
    pristine = tmp_path / "pristine"
    shutil.copytree(workspace, pristine, symlinks=True)
    old = tree(pristine)

    reference = tmp_path / "reference"
    shutil.copytree(pristine, reference, symlinks=True)
    done = child(reference, args, None)
    assert done.returncode == 0, done.stderr
    new = tree(reference)
    assert new != old

    monkeypatch.setenv("NERVOUS_NOW", T1)
    points = ["staged", "ops", "committed"] + [f"applied-{i}" for i in range(40)] + ["cleaned"]
    seen_mixed = False
    checked = 0
    past_last = False
    for point in points:
        if past_last and point.startswith("applied-"):
            continue
        ws = tmp_path / f"crash-{point}"
        shutil.copytree(pristine, ws, symlinks=True)
        proc = child(ws, args, point)
        if proc.returncode == 0:
            assert point.startswith("applied-")  # past the last operation: the process finished normally
            assert tree(ws) == new
            past_last = True
            continue
        assert proc.returncode == -signal.SIGKILL, (point, proc.returncode, proc.stderr)
        checked += 1
        journals = list((ws / ".skill-evolver/journal").iterdir())
        committed = point not in ("staged", "ops")
        if point == "cleaned":
            assert journals == [] and tree(ws) == new
        else:
            assert len(journals) == 1 and (journals[0] / "COMMITTED").exists() == committed
            raw = tree(ws)
            seen_mixed = seen_mixed or (raw != old and raw != new)
        # the next operation (here a read) recovers through the journal before looking at anything
        listed = Evolver(nervous_pm, ws).list_candidates(["pending_review", "approved", "published", "rolled_back"])
        assert list((ws / ".skill-evolver/journal").iterdir()) == []
        assert tree(ws) == (new if committed else old), point
        if point != "cleaned":
            assert any("interrupted transaction" in w for w in listed["warnings"])
            recovered = [e for e in Evolver(nervous_pm, ws).audit_events() if e["event_type"] == "journal_recovered"]
            assert recovered[-1]["recovery_action"] == ("re-applied" if committed else "discarded")
        # and the workspace keeps working
        Evolver(nervous_pm, ws).rollback_skill("log-summary", user_confirmed=True)
    assert checked >= 8 and seen_mixed  # the kills really landed between file changes


def test_recovery_by_a_separate_process(evolver: Evolver, workspace: Path) -> None:
    args = prepare(evolver, "publish")
    proc = child(workspace, args, "applied-1")
    assert proc.returncode == -signal.SIGKILL
    out = child(workspace, ["list"], None)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert any("re-applied" in w for w in data["warnings"])
    assert "managed-version: 2" in (workspace / "skills/learned-log-summary/SKILL.md").read_text()


def test_concurrent_processes_serialise(workspace: Path, tmp_path: Path) -> None:
    # the evolver waits [storage] lock_timeout for the workspace lock: generous, so that four processes
    # queueing on a loaded machine serialise instead of timing out (the wait itself is tested below)
    (workspace / ".nervous.toml").write_text("[storage]\nlock_timeout = 60.0\n")
    drafts = []
    for i in range(4):
        path = tmp_path / f"d{i}.md"
        path.write_text(make_draft(f"learned-flow-{i}"))
        drafts.append(path)
    procs = [subprocess.Popen([sys.executable, "-m", "nervous", "--disable-plugin-autoload", "evolve", "create",
                               "--target", f"flow {i}", "--risk", "low", "--summary", "Ran it twice.",
                               "--signal-type", "repeated_request", "--draft", str(d), "--json", "-w", str(workspace)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=workspace)
             for i, d in enumerate(drafts)]
    outs = [p.communicate(timeout=240) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1] for o in outs]
    registry = json.loads((workspace / ".skill-evolver/registry.json").read_text())
    assert sorted(r["target_skill"] for r in registry["records"]) == [f"learned-flow-{i}" for i in range(4)]
    assert len(list((workspace / ".skill-evolver/candidates").glob("*.json"))) == 4


def test_busy_lock_then_stale_takeover(evolver: Evolver, nervous_pm, workspace: Path) -> None:
    create(evolver)
    lock = workspace / ".skill-evolver/.lock"
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys,time; from nervous.kernel.durable import FileLock; l=FileLock(sys.argv[1]); l.acquire(); "
        "print('held', flush=True); time.sleep(60)"), str(lock)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        busy = Evolver(nervous_pm, workspace, lock_timeout=0.3)
        started = time.monotonic()
        with pytest.raises(EvolverError) as err:
            busy.set_mode("assisted", user_confirmed=True)
        assert err.value.code == "STATE_BUSY" and time.monotonic() - started < 5
        assert busy.get_mode()["autonomy_mode"] == "manual"
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()
    Evolver(nervous_pm, workspace, lock_timeout=3).set_mode("assisted", user_confirmed=True)
    assert evolver.get_mode()["autonomy_mode"] == "assisted"
