"""``[registries.<name>] provider = "clawhub"``: several ClawHub-protocol registries, each with its URL and token."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from nervous.testing.clawhub_server import ClawHubStandin, skill_md
from nervous.testing.cli import run_cli


@pytest.fixture
def team() -> Iterator[ClawHubStandin]:
    with ClawHubStandin([{"slug": "deploy", "owner": "ops", "summary": "Deploy the team's services",
                          "files": {"SKILL.md": skill_md("deploy", "Team deploy.")}}],
                        tokens=("clh_team",)) as server:
        yield server


@pytest.fixture
def public() -> Iterator[ClawHubStandin]:
    with ClawHubStandin([{"slug": "deploy", "owner": "someone", "summary": "Deploy anything",
                          "files": {"SKILL.md": skill_md("deploy", "Public deploy.")}},
                         {"slug": "weather", "owner": "someone", "summary": "Weather forecasts",
                          "files": {"SKILL.md": skill_md("weather", "Weather.")}}],
                        tokens=("clh_public",)) as server:
        yield server


def _run(args: list[str], config: Path, workdir: Path) -> tuple[int, dict[str, Any]]:
    res = run_cli("--config", str(config), *args, "--json", cwd=workdir)
    return res.exit_code, res.json


@pytest.fixture
def setup(team: ClawHubStandin, public: ClawHubStandin, tmp_path: Path, nervous_home: Path,
          monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    monkeypatch.setenv("TEAM_TOKEN", "clh_team")
    monkeypatch.setenv("CLAWHUB_TOKEN", "clh_must_not_leak")
    monkeypatch.setenv("CLAWHUB_REGISTRY", "http://127.0.0.1:9/never-used")
    config = tmp_path / "nervous.toml"
    config.write_text(f"""
[registries]
use = ["team", "public"]

[registries.team]
provider = "clawhub"
url = "{team.url}"
token_env = "TEAM_TOKEN"

[registries.public]
provider = "clawhub"
url = "{public.url}"
token = "clh_public"
""")
    workdir = tmp_path / "work"
    workdir.mkdir()
    return config, workdir


def test_search_fans_out_with_each_registrys_token(setup: tuple[Path, Path], team: ClawHubStandin,
                                                   public: ClawHubStandin, monkeypatch: pytest.MonkeyPatch) -> None:
    config, workdir = setup
    code, out = _run(["search", "deploy"], config, workdir)
    assert code == 0, out
    assert [(h["registry"], h["ref"]) for h in out["hits"]][:2] == [("team", "team:@ops/deploy"),
                                                                    ("public", "public:@someone/deploy")]
    assert {r["authorization"] for r in team.requests} == {"Bearer clh_team"}
    assert {r["authorization"] for r in public.requests} == {"Bearer clh_public"}


def test_team_first_then_public_fallback(setup: tuple[Path, Path], team: ClawHubStandin, public: ClawHubStandin,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    config, workdir = setup
    code, out = _run(["install", "deploy", "--yes"], config, workdir)
    assert code == 0, out
    assert "Team deploy." in (workdir / "skills" / "deploy" / "SKILL.md").read_text()
    assert not any(r["path"] == "/api/v1/download" for r in public.requests)
    code, out = _run(["install", "weather", "--yes"], config, workdir)
    assert code == 0, out
    assert (workdir / "skills" / "weather" / "SKILL.md").is_file()
    code, out = _run(["install", "public:@someone/deploy", "--yes"], config, workdir)
    assert code == 0, out  # an owner-qualified install has its own folder; the team's is untouched
    assert "Public deploy." in (workdir / "skills" / "@someone" / "deploy" / "SKILL.md").read_text()
    assert "Team deploy." in (workdir / "skills" / "deploy" / "SKILL.md").read_text()


def test_bad_named_registry_config_is_a_clear_error(tmp_path: Path, nervous_home: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "bad.toml"
    config.write_text('[registries.team]\nprovider = "clawhub"\nurl = "ftp://x"\n')
    code, out = _run(["search", "x"], config, tmp_path)
    assert code == 2 and "registries.team.url" in out["error"]["message"]
    config.write_text('[registries]\nuse = ["team"]\n[registries.team]\nprovider = "nope"\nurl = "http://x"\n')
    code, out = _run(["search", "x"], config, tmp_path)
    # a named registry whose provider no plugin offers is a configuration error when the command starts
    assert code == 2 and "unknown registry 'nope'" in out["error"]["message"], out
