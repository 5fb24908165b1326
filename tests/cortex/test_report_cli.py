"""``nervous report`` reaches reflexes and lessons: the install record of a skill nervous installed
supplies the fingerprint, side-effect tags and scan decision; options carry dependencies, readiness
and a misleading description."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from nervous.testing.clawhub_server import ClawHubStandin, skill_md

BODY = "## Steps\n\n1. Read the city from the request.\n2. Report the forecast.\n"


@pytest.fixture
def standin() -> Iterator[ClawHubStandin]:
    with ClawHubStandin([{"slug": "weather-now", "owner": "alice", "summary": "Current weather",
                          "files": {"SKILL.md": skill_md("weather-now", "Current weather.", BODY)}}]) as server:
        yield server


@pytest.fixture
def run(standin: ClawHubStandin, tmp_path: Path, nervous_cli: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    work = tmp_path / "project"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("CLAWHUB_REGISTRY", standin.url)
    monkeypatch.setenv("NERVOUS_REGISTRIES", "clawhub")
    monkeypatch.setenv("NERVOUS_DISABLE_PLUGIN_AUTOLOAD", "1")

    def invoke(*args: str, code: int = 0) -> dict[str, Any]:
        res = nervous_cli(*args, "--json", cwd=work)
        assert res.exit_code == code, res.stdout + res.stderr
        data: dict[str, Any] = res.json
        return data

    return invoke


def _candidate(run: Any, region: str) -> dict[str, Any]:
    shown = run("cortex", "show")
    cand: dict[str, Any] = shown["regions"][region]["candidates"][0]
    return cand


def test_an_installed_skill_is_reported_with_its_record(run: Any) -> None:
    run("install", "weather-now", "--yes")
    res = run("report", "weather-now", "--region", "weather", "--outcome", "success")
    assert res["install_record"] is True
    blockers = " ".join(res["candidate"]["reflex_blockers"])
    assert "fingerprint" not in blockers and "scan" not in blockers, blockers
    cand = _candidate(run, "weather")
    assert (cand["source"], cand["version"]) == ("clawhub", "1.0.0")


def test_without_a_record_a_reflex_stays_out_of_reach(run: Any) -> None:
    res = run("report", "someone-elses", "--region", "weather", "--outcome", "success")
    assert res["install_record"] is False
    blockers = " ".join(res["candidate"]["reflex_blockers"])
    assert "scan decision is unknown" in blockers, blockers


def test_changed_files_withhold_the_fingerprint(run: Any, tmp_path: Path) -> None:
    run("install", "weather-now", "--yes")
    skill = tmp_path / "project" / "skills" / "weather-now" / "SKILL.md"
    skill.write_text(skill.read_text(encoding="utf-8") + "\nrm -rf ~\n", encoding="utf-8")
    res = run("report", "weather-now", "--region", "weather", "--outcome", "success")
    assert any("differ from what was installed" in w for w in res["warnings"])
    assert "scan decision is unknown" in " ".join(res["candidate"]["reflex_blockers"])


def test_options_reach_the_lessons(run: Any) -> None:
    run("report", "weather-now", "--region", "weather", "--outcome", "success", "--fingerprint", "b" * 64,
        "--tag", "network:api.weather.example", "--scan-decision", "allow", "--no-lookup")
    for _ in range(2):  # the lesson is created once the same dependency was missing twice (the threshold)
        dep = run("report", "weather-now", "--region", "weather", "--outcome", "dependency_missing",
                  "--missing-dep", "jq")
    assert "dependency_warning weather/jq created" in dep["candidate"]["lesson_events"]
    bad = run("report", "weather-now", "--region", "weather", "--outcome", "task_mismatch", "--misleading")
    assert "skill_quality_warning weather-now created" in bad["candidate"]["lesson_events"]
    lessons = {(les["type"], les.get("key") or les.get("slug")) for les in run("cortex", "show")["lessons"]}
    assert {("dependency_warning", "jq"), ("skill_quality_warning", "weather-now")} <= lessons
    wrong = run("report", "weather-now", "--region", "weather", "--outcome", "success", "--misleading", code=2)
    assert "task_mismatch" in wrong["error"]["message"]
