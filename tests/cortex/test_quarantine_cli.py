"""``nervous cortex quarantine list/clear`` (skill-cortex spec §3.2) through real processes."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

from nervous.testing.cli import run_cli

from .test_cli import run
from .v1_fixture import V1


def test_malformed_entries_are_listed_then_cleared_only_when_confirmed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    doc = copy.deepcopy(V1)
    doc["cortex"]["motor"]["task-management"]["candidates"].append({"weight": 0.5, "note": "\x1b[31mred"})
    doc["cortex"]["motor"]["broken-region"] = ["not", "an", "object"]
    src = tmp_path / "cortex.json"
    src.write_text(json.dumps(doc), encoding="utf-8")
    run(home, "cortex", "import", str(src))

    listed = run(home, "cortex", "quarantine", "list")["quarantine"]
    assert sorted(e["path"] for e in listed) == ["cortex.motor.broken-region",
                                                  "cortex.motor.task-management.candidates[2]"]
    stored_now = {e["path"]: e["pending"] for e in listed}
    run(home, "report", "todoist-cli", "--region", "task-management", "--outcome", "success")
    after = run(home, "cortex", "quarantine", "list")["quarantine"]
    assert sorted(e["path"] for e in after) == sorted(stored_now)
    assert not any(e["pending"] for e in after), "the next change set them aside"
    assert {e["reason"] for e in after} == {"region is not an object", "candidate without a string slug"}

    env = {**os.environ, "NERVOUS_HOME": str(home), "NERVOUS_DISABLE_PLUGIN_AUTOLOAD": "1", "COLUMNS": "200"}
    human = run_cli("cortex", "quarantine", "list", environ=env)
    assert "region is not an" in human.stdout and "\x1b" not in human.stdout

    refused = run(home, "cortex", "quarantine", "clear", check=False)
    assert refused["_rc"] == 2 and "--yes" in refused["error"]["message"]
    assert len(run(home, "cortex", "quarantine", "list")["quarantine"]) == 2
    assert run(home, "cortex", "quarantine", "clear", "--yes")["cleared"] == 2
    assert run(home, "cortex", "quarantine", "list")["quarantine"] == []
    shown = run(home, "cortex", "show")
    assert "todoist-cli" in json.dumps(shown), "clearing the quarantine leaves the memory alone"
