"""Build hook for the compiled review policy.

A wheel compiles the review policy's analysers with mypyc, as mypy and black ship theirs: the same typed
source, a C extension beside each module, 0.8-0.9x the CPU of a scan. The modules compiled are listed in
``pyproject.toml`` under ``mypyc`` of ``[tool.nervous-build]``; every other setting lives there too.
``NERVOUS_USE_MYPYC`` says whether to compile (tools/build_backend.py, which also brings mypy into the build
environment): unset or ``auto``, a wheel is compiled when mypy, a C compiler and the Python headers are there
and is pure Python otherwise (a note says why); ``1``, a build that cannot compile fails; ``0``, never. An
editable install is always pure Python: an extension built beside its source would be imported instead of the
source being edited (``NERVOUS_USE_MYPYC=1`` refuses it).
"""

from __future__ import annotations

import os
import sys
import tomllib
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "tools"))

from build_backend import choice, missing_toolchain  # noqa: E402

#: commands that install the source tree in place
IN_PLACE = ("develop", "editable_wheel")
#: commands that build extensions (the others only write metadata or a source archive)
BUILDS = ("bdist_wheel", "build", "build_ext", "install")


def _note(message: str) -> None:
    print(f"nervous: {message}", file=sys.stderr)


def compiled_modules() -> list[Any]:
    wanted = choice()
    commands = sys.argv[1:]
    if wanted == "0":
        return []
    if any(arg in IN_PLACE for arg in commands):
        if wanted == "1":
            raise SystemExit("NERVOUS_USE_MYPYC=1 builds wheels only: in an editable install the compiled modules "
                             "would be imported instead of the sources you edit. Unset it, or build a wheel: "
                             "pip wheel --no-deps . -w dist/")
        return []
    if not any(arg in BUILDS for arg in commands):
        return []
    missing = missing_toolchain()
    if missing:
        if wanted == "1":
            raise SystemExit(f"NERVOUS_USE_MYPYC=1, but {missing}")
        _note(f"the review policy is built as pure Python: {missing}")
        return []
    from mypyc.build import mypycify

    modules = tomllib.loads((HERE / "pyproject.toml").read_text("utf-8"))["tool"]["nervous-build"]["mypyc"]
    # the built-in plugins' packages live under plugins/: mypy must see them as top-level packages there
    os.environ["MYPYPATH"] = str(HERE / "plugins")
    try:
        return mypycify([str(Path(m)) for m in modules], opt_level="3")  # type: ignore[no-any-return]
    except (Exception, SystemExit) as exc:  # a type error ends mypycify with SystemExit
        if wanted == "1":
            raise
        _note(f"the review policy is built as pure Python: mypyc could not compile it ({exc})")
        return []


class OptionalBuildExt(build_ext):  # type: ignore[misc]
    """Extensions that fail to compile leave a pure Python build (unless ``NERVOUS_USE_MYPYC=1``)."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:
            if choice() == "1":
                raise
            for built in self.get_outputs():
                Path(built).unlink(missing_ok=True)
            _note(f"the review policy is built as pure Python: its C extensions did not compile ({exc})")


setup(ext_modules=compiled_modules(), cmdclass={"build_ext": OptionalBuildExt})
