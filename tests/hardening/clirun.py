"""Run the real ``nervous`` command line in this process (fast) or in a subprocess (when needed).

In-process runs go through :func:`nervous.frontends.cli.app.run_main`, the same error contract as the
installed command, with the environment and working directory of the call and captured output.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from attrs import frozen
from click.testing import CliRunner

from nervous.frontends.cli import main
from nervous.frontends.cli.app import run_main

#: exit codes documented in docs/cli.md for an ordinary call (70 is a bug)
DOCUMENTED = {0, 1, 2, 3}


@frozen
class Result:
    code: int
    stdout: str
    stderr: str

    def envelope(self) -> dict[str, Any]:
        """The single JSON object a ``--json`` call printed (fails the test otherwise)."""
        data = json.loads(self.stdout)
        assert isinstance(data, dict), self.stdout[:300]
        assert isinstance(data.get("ok"), bool), self.stdout[:300]
        assert isinstance(data.get("warnings"), list), self.stdout[:300]
        return data


def environment(home: Path, **extra: str) -> dict[str, str | None]:
    """A clean environment: no NERVOUS_* from the caller, built-in plugins only, ``home`` as NERVOUS_HOME."""
    env: dict[str, str | None] = {k: None for k in os.environ if k.startswith("NERVOUS_")}
    env.update(NERVOUS_HOME=str(home), NERVOUS_DISABLE_PLUGIN_AUTOLOAD="1", NERVOUS_REGISTRIES="local")
    env.update(extra)
    return env


def run(home: Path, *args: str, cwd: Path | None = None, stdin: str | None = None, **env: str) -> Result:
    """``nervous ARGS`` in this process."""
    runner = CliRunner()
    previous = os.getcwd()
    os.chdir(cwd or home.parent)
    try:
        with runner.isolation(input=stdin, env=environment(home, **env)) as (out, err, _):
            try:
                code = run_main(main, list(args))
            except SystemExit as exc:  # a command that ends the process itself (goal call)
                code = exc.code if isinstance(exc.code, int) else 1
            stdout, stderr = out.getvalue(), err.getvalue()
    finally:
        os.chdir(previous)
    return Result(code, stdout.decode("utf-8", "replace"), stderr.decode("utf-8", "replace"))


def run_process(home: Path, *args: str, cwd: Path | None = None, timeout: float = 60,
                **env: str) -> Result:
    """``python -m nervous ARGS`` in a child process (for what must not share this process)."""
    full = {k: v for k, v in os.environ.items() if not k.startswith("NERVOUS_")}
    full.update({k: v for k, v in environment(home, **env).items() if v is not None})
    proc = subprocess.run([sys.executable, "-m", "nervous", *args], capture_output=True, text=True,
                          env=full, cwd=cwd or home.parent, timeout=timeout)
    return Result(proc.returncode, proc.stdout, proc.stderr)


def unchanged(before: dict[str, bytes], after: dict[str, bytes]) -> list[str]:
    """Files of ``before`` that were removed or rewritten in ``after`` (new files are allowed; the
    audit log may only grow, keeping every earlier line)."""
    changed = []
    for name, data in before.items():
        now = after.get(name)
        if name.endswith("audit.jsonl") and now is not None and now.startswith(data):
            continue
        if now != data:
            changed.append(name)
    return changed


def tree(root: Path) -> dict[str, bytes]:
    """Every regular file under ``root`` with its bytes (the stored state, to compare before/after)."""
    out: dict[str, bytes] = {}
    if not root.exists():
        return out
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            p = Path(dirpath) / name
            if p.is_file() and not p.is_symlink():
                out[str(p.relative_to(root))] = p.read_bytes()
    return out
