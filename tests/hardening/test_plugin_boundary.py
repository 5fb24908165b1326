"""Third-party plugins that return the wrong types, exit, interrupt or print: plugin_error naming the
plugin (exit 1), never an internal error (70), a silent exit 0 or a corrupted ``--json`` envelope."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
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


class _Flood:
    name = "flood"

    def search(self, query: str, limit: int = 10) -> Any:
        from nervous.kernel.records import SearchHit, SkillRef

        return [SearchHit("flood", SkillRef(name=f"s{i}", registry="flood"), f"s{i}") for i in range(5000)]


class _FloodRegistry:
    @hookimpl
    def nervous_registries(self) -> Any:
        return [Provider("flood", "answers far more than asked", lambda ctx: _Flood())]


def test_a_registry_answering_more_than_the_limit_is_held_to_it(tmp_path: Path) -> None:
    from nervous.engines.search import search

    result = search(_manager(tmp_path, _FloodRegistry()), "word", registries=["flood"], limit=7)
    assert [h.ref.name for h in result.hits] == [f"s{i}" for i in range(7)]
    (status,) = result.registries
    assert status.status == "ok" and status.hits == 7
    assert status.message == "answered 5000 hits for a limit of 7; the first 7 kept"


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


def test_a_plugin_that_failed_to_load_is_warned_about_by_version(tmp_path: Path, nervous_home: Path) -> None:
    site = _site(tmp_path, "broken", "raise ImportError('no such thing')\n")
    res = _run(site, nervous_home, "--version")
    assert res.returncode == 0 and res.stdout.startswith("nervous "), res.stderr
    assert "broken" not in res.stdout.splitlines()[1]
    assert "warning:" in res.stderr and "broken" in res.stderr and "no such thing" in res.stderr


def test_plugins_says_which_providers_could_not_be_listed(tmp_path: Path, nervous_home: Path) -> None:
    site = _site(tmp_path, "raiser", """
        from nervous.plugin import hookimpl
        @hookimpl
        def nervous_registries():
            raise RuntimeError("registry list exploded")
    """)
    res = _run(site, nervous_home, "plugins", "--json")
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    assert {p["name"]: p for p in data["plugins"]}["raiser"]["providers"] == {}
    (warning,) = [w for w in data["warnings"] if "registry providers could not be listed" in w]
    assert "'raiser'" in warning and "registry list exploded" in warning


def test_keyboard_interrupt_at_import_exits_130(tmp_path: Path, nervous_home: Path) -> None:
    site = _site(tmp_path, "kbint", "raise KeyboardInterrupt\n")
    res = _run(site, nervous_home, "plugins", "--json")
    assert res.returncode == 130, (res.stdout, res.stderr)
    assert json.loads(res.stdout)["error"] == {"code": "interrupted", "message": "interrupted"}
    res = _run(site, nervous_home, "plugins")
    assert res.returncode == 130 and res.stdout == "" and "interrupted" in res.stderr


def test_an_interrupted_json_command_still_answers_with_an_envelope(tmp_path: Path, nervous_home: Path) -> None:
    marker = tmp_path / "classifying"
    site = _site(tmp_path, "slow", f"""
        import pathlib, time
        from nervous.plugin import hookimpl
        @hookimpl
        def nervous_classify(bundle, context):
            pathlib.Path({str(marker)!r}).write_text("now")
            time.sleep(60)
    """)
    env = {k: v for k, v in os.environ.items() if not k.startswith("NERVOUS_")}
    env.update(PYTHONPATH=str(site), NERVOUS_HOME=str(nervous_home), NERVOUS_NO_ENTRY_POINT_CACHE="1")
    proc = subprocess.Popen([sys.executable, "-m", "nervous", "scan", str(_skill(tmp_path)), "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 60
    while not marker.exists():
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    assert json.loads(out) == {"ok": False, "error": {"code": "interrupted", "message": "interrupted"},
                               "warnings": []}


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


def test_threads_and_programs_a_plugin_starts_never_reach_stdout_under_json(tmp_path: Path,
                                                                          nervous_home: Path) -> None:
    site = _site(tmp_path, "spawner", """
        import os, subprocess, sys, threading
        from nervous.plugin import hookimpl

        def loud(word):
            t = threading.Thread(target=print, args=(word,))
            t.start()
            t.join()
            subprocess.run([sys.executable, "-c", f"print('{word} FROM A PROGRAM')"], check=True)
            os.write(1, f"{word} BY DESCRIPTOR\\n".encode())

        @hookimpl
        def nervous_classify(bundle, context):
            loud("CLASSIFY")
        @hookimpl
        def nervous_matchers():
            loud("MATCHERS")
            return []
    """)
    skill = str(_skill(tmp_path))
    for args, word in ((("scan", skill, "--json"), "CLASSIFY"),
                       (("perceive", "count the words in a file", "--json"), "MATCHERS")):  # click / fast path
        res = _run(site, nervous_home, *args)
        data = json.loads(res.stdout)  # one envelope, nothing else
        assert isinstance(data, dict) and "ok" in data, res.stdout
        for said in (f"{word}\n", f"{word} FROM A PROGRAM", f"{word} BY DESCRIPTOR"):
            assert said in res.stderr, (said, res.stderr)
    # without --json the same output is the plugin's to print where it likes
    res = _run(site, nervous_home, "scan", skill)
    assert "CLASSIFY FROM A PROGRAM" in res.stdout and "CLASSIFY BY DESCRIPTOR" in res.stdout


def test_bytes_a_plugin_writes_never_reach_stdout_under_json(tmp_path: Path, nervous_home: Path) -> None:
    site = _site(tmp_path, "bytes", """
        import sys, click
        from nervous.plugin import hookimpl
        @hookimpl
        def nervous_classify(bundle, context):
            sys.stdout.buffer.write(b"BUFFER BY PLUGIN\\n")
            click.echo(b"CLICK BYTES BY PLUGIN")
    """)
    res = _run(site, nervous_home, "scan", str(_skill(tmp_path)), "--json")
    assert json.loads(res.stdout)["decision"], res.stdout  # one envelope, nothing else
    assert "BUFFER BY PLUGIN" in res.stderr and "CLICK BYTES BY PLUGIN" in res.stderr


def test_a_json_reader_that_goes_away_ends_quietly(tmp_path: Path, nervous_home: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NERVOUS_")}
    env.update(NERVOUS_HOME=str(nervous_home), NERVOUS_REGISTRIES="local")
    for args in (["scan", str(_skill(tmp_path)), "--json"], ["list", "--json"]):
        read, write = os.pipe()
        os.close(read)  # the reader is gone before anything is written
        proc = subprocess.run([sys.executable, "-m", "nervous", *args], stdout=write, stderr=subprocess.PIPE,
                              text=True, env=env, cwd=nervous_home.parent, timeout=90)
        os.close(write)
        assert proc.returncode == 1, (args, proc.stderr)
        assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr, proc.stderr


def test_an_argument_named_json_after_a_double_dash_is_data(tmp_path: Path, nervous_home: Path) -> None:
    folder = tmp_path / "work"
    folder.mkdir()
    skill = folder / "--json"
    skill.mkdir()
    (skill / "SKILL.md").write_text(SKILL, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("NERVOUS_")}
    env.update(NERVOUS_HOME=str(nervous_home))
    proc = subprocess.run([sys.executable, "-m", "nervous", "scan", "--", "--json"], capture_output=True, text=True,
                          env=env, cwd=folder, timeout=90)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() and not proc.stdout.lstrip().startswith("{")  # the table, on standard output


def test_a_report_format_returning_a_non_string_blames_its_plugin(tmp_path: Path, nervous_home: Path) -> None:
    site = _site(tmp_path, "fmt", """
        from nervous.plugin import Provider, hookimpl
        @hookimpl
        def nervous_report_formats():
            return [Provider("numbers", "a report as a number", lambda ctx: (lambda report: 12345))]
    """)
    res = _run(site, nervous_home, "scan", str(_skill(tmp_path)), "--format", "numbers")
    assert res.returncode == 1, (res.stdout, res.stderr)
    assert "plugin 'fmt' failed" in res.stderr and "expected the report as a string" in res.stderr
    assert "-p no:fmt" in res.stderr and "Traceback" not in res.stderr


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
