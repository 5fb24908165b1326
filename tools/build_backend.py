"""The build backend: setuptools, with the compiled review policy in every wheel that can have it.

A wheel (``pip install .``, ``pip wheel .``) compiles the review policy's analysers with mypyc, as mypy and
black ship theirs: 0.8-0.9x the CPU of a scan. This backend asks for what that needs in the isolated build
environment (mypy, and the project's own dependencies, which mypy reads to type the code it compiles); an
editable install asks for nothing more, since it never compiles (its extensions would be imported instead of
the sources being edited). ``setup.py`` decides whether to compile (``NERVOUS_USE_MYPYC``: unset or ``auto``
compiles when it can and builds pure Python otherwise, ``1`` must compile, ``0`` never does).
"""

from __future__ import annotations

import os
import re
import shutil
import sysconfig
import tomllib
from pathlib import Path
from typing import Any

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403 - every hook not defined here is setuptools' own

HERE = Path(__file__).resolve().parent.parent


def choice() -> str:
    """``auto``, ``1`` or ``0``: what ``NERVOUS_USE_MYPYC`` asks for (anything else is an error)."""
    value = os.environ.get("NERVOUS_USE_MYPYC", "auto").strip().lower() or "auto"
    if value not in ("auto", "1", "0"):
        raise SystemExit(f"NERVOUS_USE_MYPYC={value!r}: use 1 (compile), 0 (pure Python) or auto (compile when "
                         "the build can: mypy, a C compiler and the Python headers)")
    return value


def missing_toolchain() -> str | None:
    """What keeps this environment from compiling the review policy, or None."""
    import importlib.util

    if importlib.util.find_spec("mypyc") is None:
        return "mypyc (mypy) is not installed"
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if not shutil.which(cc):
        return f"no C compiler ({cc})"
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        return "no Python headers"
    return None


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    extra: list[str] = []
    if choice() != "0":
        project = tomllib.loads((HERE / "pyproject.toml").read_text("utf-8"))["project"]
        extra = [_compiler(project), *project["dependencies"]]
    return [*_setuptools.get_requires_for_build_wheel(config_settings), *extra]


def _compiler(project: dict[str, Any]) -> str:
    """mypy, as the test extra asks for it (it type-checks the same code there): one version range for both."""
    for requirement in project["optional-dependencies"]["test"]:
        if re.match(r"mypy\s*(?:[<>=!~;\[]|$)", requirement):
            return str(requirement)
    raise SystemExit("pyproject.toml: the test extra names no mypy, which compiles the review policy")
