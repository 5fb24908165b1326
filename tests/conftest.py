"""Suite-wide checks: every hookspec must be called at least once by the tests.

Enforced when the whole suite runs (``NERVOUS_CHECK_HOOK_COVERAGE=1``, set by tox and CI), so a
hook nobody exercises fails the build rather than rotting.
"""

from __future__ import annotations

import os

import pytest

from nervous import manager as _manager

CALLED_HOOKS: set[str] = set()

_original_call = _manager.PluginManager._call


def _recording_call(self, hook_name, impl, kwargs):  # type: ignore[no-untyped-def]
    CALLED_HOOKS.add(hook_name)
    return _original_call(self, hook_name, impl, kwargs)


_manager.PluginManager._call = _recording_call  # type: ignore[method-assign]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if os.environ.get("NERVOUS_CHECK_HOOK_COVERAGE") != "1" or exitstatus != 0:
        return
    if session.config.option.keyword or session.config.option.markexpr:
        return  # a selection of the suite: coverage of hooks is judged on the whole suite only
    from nervous import hookspecs

    declared = {n for n in dir(hookspecs) if n.startswith("nervous_")}
    missing = sorted(declared - CALLED_HOOKS)
    if missing:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        msg = f"hookspecs never exercised by any test: {', '.join(missing)}"
        if reporter is not None:
            reporter.write_line(msg, red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
