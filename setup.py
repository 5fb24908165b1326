"""Build hook for the optional compiled review policy.

``NERVOUS_USE_MYPYC=1`` compiles the review policy's analysers with mypyc, as mypy and black ship theirs:
the same typed source, a C extension beside each module, 0.8-0.9x the CPU of a scan. Without it (the
default) the package is pure Python and every other setting lives in ``pyproject.toml``. A compiled build
needs mypy, a C compiler and the Python headers, and the project's dependencies in the building
environment (``pip wheel --no-build-isolation``); the modules compiled are listed in ``pyproject.toml``
under ``mypyc`` of ``[tool.nervous-build]``.
"""

from __future__ import annotations

import os
import sys
import tomllib
from pathlib import Path
from typing import Any

from setuptools import setup

HERE = Path(__file__).resolve().parent


#: commands that install the source tree in place: an extension built there would be imported instead of the
#: source being edited, so a compiled build refuses them
IN_PLACE = ("develop", "editable_wheel")


def compiled_modules() -> list[Any]:
    if os.environ.get("NERVOUS_USE_MYPYC", "0") != "1":
        return []
    if any(arg in IN_PLACE for arg in sys.argv[1:]):
        raise SystemExit("NERVOUS_USE_MYPYC=1 builds wheels only: in an editable install the compiled modules would "
                         "be imported instead of the sources you edit. Unset it, or build a wheel: "
                         "NERVOUS_USE_MYPYC=1 pip wheel --no-build-isolation --no-deps . -w dist/")
    from mypyc.build import mypycify

    modules = tomllib.loads((HERE / "pyproject.toml").read_text("utf-8"))["tool"]["nervous-build"]["mypyc"]
    # the built-in plugins' packages live under plugins/: mypy must see them as top-level packages there
    os.environ["MYPYPATH"] = str(HERE / "plugins")
    return mypycify([str(Path(m)) for m in modules], opt_level="3")


setup(ext_modules=compiled_modules())
