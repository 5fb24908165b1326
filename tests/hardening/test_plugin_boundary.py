"""Third-party plugins that return the wrong types, exit, interrupt or print: plugin_error naming the
plugin (exit 1), never an internal error (70), a silent exit 0 or a corrupted ``--json`` envelope."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from nervous.errors import PluginError
from nervous.kernel.config import Config
from nervous.kernel.manager import PluginManager
from nervous.plugin import Provider, hookimpl

SKILL = "---\nname: demo\ndescription: a demo skill\n---\nSay hello.\n"


def _site(tmp_path: Path, name: str, source: str) -> Path:
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    (site / f"p_{name}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    info = site / f"sweep_{name}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: sweep-{name}\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[nervous]\n{name} = p_{name}\n", encoding="utf-8")
    return site


def _run(site: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NERVOUS_")}
    env.update(PYTHONPATH=str(site), NERVOUS_HOME=str(home), NERVOUS_NO_ENTRY_POINT_CACHE="1",
               NERVOUS_REGISTRIES="local")
    return subprocess.run([sys.executable, "-m", "nervous", *args], capture_output=True, text=True, env=env,
                          cwd=home.parent, timeout=90)


def _skill(tmp_path: Path) -> Path:
    folder = tmp_path / "skill" / "demo"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL, encoding="utf-8")
    return folder


# ------------------------------------------------------------------ in-process: the manager's boundary


def _manager(tmp_path: Path, plugin: Any, name: str = "thirdparty") -> PluginManager:
    from nervous.kernel.paths import Paths

    root = tmp_path / "home"
    pm = PluginManager(Config(), paths=Paths(root / "c", root / "d", root / "s", root / "k"), autoload=False)
    pm.register(plugin, name)
    return pm


class _Single:
    @hookimpl
    def nervous_registries(self) -> Any:
        return Provider("single", "d", lambda ctx: None)


class _Int:
    @hookimpl
    def nervous_registries(self) -> Any:
        return 5


@pytest.mark.parametrize("plugin", [_Single(), _Int()])
def test_provider_hook_returning_a_non_list_is_a_plugin_error(plugin: Any, tmp_path: Path) -> None:
    pm = _manager(tmp_path, plugin)
    with pytest.raises(PluginError, match="thirdparty") as info:
        pm.providers("registry")
    assert info.value.plugin == "thirdparty"


class _ClassDict:
    @hookimpl
    def nervous_classify(self, bundle: Any, context: Any) -> Any:
        return {"tags": ["x"]}


class _RiskStr:
    @hookimpl
    def nervous_score_risk(self, bundle: Any, side_effects: Any, context: Any) -> Any:
        return "low"


class _IntentStr:
    @hookimpl
    def nervous_judge_intent(self, bundle: Any, side_effects: Any, context: Any) -> Any:
        return "fine"


class _HardList:
    @hookimpl
    def nervous_hard_stop_terms(self) -> Any:
        return ["rm -rf"]


class _HardStr:
    @hookimpl
    def nervous_hard_stop_terms(self) -> Any:
        return {"danger": "nuke"}


def _bundle() -> Any:
    from nervous.kernel.records import ScanContext, SideEffects, SkillBundle, SkillRef

    bundle = SkillBundle(ref=SkillRef(name="demo", registry="local"), files={"SKILL.md": SKILL.encode()})
    return bundle, SideEffects(), ScanContext()


@pytest.mark.parametrize("plugin, call", [
    (_ClassDict(), lambda pm, b, se, ctx: pm.classify(b, ctx)),
    (_RiskStr(), lambda pm, b, se, ctx: pm.score_risk(b, se, ctx)),
    (_IntentStr(), lambda pm, b, se, ctx: pm.judge_intent(b, se, ctx)),
    (_HardList(), lambda pm, b, se, ctx: pm.hard_stop_terms()),
    (_HardStr(), lambda pm, b, se, ctx: pm.hard_stop_terms()),
])
def test_contribution_hook_returning_a_wrong_type_blames_its_plugin(plugin: Any, call: Any, tmp_path: Path) -> None:
    pm = _manager(tmp_path, plugin)
    try:
        bundle, se, ctx = _bundle()
    except TypeError:
        pytest.skip("records constructor changed")
    with pytest.raises(PluginError) as info:
        call(pm, bundle, se, ctx)
    assert info.value.plugin == "thirdparty", info.value.message  # not the built-in review-policy
    assert "review-policy" not in info.value.message


class _Exits:
    @hookimpl
    def nervous_hard_stop_terms(self) -> Any:
        sys.exit(0)


def test_sys_exit_in_a_hook_is_a_plugin_error(tmp_path: Path) -> None:
    pm = _manager(tmp_path, _Exits())
    with pytest.raises(PluginError, match="SystemExit") as info:
        pm.hard_stop_terms()
    assert info.value.plugin == "thirdparty"


class _BadRegistry:
    name = "bad"

    def __init__(self, mode: str) -> None:
        self.mode = mode

    def search(self, query: str, limit: int = 10) -> Any:
        return {"none": None, "dicts": [{"name": "x"}], "gen": (i for i in range(3)), "str": "abc", "int": 5,
                "exit": None}[self.mode] if self.mode != "exit" else sys.exit(0)

    def resolve(self, ref: Any) -> Any:
        return None

    def fetch(self, ref: Any, version: Any = None) -> Any:
        return {"files": []}


class _BadRegistries:
    @hookimpl
    def nervous_registries(self) -> Any:
        return [Provider(f"bad{m}", "d", lambda ctx, m=m: _BadRegistry(m))
                for m in ("none", "dicts", "gen", "str", "int", "exit")]


def test_registry_returning_wrong_types_is_reported_per_registry(tmp_path: Path) -> None:
    from nervous.engines.search import search

    pm = _manager(tmp_path, _BadRegistries())
    good = [n for n in pm.providers("registry") if n == "local"]
    names = ["badnone", "baddicts", "badgen", "badstr", "badint", "badexit", *good]
    result = search(pm, "word", registries=names, limit=5)
    statuses = {s.registry: s for s in result.registries}
    for name in names[:6]:
        assert statuses[name].status == "error", statuses[name]
        assert "thirdparty" in statuses[name].message
    from nervous.kernel.records import SkillRef

    with pytest.raises(PluginError, match="resolve"):
        pm.registry("badnone").resolve(SkillRef(name="x", registry="badnone"))
    with pytest.raises(PluginError, match="fetch"):
        pm.registry("badnone").fetch(SkillRef(name="x", registry="badnone"))


# ------------------------------------------------------------------ the real command line


def test_provider_hook_returning_one_provider_exits_1(tmp_path: Path, nervous_home: Path) -> None:
    site = _site(tmp_path, "single", """
        from nervous.plugin import hookimpl, Provider
        @hookimpl
        def nervous_registries():
            return Provider("single", "d", lambda ctx: None)
    """)
    res = _run(site, nervous_home, "search", "word", "--json")
    assert res.returncode == 1, res.stderr
    err = json.loads(res.stdout)["error"]
    assert err["code"] == "plugin_error" and "'single'" in err["message"]


def test_sys_exit_at_import_marks_the_plugin_failed(tmp_path: Path, nervous_home: Path) -> None:
    site = _site(tmp_path, "sysexit", "raise SystemExit(0)\n")
    res = _run(site, nervous_home, "plugins", "--json")
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    row = {p["name"]: p for p in data["plugins"]}["sysexit"]
    assert row["status"] == "failed" and "SystemExit" in row["reason"]


def test_keyboard_interrupt_at_import_exits_130(tmp_path: Path, nervous_home: Path) -> None:
    site = _site(tmp_path, "kbint", "raise KeyboardInterrupt\n")
    res = _run(site, nervous_home, "plugins", "--json")
    assert res.returncode == 130, (res.stdout, res.stderr)
    assert "interrupted" in res.stderr


def test_sys_exit_in_a_hook_is_plugin_error_with_an_envelope(tmp_path: Path, nervous_home: Path) -> None:
    site = _site(tmp_path, "hookexit", """
        import sys
        from nervous.plugin import hookimpl
        @hookimpl
        def nervous_classify(bundle, context):
            sys.exit(0)
    """)
    res = _run(site, nervous_home, "scan", str(_skill(tmp_path)), "--json")
    assert res.returncode == 1, (res.stdout, res.stderr)
    err = json.loads(res.stdout)["error"]
    assert err["code"] == "plugin_error" and "hookexit" in err["message"]


def test_plugin_output_never_reaches_stdout_under_json(tmp_path: Path, nervous_home: Path) -> None:
    site = _site(tmp_path, "printer", """
        print("HELLO FROM IMPORT")
        from nervous.plugin import hookimpl
        @hookimpl
        def nervous_registries():
            print("HELLO FROM HOOK")
            return []
        @hookimpl
        def nervous_event(event, manager):
            print("EVENT", event.kind)
        @hookimpl
        def nervous_classify(bundle, context):
            print("CLASSIFY")
        @hookimpl
        def nervous_matchers():
            print("MATCHERS")
            return []
    """)
    res = _run(site, nervous_home, "scan", str(_skill(tmp_path)), "--json")
    data = json.loads(res.stdout)  # one envelope, nothing else
    assert isinstance(data, dict) and "ok" in data
    assert "HELLO FROM HOOK" in res.stderr and "CLASSIFY" in res.stderr
    res = _run(site, nervous_home, "search", "word", "--json")
    json.loads(res.stdout)
    assert "EVENT search" in res.stderr
    res = _run(site, nervous_home, "perceive", "count the words in a file", "--json")  # the fast path, no click
    assert json.loads(res.stdout)["ok"] and "MATCHERS" in res.stderr


def test_intent_verdict_of_wrong_type_blames_the_judge(tmp_path: Path, nervous_home: Path) -> None:
    site = _site(tmp_path, "intentstr", """
        from nervous.plugin import hookimpl
        @hookimpl
        def nervous_judge_intent(bundle, side_effects, context):
            return "fine"
    """)
    res = _run(site, nervous_home, "scan", str(_skill(tmp_path)), "--json")
    assert res.returncode == 1, (res.stdout, res.stderr)
    err = json.loads(res.stdout)["error"]
    assert err["code"] == "plugin_error" and "'intentstr'" in err["message"]
    assert "review-policy" not in err["message"]
