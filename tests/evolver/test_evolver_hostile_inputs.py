"""Hostile workspace files and text through the real CLI: a FIFO where a skill file is expected is
refused (exit 2, ``UNSAFE_PATH``) without blocking; stored escape sequences are shown escaped."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nervous.testing.files import filled_file

from .conftest import make_draft, run_cli

BASE = ["--disable-plugin-autoload", "evolve"]
NERVOUS = [str(Path(sys.executable).with_name("nervous")), "--disable-plugin-autoload", "evolve"]


def _create(workspace: Path, tmp_path: Path, target: str = "x", draft: str | None = None,
            summary: str = "Summarised the logs twice.", basis: str | None = None) -> str:
    path = tmp_path / "draft.md"
    path.write_text(draft if draft is not None else make_draft(name=f"learned-{target}"), encoding="utf-8")
    args = ["create", "--target", target, "--risk", "low", "--summary", summary, "--signal-type", "repeated_request",
            "--draft", str(path), "--json", "-w", str(workspace)]
    if basis is not None:
        args += ["--dedupe-basis", basis]
    made = run_cli(BASE + args)
    assert made.returncode == 0, made.stdout + made.stderr
    cid: str = json.loads(made.stdout)["candidate_id"]
    return cid


def _proc(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*NERVOUS, *args], capture_output=True, text=True, timeout=60)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_where_a_skill_file_is_expected_is_refused_not_read(workspace: Path, tmp_path: Path) -> None:
    cid = _create(workspace, tmp_path)
    (workspace / "skills" / "learned-x").mkdir(parents=True)
    os.mkfifo(workspace / "skills" / "learned-x" / "SKILL.md")
    draft = tmp_path / "draft.md"
    for args in (["publish", cid, "--yes"], ["dedupe", "--target", "x", "--draft", str(draft)],
                 ["rollback", "x", "--yes"]):
        proc = _proc(*args, "-w", str(workspace), "--json")
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert json.loads(proc.stdout)["error"]["code"] == "UNSAFE_PATH"
    assert stat_is_fifo(workspace / "skills" / "learned-x" / "SKILL.md")


def stat_is_fifo(path: Path) -> bool:
    import stat

    return stat.S_ISFIFO(os.lstat(path).st_mode)


def test_stored_escape_sequences_are_shown_escaped(workspace: Path, tmp_path: Path) -> None:
    draft = make_draft(name="learned-y", description="Summarise logs \x1b]0;pwned\x07 quickly.")
    cid = _create(workspace, tmp_path, "y", draft=draft, summary="sum \x1b[31mRED", basis="\x1b[H")
    shown = run_cli(BASE + ["show", cid, "-w", str(workspace)])
    listed = run_cli(BASE + ["list", "-w", str(workspace)])
    for out in (shown, listed):
        assert out.returncode == 0, out.stderr
        assert "\x1b" not in out.stdout and "\x07" not in out.stdout, out.stdout
    assert "\\x1b]0;pwned\\x07" in shown.stdout and "sum \\x1b[31mRED" in shown.stdout
    assert "\\x1b[H" in listed.stdout
    raw = json.loads(run_cli(BASE + ["show", cid, "-w", str(workspace), "--json"]).stdout)
    assert "\x1b]0;pwned\x07" in raw["draft"], "the JSON keeps the stored text exactly"


def test_evolve_tool_answers_deep_json_with_one_result_object() -> None:
    proc = run_cli(BASE + ["tool"], input="[" * 100_000 + "]" * 100_000)
    assert proc.returncode == 2
    out = json.loads(proc.stdout)
    assert out["ok"] is False and "nested too deeply" in out["message"]


def test_evolve_tool_stdin_is_bounded(tmp_path: Path) -> None:
    # 64 MiB on standard input, streamed from a file to a child process (the test process never holds it)
    source = filled_file(tmp_path / "huge.json", '{"operation": "list_candidates", "x": "', "a", 64, '"}')
    with source.open("rb") as stdin:
        proc = subprocess.run([*NERVOUS, "tool"], stdin=stdin, capture_output=True, text=True, timeout=120,
                              cwd=tmp_path)
    assert proc.returncode == 2
    out = json.loads(proc.stdout)
    assert out["ok"] is False and out["error_code"] == "DRAFT_TOO_LARGE" and "larger than" in out["message"]


def test_an_invalid_utf8_draft_is_a_usage_error_not_too_large(workspace: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.md"
    bad.write_bytes(b"\xff\xfe not utf-8")
    proc = run_cli(BASE + ["create", "--target", "z", "--risk", "low", "--summary", "s", "--signal-type", "r",
                           "--draft", str(bad), "-w", str(workspace)])
    assert proc.returncode == 2 and "not valid UTF-8" in proc.stderr
    assert "DRAFT_TOO_LARGE" not in proc.stdout + proc.stderr


@pytest.mark.parametrize("change", [{"status": ["x"]}, {"target_skill": None}, {"risk_level": 5}, {}],
                         ids=["status", "target", "risk", "duplicate"])
def test_wrong_shaped_registry_records_are_quarantined_with_a_warning(workspace: Path, tmp_path: Path,
                                                                       change: dict[str, object]) -> None:
    cid = _create(workspace, tmp_path)
    path = workspace / ".skill-evolver" / "registry.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    bad = {**doc["records"][0], **change}
    if change:
        bad["candidate_id"] = "candidate-20260101-000000-bad"
    doc["records"].append(bad)
    path.write_text(json.dumps(doc), encoding="utf-8")
    listed = run_cli(BASE + ["list", "-w", str(workspace), "--json"])
    assert listed.returncode == 0, listed.stderr
    out = json.loads(listed.stdout)
    assert [c["candidate_id"] for c in out["candidates"]] == [cid]
    assert any("quarantined" in w for w in out["warnings"]), out["warnings"]
    assert list(path.parent.glob("registry.json.corrupt-*")), "a copy is kept"
    # a write keeps the record aside verbatim; later loads still warn
    assert run_cli(BASE + ["reject", cid, "-w", str(workspace), "--json"]).returncode == 0
    stored = json.loads(path.read_text(encoding="utf-8"))
    assert [q["record"] for q in stored["quarantined_records"]] == [bad]
    again = json.loads(run_cli(BASE + ["list", "--status", "rejected", "-w", str(workspace), "--json"]).stdout)
    assert any("quarantined" in w for w in again["warnings"])
