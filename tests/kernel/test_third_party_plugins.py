"""A real third-party plugin distribution on sys.path, found through the ``nervous`` entry points."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).parents[2] / "examples" / "nervous-demo-registry"


def _dist(site: Path, dist: str, module: str, source: str | None, ep_name: str) -> None:
    """Lay out a distribution as an installer would: the code plus a ``.dist-info`` with entry points."""
    if source is None:  # the documented example plugin, unchanged
        shutil.copytree(EXAMPLE / "src" / "nervous_demo_registry", site / "nervous_demo_registry")
    else:
        (site / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    info = site / f"{dist.replace('-', '_')}-1.2.3.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.2.3\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[nervous]\n{ep_name} = {module}\n", encoding="utf-8")
    (info / "RECORD").write_text("", encoding="utf-8")


@pytest.fixture
def site(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    site.mkdir()
    _dist(site, "nervous-demo-registry", "nervous_demo_registry.plugin", None, "demo")
    _dist(site, "nervous-broken", "nervous_broken", "raise RuntimeError('broken on purpose')\n", "broken")
    return site


def run(site: Path, home: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith("NERVOUS_")}
    e.update({"PYTHONPATH": str(site), "NERVOUS_HOME": str(home)}, **(env or {}))
    return subprocess.run([sys.executable, "-m", "nervous", *args], capture_output=True, text=True, env=e,
                          cwd=home, timeout=60)


def plugins_by_name(out: str) -> dict[str, dict]:
    data = json.loads(out)
    assert data["ok"] is True
    return {p["name"]: p for p in data["plugins"]}


def test_third_party_plugin_is_listed_with_its_distribution(site: Path, nervous_home: Path) -> None:
    res = run(site, nervous_home, "plugins", "--json")
    assert res.returncode == 0, res.stderr
    plugins = plugins_by_name(res.stdout)
    demo = plugins["demo"]
    assert (demo["distribution"], demo["version"], demo["source"], demo["status"]) == (
        "nervous-demo-registry", "1.2.3", "entry point", "active")
    assert demo["hooks"] == ["nervous_registries"]
    broken = plugins["broken"]
    assert broken["status"] == "failed"
    assert "broken on purpose" in broken["reason"]
    # every other command keeps working despite the broken plugin
    assert run(site, nervous_home, "config", "show", "--json").returncode == 0
    assert run(site, nervous_home, "--version").returncode == 0


def test_hook_filter(site: Path, nervous_home: Path) -> None:
    res = run(site, nervous_home, "plugins", "--json", "--hook", "nervous_registries")
    names = set(plugins_by_name(res.stdout))
    assert "demo" in names and "broken" not in names
    bad = run(site, nervous_home, "plugins", "--hook", "nervous_nope")
    assert bad.returncode == 2 and "unknown hook" in bad.stderr


@pytest.mark.parametrize("how", [["-p", "no:demo"], ["-p", "no:nervous-demo-registry"]])
def test_plugin_can_be_blocked_by_entry_point_or_distribution_name(site: Path, nervous_home: Path,
                                                                    how: list[str]) -> None:
    res = run(site, nervous_home, *how, "plugins", "--json")
    assert res.returncode == 0, res.stderr
    assert plugins_by_name(res.stdout)["demo"]["status"] == "blocked"


def test_blocking_by_environment_and_disabling_autoload(site: Path, nervous_home: Path) -> None:
    res = run(site, nervous_home, "plugins", "--json", env={"NERVOUS_DISABLE_PLUGINS": "demo,broken"})
    plugins = plugins_by_name(res.stdout)
    assert plugins["demo"]["status"] == plugins["broken"]["status"] == "blocked"
    for args, env in ((["--disable-plugin-autoload"], {}), ([], {"NERVOUS_DISABLE_PLUGIN_AUTOLOAD": "1"})):
        res = run(site, nervous_home, *args, "plugins", "--json", env=env)
        names = set(plugins_by_name(res.stdout))
        assert "demo" not in names and "broken" not in names


def test_strict_mode_makes_a_failed_plugin_fatal(site: Path, nervous_home: Path) -> None:
    res = run(site, nervous_home, "plugins", env={"NERVOUS_STRICT_PLUGINS": "1"})
    assert res.returncode != 0
    assert "broken" in res.stderr and "Traceback" not in res.stderr


def test_configuration_selects_the_third_party_registry(site: Path, nervous_home: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(site))
    from nervous.kernel.config import load_config
    from nervous.kernel.manager import PluginManager

    catalog = nervous_home / "catalog.json"
    catalog.write_text(json.dumps({"skills": {"weather": {"summary": "Forecasts for a city", "version": "2.0.0",
                                                          "files": {"SKILL.md": "---\nname: weather\n---\n"}}}}))
    (nervous_home / ".nervous.toml").write_text(
        f'[registries]\nuse = ["demo"]\n[plugins.demo]\ncatalog = "{catalog}"\n', encoding="utf-8")
    cfg = load_config(cwd=nervous_home)
    pm = PluginManager(cfg)
    [registry] = pm.registries()
    assert registry.name == "demo"
    [hit] = registry.search("city forecasts")
    assert (str(hit.ref), hit.version) == ("demo:weather", "2.0.0")
    assert registry.fetch(hit.ref).skill_md is not None
    assert pm.provider("registry", "demo").plugin == "demo"
    blocked = PluginManager(cfg, blocked=["nervous-demo-registry"])
    with pytest.raises(Exception, match="unknown registry 'demo'"):
        blocked.registries()
