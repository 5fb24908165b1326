"""What a person reads from ``nervous evolve``: whole candidate ids at any width, the status, target
and risk of one candidate, honest wording for closed candidates, and a corrupt registry as an error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import make_draft, run_cli

BASE = ["--disable-plugin-autoload", "evolve"]


@pytest.fixture
def candidate(workspace: Path, tmp_path: Path) -> str:
    draft = tmp_path / "draft.md"
    draft.write_text(make_draft(), encoding="utf-8")
    made = run_cli(BASE + ["create", "--target", "log summary", "--risk", "low", "--summary",
                           "Summarised the logs twice, the same way, with a long explanation of why.",
                           "--signal-type", "repeated_request", "--draft", str(draft), "--json", "-w", str(workspace)])
    assert made.returncode == 0, made.stderr
    cid: str = json.loads(made.stdout)["candidate_id"]
    return cid


@pytest.mark.parametrize("columns", ["", "40", "80", "200"])
def test_the_whole_id_is_printed_piped_and_at_any_width(workspace: Path, candidate: str, columns: str) -> None:
    env = {"COLUMNS": columns} if columns else {}
    for args in (["list"], ["run", "review skill candidates"]):
        out = run_cli(BASE + [*args, "-w", str(workspace)], env=env)
        assert out.returncode == 0, out.stderr
        assert candidate in out.stdout, out.stdout
        if columns == "200":
            assert "…" not in out.stdout


def test_show_says_status_target_and_risk(workspace: Path, candidate: str) -> None:
    out = run_cli(BASE + ["show", candidate, "-w", str(workspace)])
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    for expected in (f"candidate: {candidate}", "status: pending_review", "target: learned-log-summary",
                     "change: create_skill", "risk: low", "signal: repeated_request"):
        assert expected in lines


def test_closed_candidates_are_not_called_waiting(workspace: Path, candidate: str) -> None:
    rejected = run_cli(BASE + ["reject", candidate, "-w", str(workspace), "--json"])
    assert rejected.returncode == 0, rejected.stdout + rejected.stderr
    out = run_cli(BASE + ["list", "--status", "rejected", "-w", str(workspace)])
    assert "1 candidate(s) rejected." in out.stdout and "waiting" not in out.stdout
    none = run_cli(BASE + ["list", "--status", "merged", "-w", str(workspace)])
    assert "No candidates are merged." in none.stdout
    pending = run_cli(BASE + ["list", "-w", str(workspace)])
    assert "No candidates are waiting for review." in pending.stdout


def test_a_corrupt_registry_is_an_error_not_an_empty_list(workspace: Path, candidate: str) -> None:
    state = workspace / ".skill-evolver"
    for name in ("registry.json", "registry.json.bak"):
        if (state / name).exists():
            (state / name).write_text("{ not json", encoding="utf-8")
    out = run_cli(BASE + ["list", "-w", str(workspace), "--json"])
    assert out.returncode == 1
    err = json.loads(out.stdout)["error"]
    assert err["code"] == "STATE_CORRUPT" and "evolve repair" in err["message"]
    human = run_cli(BASE + ["list", "-w", str(workspace)])
    assert human.returncode == 1 and "No candidates" not in human.stdout


def test_free_form_signal_types_and_a_bare_prefix(workspace: Path, tmp_path: Path) -> None:
    draft = tmp_path / "draft.md"
    draft.write_text(make_draft(), encoding="utf-8")
    made = run_cli(BASE + ["create", "--target", "log summary", "--risk", "low", "--summary", "Paired on it.",
                           "--signal-type", "pairing_session", "--draft", str(draft), "--json", "-w", str(workspace)])
    assert made.returncode == 0, made.stdout + made.stderr
    bare = run_cli(BASE + ["create", "--target", "learned-", "--risk", "low", "--summary", "x",
                           "--signal-type", "repeated_request", "--draft", str(draft), "--json", "-w", str(workspace)])
    assert bare.returncode == 2
    err = json.loads(bare.stdout)["error"]
    assert err["code"] == "INVALID_NAME" and "learned-learned" not in err["message"]
