"""Two agents acquiring at once on one store (real processes) lose nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from acquire_helpers import NOTES_TASK, TASK

from nervous.testing.clawhub_server import ClawHubStandin

AGENT = """
import sys
from nervous.engines.acquire import Acquirer
from nervous.kernel.config import load_config
from nervous.kernel.manager import PluginManager

task, slug, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
pm = PluginManager(load_config(), autoload=False)
acq = Acquirer(pm)
for _ in range(rounds):
    state = acq.start(task).to_json()
    token = next(c["token"] for c in state["candidates"] if c["name"] == slug)
    assert acq.approve(token).state == "installed"
    result = acq.done(slug, "success", session=state["session"])
    if result.state == "retention":
        acq.done(slug, keep=False, session=state["session"])
pm.close()
"""


@pytest.mark.parametrize("backend", ["file", "sqlite"])
def test_two_agents_at_once_lose_nothing(nervous_home: Path, standin: ClawHubStandin, tmp_path: Path,
                                         backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from nervous.engines.cortex import Cortex
    from nervous.kernel.config import load_config
    from nervous.kernel.manager import PluginManager

    env = {k: v for k, v in os.environ.items() if not k.startswith(("NERVOUS_", "CLAWHUB_"))}
    env.update(NERVOUS_HOME=str(nervous_home), CLAWHUB_REGISTRY=standin.url, NERVOUS_REGISTRIES="clawhub",
               NERVOUS_DISABLE_PLUGIN_AUTOLOAD="1", NERVOUS_STORAGE_BACKEND=backend)
    rounds = 3
    procs = []
    for name, task, slug in (("a", TASK, "word-count"), ("b", NOTES_TASK, "note-taker")):
        project = tmp_path / name
        project.mkdir()
        procs.append(subprocess.Popen([sys.executable, "-c", AGENT, task, slug, str(rounds)], env=env, cwd=project,
                                      stderr=subprocess.PIPE, text=True))
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err

    monkeypatch.setenv("NERVOUS_STORAGE_BACKEND", backend)
    pm = PluginManager(load_config(), autoload=False)
    shown = Cortex(pm).show()
    runs = {c["slug"]: c["successes"] for r in shown["regions"].values() for c in r["candidates"]}
    assert runs == {"word-count": rounds, "note-taker": rounds}
    assert shown["stats"]["installs"] == 2 * rounds
    sessions = [pm.storage().read("acquisitions", k).value for k in pm.storage().keys("acquisitions")]
    assert len(sessions) == 2 * rounds and {s["state"] for s in sessions} == {"done"}
    pm.close()
    for name in ("a", "b"):
        assert not any((tmp_path / name / "skills").glob("*/SKILL.md")), "every cached skill was removed"
