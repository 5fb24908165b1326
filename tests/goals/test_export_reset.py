"""``goal export``, ``goal reset`` and ``goal archives`` through the real CLI: nothing is lost."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture
def run(nervous_home: Path, nervous_cli: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("NERVOUS_PROJECT", "demo")
    monkeypatch.setenv("NERVOUS_CONTEXT", "main")
    monkeypatch.setenv("NERVOUS_NOW", "2026-06-17T09:00:00Z")
    monkeypatch.setenv("NERVOUS_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.chdir(nervous_home)

    def invoke(*argv: str, code: int = 0) -> Any:
        res = nervous_cli("goal", *argv)
        assert res.exit_code == code, (res.stdout, res.stderr)
        return (res.json if "--json" in argv else res.stdout), res.stderr

    return invoke


def test_export_round_trips_through_import(run: Any, tmp_path: Path) -> None:
    run("analyze", "Build a todo API", "-s", "CRUD passes")
    run("plan", "--subtask", "Scaffold")
    target = tmp_path / "goals.json"
    _out, err = run("export", "-o", str(target))
    assert f"wrote {target}" in err
    doc = json.loads(target.read_text(encoding="utf-8"))
    assert doc["goals"]["goal-001"]["status"] == "planned"
    _out, err = run("export", "-o", str(target), code=2)  # file_exists (docs/cli.md)
    assert "--force" in err and json.loads(target.read_text(encoding="utf-8")) == doc
    run("reset", "--yes")
    run("import", str(target))
    again, _ = run("export")
    assert json.loads(again)["goals"] == doc["goals"]


def test_reset_archives_everything_and_keeps_settings(run: Any) -> None:
    run("set-config", "drain=always")
    run("analyze", "First")
    run("analyze", "Second")
    before, _ = run("export")
    _out, err = run("reset", code=2)
    assert "--yes" in err
    assert len(run("list", "--json")[0]["goals"]) == 2, "nothing reset without --yes"
    res, _ = run("reset", "--yes", "--json")
    assert res["archived"] == {"goals": 2, "drain_runs": 0, "quarantined": 0}
    archive_id = res["archive_id"]
    assert run("list", "--json")[0]["goals"] == []
    assert run("get-config", "--json")[0]["config"]["drain_mode"] == "always"
    listed, _ = run("archives", "--json")
    assert listed["archives"] == [{"archive_id": archive_id, "goals": 2}]
    archived, _ = run("export", "--archive", archive_id)
    assert json.loads(archived) == json.loads(before)
    new, _ = run("analyze", "Third", "--json")
    assert new["goal"]["id"] == "goal-003"
    _out, err = run("export", "--archive", "nope", code=1)
    assert "no archive 'nope'" in err


def test_reset_of_an_empty_scope_archives_nothing(run: Any) -> None:
    res, _ = run("reset", "--yes", "--json")
    assert res["archive_id"] is None and run("archives", "--json")[0]["archives"] == []
