"""pytest plugin (entry point ``pytest11``): isolated homes and plugin managers for tests.

Every test that uses nervous gets a fresh ``NERVOUS_HOME`` so no test touches the real home
directory; ``nervous_pm`` builds a plugin manager with only built-ins (no autoload).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .. import clock


@pytest.fixture
def nervous_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An isolated ``NERVOUS_HOME`` (config, data, state and cache under one temp dir)."""
    home = tmp_path / "nervous-home"
    home.mkdir()
    monkeypatch.setenv("NERVOUS_HOME", str(home))
    for var in ("NERVOUS_DISABLE_PLUGINS", "NERVOUS_STRICT_PLUGINS", "NERVOUS_CORTEX_PATH",
                "NERVOUS_GOALS_PATH", "NERVOUS_STATE_ROOT", "NERVOUS_STORAGE_BACKEND", "NERVOUS_STORAGE_PATH",
                "NERVOUS_REGISTRIES", "NERVOUS_SKILLS_DIR", "CLAWHUB_REGISTRY", "CLAWHUB_TOKEN", "GITHUB_TOKEN",
                "NERVOUS_NOW"):
        monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture
def nervous_config(nervous_home: Path, tmp_path: Path) -> Any:
    """Default configuration isolated in ``nervous_home`` (ignores project files)."""
    from ..config import Config
    from ..paths import Paths

    cfg = Config()
    cfg.paths = Paths.from_env()
    cfg.install.dir = str(tmp_path / "skills")
    return cfg


@pytest.fixture
def nervous_pm(nervous_config: Any) -> Iterator[Any]:
    """A plugin manager with the built-in plugins only (no entry-point autoload)."""
    from ..manager import PluginManager

    pm = PluginManager(nervous_config, autoload=False)
    yield pm
    pm.close()


@pytest.fixture
def fixed_clock() -> Iterator[list[float]]:
    """Freeze nervous's clock; mutate ``fixed_clock[0]`` to move time."""
    state = [1_772_649_611.0]  # 2026-03-04T18:40:11Z
    clock.set_clock(lambda: state[0])
    yield state
    clock.set_clock(None)
