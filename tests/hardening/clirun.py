"""Run the real ``nervous`` command line in this process, with a clean environment, and compare
stored state before and after.

Runs go through :func:`nervous.testing.cli.run_cli` (the ``nervous_cli`` fixture's runner): the same
error contract as the installed command, with the environment and working directory of the call.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from attrs import frozen

from nervous.testing.cli import run_cli

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
    """``nervous ARGS`` in this process (:func:`nervous.testing.cli.run_cli`, what ``nervous_cli`` runs)."""
    res = run_cli(*args, input=stdin, env=environment(home, **env), cwd=cwd or home.parent)
    return Result(res.exit_code, res.stdout, res.stderr)


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
