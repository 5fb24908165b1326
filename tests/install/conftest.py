"""Fixtures for install tests: a seeded ClawHub stand-in and a plugin manager pointed at it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from install_helpers import catalog

from nervous.testing.clawhub_server import ClawHubStandin


@pytest.fixture
def standin() -> Iterator[ClawHubStandin]:
    with ClawHubStandin(catalog()) as server:
        yield server


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    d = tmp_path / "project"
    d.mkdir()
    return d


@pytest.fixture
def sleeps() -> list[float]:
    """Waits the HTTP client asked for (recorded instead of slept)."""
    return []


@pytest.fixture
def pm(nervous_config: Any, standin: ClawHubStandin, workdir: Path, sleeps: list[float],
       monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    from nervous.kernel.manager import PluginManager

    monkeypatch.setenv("CLAWHUB_REGISTRY", standin.url)
    monkeypatch.chdir(workdir)
    nervous_config.registries.use = ["clawhub"]
    nervous_config.install.dir = "skills"
    manager = PluginManager(nervous_config, autoload=False)
    registry = manager.registry("clawhub")
    registry.http_options["sleep"] = sleeps.append  # retries without waiting
    yield manager
    manager.close()


@pytest.fixture
def run(standin: ClawHubStandin, workdir: Path, nervous_cli: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Run the CLI in ``workdir`` against the stand-in (ClawHub only): ``(exit code, JSON or text, stderr)``."""
    monkeypatch.chdir(workdir)
    monkeypatch.setenv("CLAWHUB_REGISTRY", standin.url)
    monkeypatch.setenv("NERVOUS_REGISTRIES", "clawhub")

    def invoke(*args: str, as_json: bool = True) -> tuple[int, Any, str]:
        res = nervous_cli(*args, "--json", cwd=workdir) if as_json else nervous_cli(*args, cwd=workdir)
        return res.exit_code, res.json if as_json else res.stdout, res.stderr

    return invoke
