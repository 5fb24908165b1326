"""Parity with the clawhub CLI on the same folders and servers: what ``nervous list`` says about the
CLI's installs, suspicious rows of older servers, links to the configured registry, and how many
requests an install costs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from nervous_plugins.clawhub import ClawHubRegistry
from test_interop_clawhub_cli import _nervous, clawhub, standin  # noqa: F401  (fixtures)

from nervous.testing.clawhub_server import ClawHubStandin, skill_md

SKILLS = [
    {"slug": "weather", "owner": "alice", "summary": "Weather forecast",
     "files": {"SKILL.md": skill_md("weather", "Weather forecast.")}},
    {"slug": "weather-keys", "owner": "dave", "summary": "Weather with API keys",
     "files": {"SKILL.md": skill_md("weather-keys", "Weather with keys.")},
     "moderation": {"isSuspicious": True, "isMalwareBlocked": False, "verdict": "suspicious",
                    "reasonCodes": ["suspicious.env_credential_access"], "summary": "Reads API keys."}},
]


@pytest.fixture
def legacy() -> Iterator[ClawHubStandin]:
    with ClawHubStandin(SKILLS, legacy_moderation=True) as server:
        yield server


@pytest.fixture
def current() -> Iterator[ClawHubStandin]:
    with ClawHubStandin(SKILLS) as server:
        yield server


def test_older_servers_suspicious_rows_are_shown_suspicious(legacy: ClawHubStandin) -> None:
    hits = {h.ref.name: h for h in ClawHubRegistry(registry=legacy.url).search("weather")}
    assert hits["weather-keys"].scan.status == "suspicious"
    assert hits["weather"].scan.status == "unknown"


def test_links_point_at_the_configured_registry_or_site(current: ClawHubStandin) -> None:
    only_registry = ClawHubRegistry(registry=current.url)
    hit = only_registry.search("weather")[0]
    assert hit.url == f"{current.url}/alice/skills/weather"
    from nervous.kernel.records import SkillRef

    assert only_registry.resolve(SkillRef("weather")).url == f"{current.url}/alice/skills/weather"
    with_site = ClawHubRegistry(registry=current.url, site="https://hub.example.org")
    assert with_site.search("weather")[0].url == "https://hub.example.org/alice/skills/weather"


def test_an_install_asks_the_registry_at_most_three_times(current: ClawHubStandin, tmp_path: Path,
                                                          nervous_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    work = tmp_path / "work"
    work.mkdir()
    current.requests.clear()
    code, out = _nervous(["install", "weather", "--yes"], work, current, monkeypatch, capsys)
    assert code == 0, out
    paths = current.paths_requested()
    assert len(paths) <= 3, paths
    assert len(set(paths)) == len(paths), f"a detail was fetched twice: {paths}"


def test_the_clis_installs_are_listed_with_version_and_registry(clawhub: Any, standin: ClawHubStandin,  # noqa: F811
                                                                monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    clawhub("install", "demo", "--version", "1.0.0")
    workdir: Path = clawhub.workdir
    code, out = _nervous(["list"], workdir, standin, monkeypatch, capsys)
    assert code == 0
    row = {s["name"]: s for s in out["skills"]}["demo"]
    assert row["managed"] is False
    assert (row["registry"], row["version"]) == ("clawhub", "1.0.0")
    clawhub("update", "demo")
    code, out = _nervous(["list"], workdir, standin, monkeypatch, capsys)
    assert {s["name"]: s for s in out["skills"]}["demo"]["version"] == "1.1.0"
    monkeypatch.setenv("COLUMNS", "200")
    from nervous.frontends.cli import cli

    capsys.readouterr()
    assert cli(["list"]) == 0
    assert "unmanaged (clawhub CLI)" in capsys.readouterr().out
    assert json.loads((workdir / ".clawhub" / "lock.json").read_text())["skills"]["demo"]["version"] == "1.1.0"
