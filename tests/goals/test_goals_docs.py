"""docs/goals.md is executed: every ``$ nervous ...`` line of its console blocks must print what the
document shows, so the walk-through cannot drift from the code."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest

from nervous.testing.cli import run_cli

DOC = Path(__file__).resolve().parents[2] / "docs" / "goals.md"
_BLOCK = re.compile(r"```console\n(.*?)```", re.S)


def _sessions() -> list[list[tuple[str, str]]]:
    """Each console block as (command, expected output) pairs; blocks share one home, in order."""
    blocks = []
    for body in _BLOCK.findall(DOC.read_text(encoding="utf-8")):
        pairs: list[tuple[str, str]] = []
        for line in body.splitlines():
            if line.startswith("$ "):
                pairs.append((line[2:], ""))
            elif pairs:
                cmd, out = pairs[-1]
                pairs[-1] = (cmd, out + line + "\n")
        blocks.append(pairs)
    return blocks


def test_the_walk_through_is_executable(tmp_path: Path) -> None:
    sessions = _sessions()
    assert sum(len(s) for s in sessions) >= 10, "docs/goals.md lost its walk-through"
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("NERVOUS_")}
    env.update(NERVOUS_HOME=str(home), NERVOUS_PROJECT="demo", NERVOUS_CONTEXT="main",
               NERVOUS_NOW="2026-06-17T09:00:00Z", NERVOUS_DISABLE_PLUGIN_AUTOLOAD="1", NO_COLOR="1",
               COLUMNS="100")
    for pairs in sessions:
        for command, expected in pairs:
            words = shlex.split(command)
            if words[0] == "export":
                key, _, value = words[1].partition("=")
                env[key] = value
                continue
            assert words[0] == "nervous", f"unexpected command in docs/goals.md: {command}"
            proc = run_cli(*words[1:], environ=env, cwd=tmp_path)
            actual = proc.stdout + proc.stderr
            assert actual.rstrip("\n") == expected.rstrip("\n"), f"$ {command}"
            assert (proc.returncode != 0) == expected.startswith("error:"), f"$ {command}: exit {proc.returncode}"


if not DOC.exists():  # pragma: no cover - the document ships with the package's docs
    pytest.skip("docs/goals.md is missing", allow_module_level=True)
