"""Smaller things users see: escaped terminal output, pruning reported, import warnings, no double counts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .clirun import run


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def _doc(home: Path) -> Path:
    return home / "data" / "skill-cortex" / "cortex.json"


def test_cortex_show_escapes_control_sequences(home: Path) -> None:
    assert run(home, "report", "demo", "--region", "pdf", "--outcome", "success").code == 0
    doc = json.loads(_doc(home).read_text())
    cand = doc["cortex"]["motor"]["pdf"]["candidates"][0]
    cand["slug"], cand["version"] = "evil\x1b[31mRED\x1b]0;title\x07", "1\u202e2"
    doc["cortex"]["motor"]["x\x1b[5m"] = doc["cortex"]["motor"]["pdf"]
    _doc(home).write_text(json.dumps(doc))
    res = run(home, "cortex", "show")
    assert res.code == 0
    assert "\x1b" not in res.stdout and "\x07" not in res.stdout and "\u202e" not in res.stdout
    assert "\\x1b" in res.stdout and "\\u202e" in res.stdout
    data = run(home, "cortex", "show", "--json").envelope()  # JSON keeps the stored value
    assert any(c["slug"].startswith("evil\x1b") for c in data["regions"]["pdf"]["candidates"])


def test_inspect_escapes_a_registrys_control_sequences(home: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    skill = work / "catalog" / "fm-esc"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text('---\nname: "esc\\e[31mRED\\e]0;title\\a"\n'
                                    'description: "desc \\e[2J clear \\u202e rtl"\nversion: "1\\e[5m"\n---\nbody\n')
    (work / ".nervous.toml").write_text('[plugins.local]\npaths = ["catalog"]\n')
    res = run(home, "inspect", "local:fm-esc", cwd=work)
    assert res.code == 0, res.stdout + res.stderr
    assert "\x1b" not in res.stdout and "\x07" not in res.stdout and "\u202e" not in res.stdout
    assert "\\x1b]0;title" in res.stdout and "\\u202e" in res.stdout


def test_report_json_returns_what_its_transaction_pruned(home: Path) -> None:
    old = run(home, "report", "old", "--region", "alpha", "--outcome", "runtime_error",
              NERVOUS_NOW="2026-01-01T00:00:00Z")
    assert old.code == 0
    res = run(home, "report", "new", "--region", "beta", "--outcome", "success", "--json",
              NERVOUS_NOW="2026-12-01T00:00:00Z")
    pruned = res.envelope()["candidate"]["pruned"]
    assert any("alpha/old" in p for p in pruned) and "region alpha (no candidates)" in pruned, pruned


def test_api_outcome_carries_pruned(tmp_path: Path) -> None:
    from nervous import Nervous
    from nervous.kernel.clock import parse_timestamp

    nv = Nervous(home=tmp_path / "home", autoload=False)
    nv.cortex.record_outcome("alpha", "old", "runtime_error", now=parse_timestamp("2026-01-01T00:00:00Z"))
    result = nv.cortex.record_outcome("beta", "new", "success", now=parse_timestamp("2026-12-01T00:00:00Z"))
    assert "region alpha (no candidates)" in result.pruned


_V1 = {
    "version": 1,
    "cortex": {
        "sensory": {"patterns": [{"region": "pdf", "signal": ["pdf"]}]},
        "motor": {"pdf": {"last_used": "not-a-date", "candidates": [
            {"slug": "pdf-tool", "source": "clawhub", "version": "1.0.0", "weight": 7,
             "runs": {"success": 3, "fail": -2, "recent_successes_7d": 1},
             "last_fail": {"type": "cosmic_ray", "date": "yesterday"}, "side_effects": [], "skill_md_chars": 10,
             "reflex": False},
            {"source": "clawhub"}]}},
        "prefrontal": {"lessons": [{"type": "free_form", "text": "x"},
                                   {"type": "env_ready", "region": "pdf", "key": "X", "confidence": 3,
                                    "created": "2026-13-45"}]},
    },
    "blacklist": [],
    "stats": {"searches": 5, "installs": 2, "cache_hits": 1, "reflexes_fired": 0},
}


def test_cortex_import_json_returns_warnings_and_never_double_counts(home: Path, tmp_path: Path) -> None:
    path = tmp_path / "cortex.json"
    path.write_text(json.dumps(_V1))
    assert run(home, "report", "other", "--region", "mail", "--outcome", "success").code == 0
    first = run(home, "cortex", "import", str(path), "--json").envelope()
    text = "\n".join(first["warnings"])
    for needle in ("weight: 7 is outside [0, 1]", "runs.fail: -2 is negative", "no string slug",
                   "unknown type 'free_form'", "'cosmic_ray' is not a known failure type", "'not-a-date' is not a date",
                   "last_fail.date: 'yesterday'", "confidence: 3 is outside", "created: '2026-13-45'"):
        assert needle in text, (needle, first["warnings"])
    stats = run(home, "cortex", "stats", "--json").envelope()["stats"]
    second = run(home, "cortex", "import", str(path), "--json").envelope()
    assert any("imported before" in w for w in second["warnings"]), second["warnings"]
    assert run(home, "cortex", "stats", "--json").envelope()["stats"] == stats


def test_import_into_an_empty_memory_is_still_a_lossless_copy_and_counts_once(home: Path, tmp_path: Path) -> None:
    path = tmp_path / "cortex.json"
    clean = json.loads(json.dumps(_V1))
    clean["cortex"]["motor"]["pdf"] = {"last_used": "2026-11-01", "candidates": []}
    clean["cortex"]["prefrontal"]["lessons"] = []
    path.write_text(json.dumps(clean))
    assert run(home, "cortex", "import", str(path), "--json").envelope()["mode"] == "copied"
    assert json.loads(_doc(home).read_text()) == clean
    again = run(home, "cortex", "import", str(path), "--json").envelope()
    assert any("imported before" in w for w in again["warnings"])
    assert run(home, "cortex", "stats", "--json").envelope()["stats"]["searches"] == 5


def test_import_of_a_wrong_shaped_document_is_refused(home: Path, tmp_path: Path) -> None:
    path = tmp_path / "cortex.json"
    path.write_text(json.dumps({"version": 1, "cortex": {"motor": []}}))
    res = run(home, "cortex", "import", str(path), "--json")
    assert res.code == 2 and "wrong shape" in res.envelope()["error"]["message"]


def test_a_vanished_remembered_skill_makes_acquire_search(home: Path, tmp_path: Path) -> None:
    work = tmp_path / "work"
    (work / "catalog" / "demo").mkdir(parents=True)
    (work / "catalog" / "demo" / "SKILL.md").write_text(
        "---\nname: demo\ndescription: Demo skill that formats text.\nversion: 1.0.0\n---\n# demo\n")
    (work / ".nervous.toml").write_text('[plugins.local]\npaths = ["catalog"]\n')
    for _ in range(3):  # learned, then gone from disk and registry
        assert run(home, "report", "ghost", "--region", "text", "--source", "local", "--outcome", "success",
                   "--task", "format text", cwd=work).code == 0
    res = run(home, "acquire", "format text please", "--json", cwd=work)
    data = res.envelope()
    assert data["state"] == "awaiting_approval", data
    assert [c["name"] for c in data["candidates"]] == ["demo"]
    assert any("no longer found" in w and "ghost" in w for w in data["warnings"])


def test_error_messages_escape_what_they_quote(home: Path, tmp_path: Path) -> None:
    target = tmp_path / "missing\x1b]0;title\x07" / "x.json"
    assert run(home, "report", "demo", "--region", "pdf", "--outcome", "success").code == 0
    res = run(home, "cortex", "export", str(target))
    assert res.code == 2
    assert "\x07" not in res.stderr and "\\x1b]0;title\\x07" in res.stderr
