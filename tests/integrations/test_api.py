"""``nervous.Nervous``: configuration forms, typed records, explicit installs and clear errors."""

from __future__ import annotations

import io
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

import nervous
from nervous.engines.acquire import AcquireState
from nervous.engines.cortex.results import Perception
from nervous.engines.scan.engine import ScanReport
from nervous.engines.search import SearchResult
from nervous.errors import BadInput, NervousError, UsageError
from nervous.frontends.api import Nervous
from nervous.kernel.config import Config

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / "examples" / "nervous.toml"


@pytest.fixture
def nv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, nervous_home: Path) -> Any:
    monkeypatch.chdir(tmp_path)
    with Nervous(CONFIG, home=tmp_path / "home", autoload=False) as api:
        yield api


def test_the_entry_point_is_lazy_and_light() -> None:
    assert nervous.Nervous is Nervous
    code = "import sys, nervous; print(any(m == 'mcp' or m.startswith('mcp.') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_configuration_forms(tmp_path: Path, nervous_home: Path) -> None:
    with Nervous(CONFIG, home=tmp_path / "h") as a:
        assert a.config.registries.use == ["local"]
        assert a.config.paths.data_dir == (tmp_path / "h" / "data").absolute()
    cfg = Config()
    cfg.registries.use = ["clawhub"]
    with Nervous(cfg, home=tmp_path / "h2") as b:
        assert b.config is cfg and b.manager.config is cfg
        assert cfg.paths.config_dir == (tmp_path / "h2" / "config").absolute()
    with Nervous() as c:
        assert c.config.paths.data_dir == (nervous_home / "data").absolute()
    with pytest.raises(BadInput, match="does not exist"):
        Nervous(tmp_path / "missing.toml")
    with pytest.raises(UsageError, match="expected None, a Config or a path"):
        Nervous(42)  # type: ignore[arg-type]


def test_typed_records_in_and_out(nv: Any) -> None:
    seen = nv.perceive("count the words in my report")
    assert isinstance(seen, Perception) and seen.hit is False
    found = nv.search("weather")
    assert isinstance(found, SearchResult) and found.hits[0].ref.name == "weather-now"
    state = nv.acquire("count the words in my report")
    assert isinstance(state, AcquireState) and state.state == "awaiting_approval"
    assert state.to_json()["schema"] == "nervous.acquire.v1"
    assert nv.status(state.session).state == "awaiting_approval"
    report = nv.scan(CONFIG.parent / "registry" / "word-count")
    assert isinstance(report, ScanReport) and report.decision == "allow"


def test_request_install_issues_a_token_and_installs_only_on_approve(nv: Any, tmp_path: Path) -> None:
    state = nv.request_install("word-count", task="count words in a file")
    assert state.state == "awaiting_approval" and state.next == ("approve", "cancel")
    (cand,) = state.data["candidates"]
    assert not (tmp_path / "skills" / "word-count").exists()
    installed = nv.approve(cand["token"])
    assert installed.state == "installed" and (tmp_path / "skills" / "word-count" / "SKILL.md").is_file()
    finished = nv.done("word-count", "success")
    assert finished.state == "done" and not (tmp_path / "skills" / "word-count").exists()
    with pytest.raises(NervousError) as info:
        nv.approve(cand["token"])
    assert info.value.code == "invalid_token"


def test_request_install_refuses_bad_references_and_blocked_skills(nv: Any) -> None:
    with pytest.raises(UsageError):
        nv.request_install("")
    with pytest.raises(UsageError):
        nv.request_install("github:owner/repo", version="1.0.0")
    unknown = nv.request_install("no-such-skill")
    assert unknown.state == "refused" and unknown.data["candidates"][0]["rule_ids"] == ["registry:not_found"]
    refused = nv.request_install("free-gpu-credits")
    assert refused.state == "refused" and "token" not in refused.data["candidates"][0]


def test_scan_accepts_folders_skill_md_zips_and_references(nv: Any, tmp_path: Path) -> None:
    folder = CONFIG.parent / "registry" / "disk-cleanup"
    by_folder = nv.scan(folder)
    assert nv.scan(folder / "SKILL.md").decision == by_folder.decision
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.write(folder / "SKILL.md", "SKILL.md")
    archive = tmp_path / "disk-cleanup.zip"
    archive.write_bytes(buf.getvalue())
    assert nv.scan(archive).decision == by_folder.decision
    assert nv.scan("disk-cleanup").decision == by_folder.decision  # fetched from the local registry
    other = tmp_path / "notes.txt"
    other.write_text("hello", encoding="utf-8")
    with pytest.raises(BadInput, match="expected a skill folder"):
        nv.scan(other)
    with pytest.raises(UsageError):
        nv.scan("  ")


def test_goals_and_evolver_are_available(nv: Any, tmp_path: Path) -> None:
    made = nv.goals.analyze("Ship the report")
    assert made.goal is not None and made.goal.status == "analyzed"
    assert nv.goals is nv.goals
    assert nv.evolver_for(tmp_path).get_mode()["autonomy_mode"] == "manual"
    with pytest.raises(NervousError) as info:
        nv.evolver_for(tmp_path / "missing")
    assert info.value.code == "INVALID_WORKSPACE"


def test_a_host_judge_callable_is_asked_and_can_only_raise(tmp_path: Path, nervous_home: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from nervous.kernel.records import IntentVerdict

    monkeypatch.chdir(tmp_path)
    asked: list[str] = []

    def judge(bundle: Any, side_effects: Any, context: Any) -> IntentVerdict | None:
        asked.append(bundle.skill_md.text() if bundle.skill_md else "")
        return IntentVerdict("incoherent", reason="word counting needs no network", judge="host-llm")

    skill = CONFIG.parent / "registry" / "word-count"
    with Nervous(CONFIG, home=tmp_path / "home", autoload=False) as plain:
        before = plain.scan(skill).decision
    with Nervous(CONFIG, home=tmp_path / "home", autoload=False, intent_judge=judge) as judged:
        report = judged.scan(skill)
    assert before == "allow" and report.decision == "review" and len(asked) == 1
    assert report.report["intent"] == {"verdict": "incoherent", "reason": "word counting needs no network",
                                       "judge": "host-llm"}
    with pytest.raises(UsageError, match="intent_judge: expected a callable"):
        Nervous(CONFIG, intent_judge="yes")  # type: ignore[arg-type]
