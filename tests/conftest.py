"""Suite-wide checks: every hookspec must be called at least once by the tests.

Enforced when the whole suite runs (``NERVOUS_CHECK_HOOK_COVERAGE=1``, set by tox and CI), so a
hook nobody exercises fails the build rather than rotting.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from nervous.kernel.manager import add_hookcall_monitoring

CALLED_HOOKS: set[str] = set()


def _before(hook_name: str, hook_impls: list[object], kwargs: object) -> None:
    if hook_impls:  # a hook counts as exercised when an implementation actually ran
        CALLED_HOOKS.add(hook_name)


# pluggy's public monitoring, installed on every plugin manager the tests build
add_hookcall_monitoring(_before, lambda outcome, hook_name, hook_impls, kwargs: None)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if os.environ.get("NERVOUS_CHECK_HOOK_COVERAGE") != "1" or exitstatus != 0:
        return
    if session.config.option.keyword or session.config.option.markexpr:
        return  # a selection of the suite: coverage of hooks is judged on the whole suite only
    from nervous.plugin import hookspecs

    declared = {n for n in dir(hookspecs) if n.startswith("nervous_")}
    missing = sorted(declared - CALLED_HOOKS)
    if missing:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        msg = f"hookspecs never exercised by any test: {', '.join(missing)}"
        if reporter is not None:
            reporter.write_line(msg, red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="session")
def load_benchmark() -> Callable[[str], ModuleType]:
    """Import a program of ``benchmarks/`` by file name (they are scripts, not a package), once per session."""
    loaded: dict[str, ModuleType] = {}

    def load(name: str) -> ModuleType:
        if name not in loaded:
            spec = importlib.util.spec_from_file_location(f"{name}_bench", BENCHMARKS / f"{name}.py")
            assert spec and spec.loader
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module  # attrs and pickling look classes up by module
            spec.loader.exec_module(module)
            loaded[name] = module
        return loaded[name]

    return load
