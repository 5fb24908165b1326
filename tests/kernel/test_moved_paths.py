"""Documented module paths from before the layer folders keep importing: the same module object,
one DeprecationWarning for code outside nervous, none for nervous itself; nothing in the project
still uses an old path."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from nervous import _moved

ROOT = Path(__file__).parents[2]

CHECK = r"""
import importlib, json, sys, warnings
import nervous
from nervous._moved import MOVED
same = {}
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for old, new in MOVED.items():
        first = importlib.import_module(old)
        again = importlib.import_module(old)
        same[old] = first is again is importlib.import_module(new) is sys.modules[old]
    for old in MOVED:  # a second round: already imported, no warning
        importlib.import_module(old)
print(json.dumps({"same": same, "warnings": [(w.category.__name__, str(w.message)) for w in caught]}))
"""


def _run(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          cwd=ROOT).stdout


def test_each_documented_old_path_imports_warns_once_and_is_the_same_module() -> None:
    result = json.loads(_run(CHECK))
    assert result["same"] == dict.fromkeys(_moved.MOVED, True)
    # one warning per old path (a package's first submodule import warns for the package too)
    expected = [["DeprecationWarning", f"{old} moved to {new}; import it from there"] for old, new in _moved.MOVED.items()]
    assert sorted(result["warnings"]) == sorted(expected)


def test_import_statements_and_attributes_warn_at_the_importing_line() -> None:
    code = ("import warnings; warnings.simplefilter('error')\n"
            "try:\n"
            "    from nervous.records import SkillRef\n"
            "except DeprecationWarning as e:\n"
            "    print('statement:', e)\n"
            "warnings.simplefilter('always')\n"
            "import nervous\n"
            "with warnings.catch_warnings(record=True) as caught:\n"
            "    gate = nervous.gate\n"
            "    from nervous import installer\n"
            "    import nervous.cortex.engine\n"
            "import nervous.engines.install.gate as g, nervous.engines.install.installer as i\n"
            "import nervous.engines.cortex.engine as e\n"
            "print('same:', gate is g, installer is i, nervous.cortex.engine is e)\n"
            "print('caught:', sorted((str(w.message).split()[0], w.filename) for w in caught))\n")
    out = _run(code).splitlines()
    assert out[0] == "statement: nervous.records moved to nervous.kernel.records; import it from there"
    assert out[1] == "same: True True True"
    assert out[2] == ("caught: [('nervous.cortex', '<string>'), ('nervous.cortex.engine', '<string>'), "
                      "('nervous.gate', '<string>'), ('nervous.installer', '<string>')]")


def test_nervous_itself_imports_old_paths_silently() -> None:
    # a module of the nervous package importing an old path (as code merged from before the move would)
    code = ("import warnings, types; warnings.simplefilter('error')\n"
            "m = types.ModuleType('nervous.kernel.probe')\n"
            "exec('import nervous.storage as s', m.__dict__)\n"
            "import nervous.kernel.storage\n"
            "print(m.s is nervous.kernel.storage)\n")
    assert _run(code).strip() == "True"


def test_undocumented_old_paths_are_gone() -> None:
    for name in ("nervous.http", "nervous.clock", "nervous.cli", "nervous.search", "nervous.scan_target"):
        with pytest.raises(ModuleNotFoundError):
            __import__(name)


def _python_files() -> list[Path]:
    out = []
    for top in ("nervous", "plugins", "tests", "benchmarks", "examples"):
        out += [p for p in (ROOT / top).rglob("*.py") if ".venv" not in p.parts and p.name != Path(__file__).name]
    return out


def test_the_project_uses_no_old_path() -> None:
    bad = []
    for path in _python_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names if node.module == "nervous"]
            bad += [f"{path.relative_to(ROOT)}:{node.lineno}: {n}" for n in names if _moved.new_name(n)]
    assert bad == []
