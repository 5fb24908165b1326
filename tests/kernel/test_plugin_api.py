"""``nervous.plugin`` is the one package a plugin author imports (old paths: test_moved_paths.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest

import nervous.plugin
import nervous.plugin.toolkit
from nervous.plugin import cortex, protocols


@pytest.mark.parametrize("module", [nervous.plugin, nervous.plugin.toolkit, cortex])
def test_every_public_name_resolves(module: object) -> None:
    for name in module.__all__:  # type: ignore[attr-defined]
        assert getattr(module, name) is not None, name


def test_ranking_policy_has_one_spelling() -> None:
    from nervous.kernel.cortex.policy import RankingPolicy as old_path

    assert old_path is protocols.RankingPolicy is nervous.plugin.RankingPolicy is cortex.RankingPolicy

    class Minimal(nervous.plugin.RankingPolicy):  # the Protocol carries the defaults
        name = "minimal"

    policy = Minimal()
    assert isinstance(policy, nervous.plugin.RankingPolicy)
    assert policy.on_outcome("r", [], "x", "success", 0.0) == {} and policy.reflex_allowed("r", []) == (True, "")


def test_importing_the_plugin_api_stays_light() -> None:
    code = ("import sys, nervous.plugin, nervous.plugin.toolkit; "
            "print(sorted(m for m in ('yaml', 'nervous.kernel.http', 'nervous.kernel.records', 'nervous.kernel.storage', "
            "'nervous_plugins') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_public_names_are_the_lazy_table() -> None:
    table = set(nervous.plugin._SOURCES) | {"hookimpl", "Provider", "ProviderContext"}
    assert set(nervous.plugin.__all__) == table
