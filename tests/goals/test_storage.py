"""Goals on the real storage backends: durability, isolation, recovery, and concurrent processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from nervous.engines.goals import GoalError, Goals, Scope
from nervous.kernel.manager import PluginManager

BACKENDS = ("file", "sqlite")


def _manager(nervous_config: Any, backend: str) -> PluginManager:
    nervous_config.storage.backend = backend
    pm = PluginManager(nervous_config, autoload=False)
    if backend not in pm.providers("storage backend"):
        pytest.skip(f"storage backend {backend!r} is not available in this build")
    return pm


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_goals_survive_a_restart(nervous_config: Any, backend: str, fixed_clock: list[float]) -> None:
    pm = _manager(nervous_config, backend)
    first = Goals(pm, scope=Scope("demo", "main"))
    gid = first.analyze("Survive restarts", success_criteria=["resumes"]).goal.id
    first.plan(gid, subtasks=["a", {"title": "b", "dependencies": ["a"]}])
    first.link(gid, links=[{"plan_id": "plan-001", "axon_task_id": "task-1"}])
    before = first.get(gid).to_json()
    pm.close()
    pm2 = _manager(nervous_config, backend)
    resumed = Goals(pm2, scope=Scope("demo", "main")).get("current")
    assert resumed.to_json() == before
    assert resumed.next == "do the work; then verify against the success criteria"
    pm2.close()


def test_failed_mutation_writes_nothing(nervous_config: Any, backend: str, fixed_clock: list[float]) -> None:
    pm = _manager(nervous_config, backend)
    goals = Goals(pm, scope=Scope("demo", "main"))
    goals.analyze("x")
    before = goals.store.read("goals", "demo/main").value
    with pytest.raises(GoalError):
        goals.complete()
    with pytest.raises(GoalError):
        goals.plan(subtasks=[{"title": "ok"}, {"title": ""}])
    assert goals.store.read("goals", "demo/main").value == before
    pm.close()


def test_scopes_are_separate_documents(nervous_config: Any, backend: str, fixed_clock: list[float]) -> None:
    pm = _manager(nervous_config, backend)
    a = Goals(pm, scope=Scope("demo", "main"))
    b = Goals(pm, scope=Scope("demo", "feature-x"))
    a.analyze("on main")
    b.analyze("on the branch")
    assert [g.prompt for g in a.list().goals] == ["on main"]
    assert [g.prompt for g in b.list().goals] == ["on the branch"]
    assert sorted(pm.storage().keys("goals")) == ["demo/feature-x", "demo/main"]
    pm.close()


def test_corrupt_file_is_quarantined_once_and_warned(nervous_config: Any, fixed_clock: list[float]) -> None:
    pm = _manager(nervous_config, "file")
    goals = Goals(pm, scope=Scope("demo", "main"))
    goals.analyze("first")
    goals.analyze("second")  # leaves a .bak holding "first" only
    path = pm.storage().document_path("goals", "demo/main")
    path.write_text('{"version": 1, "goals": {', encoding="utf-8")
    for _ in range(3):
        result = goals.summary()
        assert any("corrupt" in w and "quarantined" in w for w in result.warnings)
        assert any("restored from backup" in w for w in result.warnings)
    assert len(list(path.parent.glob(path.name + ".corrupt-*"))) == 1
    assert [g.prompt for g in goals.list().goals] == ["first"]
    rebuilt = goals.analyze("third")
    assert any("corrupt" in w for w in rebuilt.warnings)
    assert [g.prompt for g in goals.list().goals] == ["first", "third"]
    assert json.loads(path.read_text(encoding="utf-8"))["goals"]["goal-002"]["prompt"] == "third"
    pm.close()


def test_goals_path_override(nervous_pm: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                             fixed_clock: list[float]) -> None:
    target = tmp_path / "shared" / "goals.json"
    monkeypatch.setenv("NERVOUS_CONTEXT", "main")
    monkeypatch.setenv("NERVOUS_GOALS_PATH", str(target))
    goals = Goals(nervous_pm)
    goals.analyze("kept in an explicit file")
    goals.analyze("second save")
    data = json.loads(target.read_text(encoding="utf-8"))
    assert [g["prompt"] for g in data["goals"].values()] == ["kept in an explicit file", "second save"]
    assert target.with_name("goals.json.bak").exists()
    assert not list(target.parent.glob("*.tmp.*")) and not target.with_name("goals.json.lock").exists()
    assert oct(target.stat().st_mode & 0o777) == "0o600"
    monkeypatch.setenv("NERVOUS_GOALS_PATH", "relative/goals.json")
    with pytest.raises(GoalError) as err:
        Goals(nervous_pm)
    assert err.value.code == "config_error" and "NERVOUS_GOALS_PATH" in err.value.message


WORKER = textwrap.dedent("""
    import json, sys
    from nervous.kernel.config import load_config
    from nervous.kernel.manager import PluginManager
    from nervous.engines.goals import Goals

    tag, count = sys.argv[1], int(sys.argv[2])
    goals = Goals(PluginManager(load_config(), autoload=False))
    done = []
    for i in range(count):
        gid = goals.analyze(f"{tag} goal {i}", success_criteria=["done"]).goal.id
        goals.plan(gid, subtasks=["step one", {"title": "step two", "dependencies": ["step one"]}])
        goals.link(gid, links=[{"plan_id": "plan-001", "axon_task_id": f"{tag}-task-{i}"}])
        goals.verify(gid, checks=[{"criterion": "done", "passed": True}], all_axon_complete=True)
        goals.complete(gid)
        goals.drain(force=True)
        done.append(gid)
    print(json.dumps(done))
""")


@pytest.mark.slow
def test_four_processes_lose_nothing(nervous_home: Path, nervous_config: Any, backend: str) -> None:
    _manager(nervous_config, backend).close()
    env = {**os.environ, "NERVOUS_HOME": str(nervous_home), "NERVOUS_PROJECT": "race", "NERVOUS_CONTEXT": "main",
           "NERVOUS_STORAGE_BACKEND": backend, "NERVOUS_DISABLE_PLUGIN_AUTOLOAD": "1"}
    env.pop("NERVOUS_NOW", None)
    per_process = 5
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, f"p{n}", str(per_process)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for n in range(4)]
    claimed: list[str] = []
    for proc in procs:
        out, err = proc.communicate(timeout=90)
        assert proc.returncode == 0, err
        claimed += json.loads(out)
    assert len(claimed) == len(set(claimed)) == 4 * per_process
    pm = _manager(nervous_config, backend)
    goals = Goals(pm, scope=Scope("race", "main")).list().goals
    assert sorted(g.id for g in goals) == sorted(claimed)
    assert {g.prompt for g in goals} == {f"p{n} goal {i}" for n in range(4) for i in range(per_process)}
    assert all(g.status == "completed" and g.plan.subtasks[0].axon_task_id for g in goals)
    doc = pm.storage().read("goals", "race/main").value
    assert len(doc["drain_runs"]) == 4 * per_process
    pm.close()


def test_a_refused_action_still_reports_what_was_noticed(goals: Any, store: Any) -> None:
    """Nothing is written when an action is refused, but a repaired document is still reported."""
    from nervous.engines.goals.engine import COLLECTION
    from nervous.errors import NervousError

    goals.analyze("Write the report")
    store.update(COLLECTION, goals.key, lambda d: d.update(current_goal_id="goal-999"))
    before = store.read(COLLECTION, goals.key).value
    with pytest.raises(NervousError) as info:
        goals.complete("goal-404")
    assert info.value.code == "not_found"
    assert any("current_goal_id 'goal-999' names no goal" in w for w in info.value.warnings)
    assert store.read(COLLECTION, goals.key).value == before
