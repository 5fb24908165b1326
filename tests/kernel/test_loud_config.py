"""Configuration fails early and loudly: selected providers are resolved (and, by ``config validate``,
built) before a command acts; unknown names, blocked defaults, clashing and broken plugins are
reported on every command."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from nervous.testing.cli import write_distribution

PLUGINS = {
    "nervous_needs_url": r'''
from nervous.errors import ConfigError
from nervous.plugin import Provider, hookimpl


def make(ctx):
    if "url" not in ctx.settings:
        raise ConfigError("[plugins.needs-url] url is required (the registry's base URL)")
    raise AssertionError("not reached in these tests")


@hookimpl
def nervous_registries():
    return [Provider("needs-url", "needs a url setting", make)]
''',
    "nervous_chatty": r'''
print("hello from a chatty plugin")
from nervous.plugin import hookimpl


@hookimpl
def nervous_hard_stop_terms():
    return None
''',
    "nervous_clash": r'''
from nervous.plugin import Provider, hookimpl


@hookimpl
def nervous_registries():
    return [Provider("other-local", "would shadow the built-in", lambda ctx: None)]
''',
    "nervous_broken_import": "raise RuntimeError('broken on purpose')\n",
}


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    site = tmp_path / "site"
    write_distribution(site, "nervous-needs-url", {"nervous_needs_url": PLUGINS["nervous_needs_url"]},
                       {"needs-url": "nervous_needs_url"})
    write_distribution(site, "nervous-chatty", {"nervous_chatty": PLUGINS["nervous_chatty"]},
                       {"chatty": "nervous_chatty"})
    write_distribution(site, "nervous-clash", {"nervous_clash": PLUGINS["nervous_clash"]},
                       {"local": "nervous_clash"}, version="2.0.0")
    write_distribution(site, "nervous-broken", {"nervous_broken_import": PLUGINS["nervous_broken_import"]},
                       {"broken": "nervous_broken_import"})
    monkeypatch.syspath_prepend(str(site))
    for module in PLUGINS:
        monkeypatch.delitem(sys.modules, module, raising=False)
    return site


def test_config_validate_builds_every_selected_provider(nervous_cli: Any, site: Path) -> None:
    res = nervous_cli("-c", 'registries.use=["needs-url"]', "config", "validate", "--json")
    assert res.exit_code == 2
    assert "[plugins.needs-url] url is required" in res.json["error"]["message"]
    ok = nervous_cli("config", "validate", "--json")
    assert ok.exit_code == 0 and ok.json["selected"]["registry"] == ["clawhub", "github"]


def test_an_unknown_ranking_policy_fails_before_anything_is_done(nervous_cli: Any, nervous_home: Path) -> None:
    res = nervous_cli("-c", 'cortex.ranking_policy="nope"', "acquire", "count the words in my report", "--json")
    assert res.exit_code == 2
    message = res.json["error"]["message"]
    assert "cortex.ranking_policy = 'nope' (set by -c" in message
    assert "available: discounted-thompson, seed, seed-confident, seed-probe, thompson, ucb1" in message
    assert not (nervous_home / "skills").exists()
    assert nervous_cli("-c", 'cortex.ranking_policy="nope"', "config", "show").exit_code == 0  # still inspectable


def test_unknown_names_in_disable_lists_are_reported(nervous_cli: Any, site: Path) -> None:
    res = nervous_cli("-p", "no:githb", "config", "show", "--json")
    assert res.exit_code == 0
    assert any("plugin 'githb' named in a disable list" in w and "github" in w for w in res.json["warnings"])


def test_a_blocked_plugin_leaves_the_default_stack_with_a_warning(nervous_cli: Any) -> None:
    res = nervous_cli("-p", "no:github", "config", "validate", "--json")
    assert res.exit_code == 0, res.stdout
    assert res.json["selected"]["registry"] == ["clawhub"]
    assert "registry 'github' is left out of the default [registries] use: its plugin is blocked" \
        in res.json["warnings"]
    explicit = nervous_cli("-p", "no:github", "-c", 'registries.use=["github"]', "search", "x", "--json")
    assert explicit.exit_code == 2
    assert "registries.use = 'github'" in explicit.json["error"]["message"]
    assert "its plugin is blocked" in explicit.json["error"]["message"]


def test_an_entry_point_named_like_a_builtin_is_refused_naming_both(nervous_cli: Any, site: Path) -> None:
    res = nervous_cli("plugins", "--json")
    plugins = {p["name"]: p for p in res.json["plugins"]}
    assert plugins["local"]["source"] == "built-in" and plugins["local"]["status"] == "active"
    clash = plugins["local (nervous-clash 2.0.0)"]
    assert clash["status"] == "failed"
    assert "distribution nervous-clash 2.0.0 clashes with the built-in plugin 'local' of nervous" in clash["reason"]
    assert any("clashes with the built-in plugin 'local'" in w for w in res.json["warnings"])


def test_a_plugin_that_fails_to_import_is_a_warning_on_every_command(nervous_cli: Any, site: Path) -> None:
    for args in (["config", "show", "--json"], ["plugins", "--json"], ["storage", "info", "--json"]):
        res = nervous_cli(*args)
        assert res.exit_code == 0, (args, res.stdout, res.stderr)
        assert any("plugin 'broken' (nervous-broken 1.0.0) failed to load and is skipped: "
                   "RuntimeError: broken on purpose" in w for w in res.json["warnings"]), args
    human = nervous_cli("config", "show")
    assert "warning: plugin 'broken'" in human.stderr


def test_plugin_output_while_loading_goes_to_stderr(nervous_cli: Any, site: Path) -> None:
    res = nervous_cli("plugins", "--json")
    json.loads(res.stdout)  # one JSON object, nothing else
    assert "hello from a chatty plugin" in res.stderr


def test_plugins_lists_providers_by_kind(nervous_cli: Any, site: Path) -> None:
    plugins = {p["name"]: p for p in nervous_cli("plugins", "--json").json["plugins"]}
    assert plugins["needs-url"]["providers"] == {"registry": ["needs-url"]}
    assert plugins["drain-policies"]["providers"] == {"drain policy": ["aggressive", "conservative", "default"]}
    assert "registry: clawhub" in nervous_cli("-p", "no:nervous-clash", "-p", "no:broken", "plugins").stdout


def test_config_show_says_which_layer_set_each_key(nervous_cli: Any, nervous_home: Path) -> None:
    (nervous_home / ".nervous.toml").write_text('[storage]\nbackend = "sqlite"\n', encoding="utf-8")
    res = nervous_cli("-c", "registries.timeout=3", "config", "show", "--json")
    origins = res.json["origins"]
    assert origins["storage.backend"] == str(nervous_home / ".nervous.toml")
    assert origins["registries.timeout"] == "-c registries.timeout=3"
    assert origins["cortex.matcher"] == "defaults"
    human = nervous_cli("-c", "registries.timeout=3", "config", "show").stdout
    assert any(line.startswith("registries.timeout") and line.rstrip().endswith("-c registries.timeout=3")
               for line in human.splitlines())


def test_a_settings_block_for_an_unknown_plugin_is_reported(nervous_cli: Any, nervous_home: Path) -> None:
    (nervous_home / ".nervous.toml").write_text('[plugins.clawhb]\nurl = "https://example.test"\n'
                                                '[plugins.clawhub]\ntimeout = 5\n', encoding="utf-8")
    res = nervous_cli("config", "validate", "--json")
    assert res.exit_code == 0
    unknown = [w for w in res.json["warnings"] if "configures no known plugin" in w]
    assert len(unknown) == 1 and unknown[0].startswith("[plugins.clawhb] configures no known plugin or provider")
    assert "clawhub" in unknown[0].split("known: ")[1].split(", ")
