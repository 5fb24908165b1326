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


@pytest.mark.parametrize("module", [nervous.plugin, nervous.plugin.toolkit, cortex])
def test_type_checkers_see_every_lazy_name_with_its_real_type(module: object) -> None:
    """Each name loaded on first use is also imported under ``TYPE_CHECKING`` (or annotated), so a plugin
    author's type checker sees the real function or class rather than ``Any`` from ``__getattr__``."""
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(module))  # type: ignore[arg-type]
    declared: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for stmt in node.body:
                if isinstance(stmt, ast.ImportFrom):
                    declared |= {alias.asname or alias.name for alias in stmt.names}
                elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                    declared.add(stmt.target.id)
    lazy = set(module._SOURCES)  # type: ignore[attr-defined]
    assert lazy <= declared, sorted(lazy - declared)
    assert set(module.__all__) >= lazy  # type: ignore[attr-defined]
