"""pytest plugin (entry point ``pytest11``): isolated homes and plugin managers for tests.

Every test that uses nervous gets a fresh ``NERVOUS_HOME`` so no test touches the real home
directory; ``nervous_pm`` builds a plugin manager with only built-ins (no autoload).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ..kernel import clock


@pytest.fixture
def nervous_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An isolated ``NERVOUS_HOME`` (config, data, state and cache under one temp dir)."""
    import os

    home = tmp_path / "nervous-home"
    home.mkdir()
    # every NERVOUS_* setting of the developer's shell is dropped, not only the ones known today
    for var in [v for v in os.environ if v.startswith("NERVOUS_") and v not in KEEP_VARIABLES]:
        monkeypatch.delenv(var, raising=False)
    for var in ("CLAWHUB_REGISTRY", "CLAWHUB_TOKEN", "GITHUB_TOKEN"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NERVOUS_HOME", str(home))
    return home


#: variables that describe the test machine rather than a user's settings (kept by ``nervous_home``)
KEEP_VARIABLES = frozenset({"NERVOUS_TEST_POSTGRES_DSN", "NERVOUS_REQUIRE_POSTGRES", "NERVOUS_CHECK_HOOK_COVERAGE",
                            "NERVOUS_CLAWHUB_CLI", "NERVOUS_SUITE_SEED", "NERVOUS_TRACEBACK"})


@pytest.fixture
def nervous_cli(nervous_home: Path) -> Callable[..., Any]:
    """Run the CLI in-process: ``nervous_cli("search", "x", "--json")`` returns a
    :class:`nervous.testing.cli.CliResult` (``exit_code``, ``stdout``, ``stderr``, parsed ``json``).

    The working directory is ``nervous_home`` during the run unless ``cwd=`` is given.
    """
    from .cli import run_cli

    def run(*args: str, input: str | None = None, env: dict[str, str | None] | None = None,
            cwd: Path | None = None, environ: dict[str, str] | None = None) -> Any:
        return run_cli(*args, input=input, env=env, cwd=cwd or nervous_home, environ=environ)

    return run


@pytest.fixture
def nervous_config(nervous_home: Path, tmp_path: Path) -> Any:
    """Default configuration isolated in ``nervous_home`` (ignores project files)."""
    from ..kernel.config import Config
    from ..kernel.paths import Paths

    cfg = Config()
    cfg.paths = Paths.from_env()
    cfg.install.dir = str(tmp_path / "skills")
    return cfg


@pytest.fixture
def nervous_pm(nervous_config: Any) -> Iterator[Any]:
    """A plugin manager with the built-in plugins only (no entry-point autoload)."""
    from ..kernel.manager import PluginManager

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
