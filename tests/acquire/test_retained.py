"""After ``done --keep`` the next acquisition of the same kind of task uses the kept skill: no
search, no new install; a kept folder that is gone is forgotten and the loop searches again."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from acquire_helpers import TASK

from nervous.testing.clawhub_server import ClawHubStandin


def _tokens(state: dict[str, Any]) -> dict[str, str]:
    return {c["name"]: c["token"] for c in state["candidates"] if c.get("token")}


def _keep(acq: Any, task: str, slug: str) -> None:
    for _ in range(2):
        state = acq.start(task).to_json()
        acq.approve(_tokens(state)[slug])
        if acq.done(slug, "success").to_json()["state"] == "retention":
            acq.done(slug, keep=False)
    acq.pm.config.cortex.retention_min_weight = 0.6
    state = acq.start(task).to_json()
    acq.approve(_tokens(state)[slug])
    assert acq.done(slug, "success").to_json()["state"] == "retention"
    assert acq.done(slug, keep=True).to_json()["state"] == "retained"


def test_the_kept_skill_is_used_without_searching(acq: Any, standin: ClawHubStandin, workdir: Path) -> None:
    _keep(acq, TASK, "word-count")
    standin.requests.clear()
    again = acq.start(TASK).to_json()
    assert again["state"] == "retained" and again["next"] == []
    kept = again["retained"]
    assert kept["name"] == "word-count" and kept["path"] == str(workdir / "skills" / "word-count")
    assert "nothing was searched or installed" in again["message"]
    assert standin.requests == [], "the registry is not asked"
    assert acq.pm.install_target().installed() == [], "still the user's, not reinstalled"
    similar = acq.start("please count the words in this report").to_json()
    assert similar["state"] == "retained" and similar["retained"]["name"] == "word-count"
    other = acq.start("convert a png image to jpeg").to_json()
    assert other["state"] != "retained"


def test_a_kept_folder_that_is_gone_is_forgotten(acq: Any, standin: ClawHubStandin, workdir: Path) -> None:
    _keep(acq, TASK, "word-count")
    shutil.rmtree(workdir / "skills" / "word-count")
    again = acq.start(TASK).to_json()
    assert again["state"] == "awaiting_approval"
    assert "word-count" in _tokens(again)
    assert Path(workdir / "skills" / "word-count").exists() is False
