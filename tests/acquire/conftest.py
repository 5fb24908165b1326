"""Fixtures for the acquisition loop: a seeded ClawHub stand-in on loopback and a plugin manager."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from acquire_helpers import catalog  # noqa: E402

from nervous.testing.clawhub_server import ClawHubStandin  # noqa: E402


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
def make_pm(nervous_config: Any, standin: ClawHubStandin, workdir: Path,
            monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Plugin managers over the stand-in (ClawHub only) sharing one nervous home."""
    from nervous.kernel.manager import PluginManager

    monkeypatch.setenv("CLAWHUB_REGISTRY", standin.url)
    monkeypatch.chdir(workdir)
    made: list[Any] = []

    def make(**cortex: Any) -> Any:
        nervous_config.registries.use = ["clawhub"]
        nervous_config.install.dir = "skills"
        for key, value in cortex.items():
            setattr(nervous_config.cortex, key, value)
        manager = PluginManager(nervous_config, autoload=False)
        manager.registry("clawhub").http_options["sleep"] = lambda _s: None
        made.append(manager)
        return manager

    yield make
    for manager in made:
        manager.close()


@pytest.fixture
def acq(make_pm: Any, fixed_clock: list[float]) -> Any:
    from nervous.engines.acquire import Acquirer

    return Acquirer(make_pm())


@pytest.fixture
def fast_acq(make_pm: Any, fixed_clock: list[float]) -> Any:
    """Learns fast (learning rate 0.6) so a reflex is reachable in five successes."""
    from nervous.engines.acquire import Acquirer

    return Acquirer(make_pm(learning_rate=0.6))
