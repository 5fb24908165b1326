"""Run the ``nervous`` command line in-process, as a test would run it in a shell.

Subprocesses cost start-up time per call; in-process runs share the interpreter while keeping
what matters: the exit code, stdout and stderr kept apart, and the JSON answer parsed.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import textwrap
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from attrs import frozen


@frozen
class CliResult:
    """One run of the CLI: ``exit_code``, ``stdout``, ``stderr`` and ``json`` (``None`` unless JSON)."""

    args: tuple[str, ...]
    exit_code: int
    stdout: str
    stderr: str

    @property
    def json(self) -> Any:
        try:
            return json.loads(self.stdout)
        except ValueError:
            return None

    @property
    def returncode(self) -> int:  # the name subprocess results use, so helpers can take either
        return self.exit_code


class _Stream(io.TextIOWrapper):
    """A UTF-8 text stream with a binary ``buffer`` under it (as a pipe has), never a terminal."""

    def __init__(self, data: bytes = b"") -> None:
        super().__init__(io.BytesIO(data), encoding="utf-8", errors="surrogateescape", newline=None,
                         write_through=True)

    def isatty(self) -> bool:
        return False

    def getvalue(self) -> str:
        self.flush()
        raw = self.buffer.getvalue()  # type: ignore[attr-defined]
        return str(raw.decode("utf-8", "replace"))


@contextlib.contextmanager
def _environment(env: Mapping[str, str | None], cwd: Path | None) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in env}
    old_cwd = os.getcwd()
    try:
        for k, v in env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        if cwd is not None:
            os.chdir(cwd)
        yield
    finally:
        os.chdir(old_cwd)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def run_cli(*args: str, input: str | None = None, env: Mapping[str, str | None] | None = None,
            cwd: Path | None = None, environ: Mapping[str, str] | None = None) -> CliResult:
    """Run ``nervous ARGS...`` in this process and return what a shell would see.

    ``env`` changes variables for the run (``None`` removes one); ``environ`` is instead the whole
    environment, as a child process would get it (every other variable is removed for the run).
    """
    import sys

    if environ is not None:
        env = {**{k: None for k in os.environ if k not in environ}, **environ, **(env or {})}

    from ..frontends.launch import main  # the console script: what a shell runs

    out, err = _Stream(), _Stream()
    old_stdin = sys.stdin
    try:
        sys.stdin = _Stream((input or "").encode("utf-8"))
        with _environment(env or {}, cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exc:  # a command that exits the interpreter itself
                code = exc.code if isinstance(exc.code, int) else 1
    finally:
        sys.stdin = old_stdin
    return CliResult(tuple(args), int(code or 0), out.getvalue(), err.getvalue())


def write_distribution(site: Path, dist: str, modules: Mapping[str, str], entry_points: Mapping[str, str],
                       version: str = "1.0.0") -> Path:
    """Lay out an installed distribution in ``site`` as an installer would: code plus ``.dist-info``.

    ``modules`` maps module names to source; ``entry_points`` maps ``nervous`` entry-point names to
    ``module[:attr]``. Put ``site`` on ``sys.path`` (or ``PYTHONPATH``) to make it visible.
    """
    site.mkdir(parents=True, exist_ok=True)
    for module, source in modules.items():
        target = site.joinpath(*module.split(".")).with_suffix(".py")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(source), encoding="utf-8")
    info = site / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n", encoding="utf-8")
    eps = "".join(f"{name} = {value}\n" for name, value in entry_points.items())
    (info / "entry_points.txt").write_text(f"[nervous]\n{eps}", encoding="utf-8")
    (info / "RECORD").write_text("", encoding="utf-8")
    return info


__all__ = ["CliResult", "run_cli", "write_distribution"]
