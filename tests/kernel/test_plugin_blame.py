"""A bug inside a provider's method is blamed on its plugin, through the CLI, never an internal error.

The plugins are real distributions laid out on ``sys.path`` and found through their entry points.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from nervous.testing.cli import write_distribution

BROKEN = r'''
import hashlib
import os

import nervous
from nervous.kernel.records import FileDigest, SearchHit, SkillBundle, SkillFile, SkillMetadata, SkillRef, SkillVersion
from nervous import Provider
from nervous.kernel.storage import Store


def _boom(what):
    def method(self, *args, **kwargs):
        raise RuntimeError(f"kaboom in {what}")
    return method


SKILL = b"---\nname: demo\ndescription: says hello\n---\nSay hello.\n"


class Registry:
    """Answers like a healthy registry, except the one method named by SHAKY_FAIL (all when unset)."""

    name = "shaky"

    def __getattribute__(self, attr):
        failing = os.environ.get("SHAKY_FAIL", "*")
        if attr in ("search", "resolve", "versions", "version", "fetch") and failing in ("*", attr):
            return _boom(attr).__get__(self)
        return object.__getattribute__(self, attr)

    def search(self, query, limit=10):
        return [SearchHit("shaky", SkillRef("demo"), "Demo", version="1.0.0")]

    def resolve(self, ref):
        return SkillMetadata("shaky", SkillRef("demo"), "Demo", latest_version="1.0.0", versions=("1.0.0",))

    def versions(self, ref):
        return [SkillVersion("1.0.0")]

    def version(self, ref, version=None):
        return SkillVersion("1.0.0", files=(FileDigest("SKILL.md", len(SKILL), hashlib.sha256(SKILL).hexdigest()),))

    def fetch(self, ref, version=None):
        return SkillBundle(SkillRef("demo"), (SkillFile("SKILL.md", SKILL),), version="1.0.0", registry="shaky")


class Shelf(Store):
    name = "shelf"
    read = _boom("read")
    keys = _boom("keys")
    update = _boom("update")
    delete = _boom("delete")
    append = _boom("append")
    read_log = _boom("read_log")
    info = _boom("info")
    check = _boom("check")


class Policy:
    name = "fussy"
    decide = _boom("decide")


@nervous.hookimpl
def nervous_registries():
    return [Provider("shaky", "always fails", lambda ctx: Registry())]


@nervous.hookimpl
def nervous_storage_backends():
    return [Provider("shelf", "always fails", lambda ctx: Shelf())]


@nervous.hookimpl
def nervous_review_policies():
    return [Provider("fussy", "always fails", lambda ctx: Policy())]
'''


@pytest.fixture
def broken_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    site = tmp_path / "site"
    write_distribution(site, "nervous-shaky", {"nervous_shaky": BROKEN}, {"shaky": "nervous_shaky"})
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.delitem(__import__("sys").modules, "nervous_shaky", raising=False)
    return "shaky"


def _blamed(res: Any, operation: str) -> None:
    assert res.exit_code in (1, 3), (res.exit_code, res.stdout, res.stderr)
    text = res.stdout + res.stderr
    assert f"plugin 'shaky' failed in {operation}" in text, text
    assert "kaboom" in text and "(disable it with -p no:shaky)" in text
    assert "internal error" not in text


@pytest.mark.parametrize(("method", "args"), [
    ("resolve", ["inspect", "demo"]),
    ("versions", ["inspect", "demo"]),
    ("version", ["inspect", "demo", "--files"]),
    ("version", ["install", "demo", "--yes"]),
    ("fetch", ["install", "demo", "--yes"]),
])
def test_registry_method_failures_name_the_plugin(nervous_cli: Any, broken_plugin: str, method: str,
                                                  args: list[str]) -> None:
    env = {"SHAKY_FAIL": method}
    for as_json in (False, True):
        res = nervous_cli("-c", 'registries.use=["shaky"]', *args, *(["--json"] if as_json else []), env=env)
        _blamed(res, f"{method}() of registry 'shaky'")
        if as_json:
            assert res.json["ok"] is False and res.json["error"]["code"] == "plugin_error"
    healthy = nervous_cli("-c", 'registries.use=["shaky"]', *args, env={"SHAKY_FAIL": "none"})
    assert healthy.exit_code == 0, healthy.stderr


def test_a_failing_registry_in_search_is_reported_by_plugin(nervous_cli: Any, broken_plugin: str) -> None:
    res = nervous_cli("-c", 'registries.use=["shaky"]', "search", "notes", "--json")
    assert res.exit_code == 3
    statuses = {r["registry"]: r for r in res.json["registries"]}
    assert "plugin 'shaky' failed in search() of registry 'shaky': RuntimeError: kaboom in search" \
        in statuses["shaky"]["message"]


@pytest.mark.parametrize(("args", "operation"), [
    (["storage", "info"], "info() of storage backend 'shelf'"),
    (["storage", "check"], "check() of storage backend 'shelf'"),
    (["audit"], "read_log() of storage backend 'shelf'"),
])
def test_storage_method_failures_name_the_plugin(nervous_cli: Any, broken_plugin: str, args: list[str],
                                                 operation: str) -> None:
    _blamed(nervous_cli("-c", 'storage.backend="shelf"', *args), operation)


def test_review_policy_failures_name_the_plugin(nervous_cli: Any, broken_plugin: str, tmp_path: Path) -> None:
    skill = tmp_path / "skill"
    skill.mkdir()
    (skill / "SKILL.md").write_text("---\nname: demo\ndescription: says hello\n---\nSay hello.\n", encoding="utf-8")
    _blamed(nervous_cli("-c", 'review.policy="fussy"', "scan", str(skill)), "decide() of review policy 'fussy'")
