"""The static table of built-ins says exactly what the plugin modules declare, and loading it imports
none of them."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys

import pluggy
import pytest
from hypothesis import given
from hypothesis import strategies as st

from nervous.kernel.builtins import BUILTINS, Builtin, norm_name
from nervous.kernel.manager import PROVIDER_HOOKS
from nervous.plugin import hookspecs

PROVIDER_HOOK_NAMES = set(PROVIDER_HOOKS.values())


@pytest.mark.parametrize("builtin", BUILTINS, ids=lambda b: b.name)
def test_the_table_matches_the_module(builtin: Builtin) -> None:
    pm = pluggy.PluginManager("nervous")
    pm.add_hookspecs(hookspecs)
    module = importlib.import_module(builtin.module)
    hooks, providers = {}, {}
    for attr in dir(module):
        opts = pm.parse_hookimpl_opts(module, attr)
        if opts is None:
            continue
        if attr in PROVIDER_HOOK_NAMES:
            providers[attr] = tuple((p.name, p.description) for p in getattr(module, attr)())
        else:
            hooks[attr] = {k: v for k, v in opts.items() if v and k != "specname"}
    assert (hooks, providers) == (builtin.hooks, builtin.providers)


def test_building_a_manager_imports_no_builtin_module() -> None:
    code = ("import sys; from nervous.kernel.manager import PluginManager; from nervous.kernel.config import Config; "
            "pm = PluginManager(Config(), autoload=False); pm.check_selection(); pm.plugins(); "
            "print(sorted(m for m in sys.modules if m.startswith('nervous_plugins') or m == 'importlib.metadata'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_builtin_is_imported_when_its_provider_is_created(nervous_pm: object) -> None:
    policy = nervous_pm.drain_policy("conservative")  # type: ignore[attr-defined]
    assert (policy.name, policy.max_replans) == ("conservative", 1)
    assert "nervous_plugins.drain_policies" in sys.modules


@pytest.mark.parametrize("name, expected", [
    ("My_Plugin", "my-plugin"), ("a.b_c-d", "a-b-c-d"), ("x--__..y", "x-y"), ("-lead", "-lead"),
    ("trail._", "trail-"), ("", ""), ("---", "-"), ("Plain", "plain"), ("ÄÖ_Ü", "äö-ü"),
])
def test_names_are_normalised_as_pep_503_says(name: str, expected: str) -> None:
    assert norm_name(name) == expected


@given(st.text(alphabet=st.sampled_from("-_.aZ9é"), max_size=40))
def test_normalising_equals_collapsing_separator_runs(name: str) -> None:
    assert norm_name(name) == re.sub(r"[-_.]+", "-", name).lower()
