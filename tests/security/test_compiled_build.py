"""The compiled review policy (every wheel's, setup.py) decides exactly as the pure one.

A wheel is built as ``pip install .`` builds one, with the analysers compiled, and every technique variant and
look-alike of test_technique_variants.py is scanned in two child processes: one importing the wheel, one
the source. The reports must be identical, and the wheel's modules must really be the compiled ones. A wheel
whose C extensions do not compile is pure Python, and says so.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: scans every case of the technique-variant suite and prints, as one JSON object, each case's report
#: (decision, reasons, findings, capabilities) and the file each compiled-list module was loaded from
CHILD = r"""
import importlib, json, sys
sys.path.insert(0, sys.argv[1])
from security.test_technique_variants import BENIGN, MALICIOUS
from security.helpers import bundle
from nervous.engines.scan.engine import scan_bundle
from nervous.kernel.config import Config
from nervous.kernel.manager import PluginManager
from nervous.kernel.records import ScanContext

pm = PluginManager(Config(), autoload=False)
reports = {}
for case in MALICIOUS + BENIGN:
    rep = scan_bundle(pm, bundle(case.files), ScanContext(purpose=case.purpose)).report
    reports[case.id] = {k: rep[k] for k in ("decision", "reasons", "findings", "capabilities", "intent")}
modules = {m: importlib.import_module(m).__file__ for m in json.loads(sys.argv[2])}
print(json.dumps({"reports": reports, "modules": modules}, sort_keys=True, default=str))
"""


def _missing_toolchain() -> str | None:
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        from build_backend import missing_toolchain
    finally:
        sys.path.remove(str(ROOT / "tools"))
    return missing_toolchain()  # type: ignore[no-any-return]


def _source_tree(tmp_path: Path) -> Path:
    """The files a wheel is built from, copied without any build left over."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    for tree in ("nervous", "plugins", "tools"):
        shutil.copytree(ROOT / tree, src / tree, ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.egg-info"))
    return src


def _wheel(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> tuple[Path, str]:
    """A wheel of the source tree (``pip wheel`` with ``args``) unpacked, and what the build printed."""
    src = _source_tree(tmp_path)
    out = subprocess.run([sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", *args, str(src), "-w",
                          str(tmp_path / "dist")], env={**os.environ, **(env or {})}, capture_output=True, text=True,
                         timeout=1200, cwd=tmp_path)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    (wheel,) = (tmp_path / "dist").glob("nervous-*.whl")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(site)
    return site, out.stdout + out.stderr


def _require_toolchain() -> None:
    missing = _missing_toolchain()
    if missing:
        if os.environ.get("NERVOUS_REQUIRE_COMPILED_BUILD") == "1":
            pytest.fail(f"the compiled build is required here, but {missing}")
        pytest.skip(missing)


def _compiled_modules() -> list[str]:
    paths = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["nervous-build"]["mypyc"]
    return [str(Path(p).relative_to("plugins").with_suffix("")).replace("/", ".") for p in paths]


def _scan_all(python_path: str | None, modules: list[str]) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if python_path:
        env["PYTHONPATH"] = python_path
    out = subprocess.run([sys.executable, "-c", CHILD, str(ROOT / "tests"), json.dumps(modules)], env=env,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout)  # type: ignore[no-any-return]


@pytest.mark.slow
def test_the_compiled_review_policy_reports_exactly_what_the_pure_one_does(tmp_path: Path) -> None:
    _require_toolchain()
    # as ``pip install .`` builds it: in an isolated environment the build backend fills (mypy, the dependencies)
    site, _ = _wheel(tmp_path, env={"NERVOUS_USE_MYPYC": ""})

    modules = _compiled_modules()
    compiled = _scan_all(str(site), modules)
    pure = _scan_all(None, modules)

    suffixes = tuple(sysconfig.get_config_var("EXT_SUFFIX").split())
    assert all(str(f).endswith(suffixes) and str(f).startswith(str(site)) for f in compiled["modules"].values()), \
        compiled["modules"]
    assert all(str(f).endswith(".py") for f in pure["modules"].values()), pure["modules"]
    reports_c, reports_p = compiled["reports"], pure["reports"]
    assert isinstance(reports_c, dict) and isinstance(reports_p, dict)
    assert len(reports_p) > 250
    differing = sorted(k for k in reports_p if reports_c.get(k) != reports_p[k])
    assert not differing, f"the compiled build reports otherwise on {differing}"


@pytest.mark.parametrize("command", ["develop", "editable_wheel"])
def test_a_compiled_build_refuses_to_install_in_place(tmp_path: Path, command: str) -> None:
    """An extension built beside its source would be imported instead of the source a developer edits."""
    shutil.copy2(ROOT / "setup.py", tmp_path / "setup.py")
    shutil.copy2(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    shutil.copytree(ROOT / "tools", tmp_path / "tools")
    out = subprocess.run([sys.executable, "setup.py", command], cwd=tmp_path, capture_output=True, text=True,
                         timeout=120, env={**os.environ, "NERVOUS_USE_MYPYC": "1"})
    assert out.returncode == 1
    assert "NERVOUS_USE_MYPYC=1 builds wheels only" in out.stderr
    assert not any(p.suffix in (".c", ".so") for p in tmp_path.rglob("*")), "nothing may be built"


@pytest.mark.slow
def test_a_wheel_whose_extensions_do_not_compile_is_pure_python(tmp_path: Path) -> None:
    """A machine whose C compiler fails still installs nervous: the same wheel, without the extensions."""
    _require_toolchain()
    site, said = _wheel(tmp_path, "--no-build-isolation", "--no-index", env={"NERVOUS_USE_MYPYC": "auto", "CC": "false"})
    assert "built as pure Python: its C extensions did not compile" in said
    assert not list(site.rglob("*.so"))
    assert (site / "nervous_plugins" / "review_policy" / "rx.py").is_file()


def test_an_unknown_compile_setting_is_refused(tmp_path: Path) -> None:
    shutil.copy2(ROOT / "setup.py", tmp_path / "setup.py")
    shutil.copy2(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    shutil.copytree(ROOT / "tools", tmp_path / "tools")
    out = subprocess.run([sys.executable, "setup.py", "--name"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=120, env={**os.environ, "NERVOUS_USE_MYPYC": "yes"})
    assert out.returncode == 1
    assert "NERVOUS_USE_MYPYC='yes': use 1 (compile), 0 (pure Python) or auto" in out.stderr
