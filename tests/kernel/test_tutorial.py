"""docs/plugins/tutorial.md runs: its code blocks are the example distributions' files, both are
installed with pip into a fresh target, and the commands the tutorial shows work on them."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
TUTORIAL = ROOT / "docs" / "plugins" / "tutorial.md"
EXAMPLES = ("nervous-demo-registry", "nervous-tutorial-store")


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```$", TUTORIAL.read_text(encoding="utf-8"), re.M | re.S)


def test_every_file_block_is_the_file() -> None:
    text = TUTORIAL.read_text(encoding="utf-8")
    marked = re.findall(r"^<!-- file: (\S+) -->\n```\w+\n(.*?)^```$", text, re.M | re.S)
    files = {str(p.relative_to(ROOT)) for name in EXAMPLES for p in (ROOT / "examples" / name).rglob("*")
             if p.is_file() and p.suffix in (".py", ".toml")}
    assert {path for path, _ in marked} == files, "every example file is shown, and only those"
    for path, body in marked:
        assert (ROOT / path).read_text(encoding="utf-8") == body, f"{path} differs from its block in the tutorial"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Both distributions installed with pip (no dependencies: nervous is the one under test)."""
    work = tmp_path_factory.mktemp("tutorial")
    target = work / "site"
    for name in EXAMPLES:
        source = work / name
        shutil.copytree(ROOT / "examples" / name, source)  # build in a copy: the tree stays clean
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                        "--disable-pip-version-check", "--target", str(target), str(source)],
                       check=True, capture_output=True, timeout=300)
    assert list(target.glob("nervous_tutorial_store-1.0.0.dist-info"))
    yield target


def _nervous(site: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NERVOUS_")}
    env.update(PYTHONPATH=str(site), NERVOUS_HOME=str(home / ".home"))
    return subprocess.run([sys.executable, "-m", "nervous", *args], capture_output=True, text=True, env=env,
                          cwd=home, timeout=120)


def test_the_registry_tutorial(installed: Path, tmp_path: Path) -> None:
    (tmp_path / "catalog.json").write_text(_blocks("json")[0], encoding="utf-8")
    config = re.search(r"^\$ cat \.nervous\.toml\n(.*?)^\$ nervous", _blocks("console")[0], re.M | re.S)
    assert config is not None
    (tmp_path / ".nervous.toml").write_text(config.group(1), encoding="utf-8")
    plugins = {p["name"]: p for p in json.loads(_nervous(installed, tmp_path, "plugins", "--json").stdout)["plugins"]}
    assert plugins["demo"]["status"] == "active" and plugins["demo"]["providers"] == {"registry": ["demo"]}
    assert plugins["demo"]["distribution"] == "nervous-demo-registry"
    found = _nervous(installed, tmp_path, "search", "weather", "--json")
    assert found.returncode == 0, found.stderr
    assert [h["ref"] for h in json.loads(found.stdout)["hits"]] == ["demo:weather"]
    (tmp_path / ".nervous.toml").write_text('[registries]\nuse = ["demo"]\n', encoding="utf-8")
    invalid = _nervous(installed, tmp_path, "config", "validate")
    assert invalid.returncode == 2 and "plugins.demo.catalog" in invalid.stderr


def test_the_storage_tutorial(installed: Path, tmp_path: Path) -> None:
    commands = re.findall(r"^\$ nervous (.*)$", _blocks("console")[1], re.M)
    assert len(commands) == 3
    for command in commands:
        args = shlex.split(command)
        res = _nervous(installed, tmp_path, *args, "--json")
        assert res.returncode == 0, (command, res.stdout, res.stderr)
    info = json.loads(_nervous(installed, tmp_path, "-c", 'storage.backend="tutorial-store"', "storage", "info",
                               "--json").stdout)
    assert (info["backend"], info["schema_version"]) == ("tutorial-store", 1)


@pytest.mark.slow
def test_the_tutorial_store_passes_the_storage_kit(installed: Path, tmp_path: Path) -> None:
    kit = next(b for b in _blocks("python") if "StoreConformance" in b and "class Test" in b)
    (tmp_path / "test_tutorial_store.py").write_text(kit, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("NERVOUS_")}
    env["PYTHONPATH"] = str(installed)
    res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x",
                          str(tmp_path / "test_tutorial_store.py")], capture_output=True, text=True, env=env,
                         cwd=tmp_path, timeout=600)
    assert res.returncode == 0, res.stdout[-3000:]
    assert re.search(r"\d+ passed", res.stdout)
