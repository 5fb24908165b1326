"""Configuration mistakes give one clear message (file, key path, expectation) and exit code 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from nervous.errors import ConfigError
from nervous.kernel.config import load_config
from nervous.testing.cli import CliResult, run_cli


def _environ(cwd: Path) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith("NERVOUS_")}
    e["NERVOUS_HOME"] = str(cwd / "home")
    return e


def nervous(cwd: Path, *args: str) -> CliResult:
    return run_cli(*args, environ=_environ(cwd), cwd=cwd)


@pytest.mark.parametrize(
    ("toml", "expected"),
    [
        ("[storage\nbackend = 'file'", "invalid TOML"),
        ("[storage]\nbackend = 3\n", "storage.backend"),
        ("[cortex]\nlearning_rate = 'fast'\n", "cortex.learning_rate"),
        ("[registries]\nuse = 'clawhub'\n", "registries.use"),
        ("[storage]\nbakend = 'file'\n", "storage: unknown key(s) bakend; expected one of: backend"),
        ("[nope]\nx = 1\n", "unknown section(s) nope"),
        ("[install]\nmax_files = -1\n", "install.max_files"),
        ("[registries]\nnamed = 5\n", "registries.named: expected a table, got int 5"),
        ("[registries]\nnamed = [1]\n", "registries.named: expected a table, got list [1]"),
        ("[plugins.mine]\nlimit = nan\n", "plugins.mine.limit: expected a finite number, got nan"),
        ("[plugins.mine]\nlimits = [1.0, {top = -inf}]\n", "plugins.mine.limits[1].top: expected a finite number"),
    ],
)
def test_bad_project_file_names_file_and_key(tmp_path: Path, toml: str, expected: str) -> None:
    (tmp_path / ".nervous.toml").write_text(toml, encoding="utf-8")
    for args in (["config", "show"], ["config", "validate"], ["plugins"]):
        res = nervous(tmp_path, *args)
        assert res.returncode == 2, res.stderr
        assert ".nervous.toml" in res.stderr and expected in res.stderr
        assert "Traceback" not in res.stderr
    res = nervous(tmp_path, "config", "show", "--json")
    data = json.loads(res.stdout)
    assert data["ok"] is False and data["error"]["code"] == "config_error"
    assert expected in data["error"]["message"]


@pytest.mark.parametrize(("toml", "problem"), [
    ('tool = "black"\n', None),  # another tool's mistake: no nervous table, nothing to refuse
    ("[tool]\nnervous = 5\n", "[tool.nervous] must be a table, got int"),
    ("[tool]\nnervous = [1]\n", "[tool.nervous] must be a table, got list"),
])
def test_a_pyproject_whose_nervous_table_is_not_a_table(tmp_path: Path, toml: str, problem: str | None) -> None:
    (tmp_path / "pyproject.toml").write_text(toml, encoding="utf-8")
    for args in (["list", "--json"], ["config", "validate", "pyproject.toml", "--json"]):
        res = nervous(tmp_path, *args)
        if problem is None:
            assert res.returncode == 0 and res.json["ok"], res.stdout
            continue
        assert res.returncode == 2, (res.stdout, res.stderr)
        assert res.json["error"]["code"] == "config_error"
        assert "pyproject.toml" in res.json["error"]["message"] and problem in res.json["error"]["message"]


def test_validate_a_named_file(tmp_path: Path) -> None:
    bad = tmp_path / "other.toml"
    bad.write_text("[review]\npolicy = ['x']\n", encoding="utf-8")
    res = nervous(tmp_path, "config", "validate", str(bad))
    assert res.returncode == 2 and "other.toml" in res.stderr and "review.policy" in res.stderr
    good = tmp_path / "good.toml"
    good.write_text("[review]\npolicy = 'default'\n", encoding="utf-8")
    assert nervous(tmp_path, "config", "validate", str(good)).returncode == 0


def test_unknown_provider_lists_the_available_ones(tmp_path: Path) -> None:
    res = nervous(tmp_path, "-c", "storage.backend='nosuch'", "config", "validate")
    assert res.returncode == 2
    assert "unknown storage backend 'nosuch'; available:" in res.stderr


DUP = '''
import nervous
from nervous.kernel.records import Provider

@nervous.hookimpl
def nervous_storage_backends():
    return [Provider("twin", "first", lambda ctx: None)]
'''


def test_duplicate_provider_names_both_plugins(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    for dist in ("nervous-one", "nervous-two"):
        mod = dist.replace("-", "_")
        (site / f"{mod}.py").write_text(textwrap.dedent(DUP), encoding="utf-8")
        info = site / f"{mod}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n", encoding="utf-8")
        (info / "entry_points.txt").write_text(f"[nervous]\n{dist[8:]} = {mod}\n", encoding="utf-8")
    # a real process: the plugins are found on the interpreter's start-up path
    res = subprocess.run([sys.executable, "-m", "nervous", "config", "validate"], capture_output=True, text=True,
                         env={**_environ(tmp_path), "PYTHONPATH": str(site)}, cwd=tmp_path, timeout=60)
    assert res.returncode == 2
    assert "'twin' is defined twice" in res.stderr
    assert "'one'" in res.stderr and "'two'" in res.stderr


def test_layers_and_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    (home / "config" / "nervous.toml").write_text("[storage]\nbackend = 'sqlite'\nlock_timeout = 7.0\n")
    project = tmp_path / "proj"
    (project / "sub").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[tool.nervous.storage]\nbackend = 'file'\n")
    monkeypatch.setenv("NERVOUS_HOME", str(home))
    monkeypatch.delenv("NERVOUS_STORAGE_BACKEND", raising=False)
    cfg = load_config(cwd=project / "sub")
    assert (cfg.storage.backend, cfg.storage.lock_timeout) == ("file", 7.0)
    assert cfg.sources[0] == "defaults" and cfg.sources[-1].endswith("[tool.nervous]")
    monkeypatch.setenv("NERVOUS_STORAGE_BACKEND", "postgres")
    assert load_config(cwd=project).storage.backend == "postgres"
    cfg = load_config(cwd=project, overrides=["storage.backend=memory"])
    assert cfg.storage.backend == "memory"
    with pytest.raises(ConfigError, match="-c 'storage': expected section.key=value"):
        load_config(cwd=project, overrides=["storage"])
