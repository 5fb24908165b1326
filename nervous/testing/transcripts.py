"""Executable documentation: the ``$ nervous ...`` lines of a page's console blocks, run for real.

A page shows commands and what they print; the test suite runs every command (in an isolated home,
with the clock fixed) and compares. Values that differ on every run — approval tokens, session
ids, temporary paths — are normalised, and a token the page shows is replaced by the one the run
actually printed at the same place, so later commands can use it.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from attrs import frozen

BLOCK_RE = re.compile(r"```console\n(.*?)```", re.S)
TOKEN_RE = re.compile(r"\b[0-9a-f]{12}-[A-Za-z0-9_-]{16}(?![A-Za-z0-9_-])")
SESSION_RE = re.compile(r"(?<![0-9a-f-])[0-9a-f]{12}(?![0-9a-f-])")


@frozen
class Step:
    """One ``$`` line of a console block and the output the page shows for it."""

    command: str
    expected: str


def console_blocks(text: str) -> list[list[Step]]:
    """Each console block as its steps, in page order."""
    blocks = []
    for body in BLOCK_RE.findall(text):
        steps: list[Step] = []
        for line in body.splitlines():
            if line.startswith("$ "):
                steps.append(Step(line[2:], ""))
            elif steps:
                steps[-1] = Step(steps[-1].command, steps[-1].expected + line + "\n")
        blocks.append(steps)
    return blocks


class Transcript:
    """Runs steps in one environment, remembering which page value stands for which real one."""

    def __init__(self, env: Mapping[str, str], cwd: Path, replace: Iterable[tuple[str, str]] = ()) -> None:
        self.env = dict(env)
        self.cwd = cwd
        self.replace = list(replace)
        self.aliases: dict[str, str] = {}

    def normalise(self, text: str) -> str:
        for real, shown in self.replace:
            text = text.replace(real, shown)
        text = TOKEN_RE.sub("<token>", text)
        return SESSION_RE.sub("<session>", text).rstrip("\n")

    def _learn(self, expected: str, actual: str) -> None:
        for pattern in (TOKEN_RE, SESSION_RE):
            shown = pattern.findall(TOKEN_RE.sub("", expected) if pattern is SESSION_RE else expected)
            real = pattern.findall(TOKEN_RE.sub("", actual) if pattern is SESSION_RE else actual)
            for page_value, run_value in zip(shown, real, strict=False):
                self.aliases.setdefault(page_value, run_value)

    def run(self, step: Step) -> tuple[str, int]:
        """Run one step; returns (stdout + stderr, exit code)."""
        words = shlex.split(step.command)
        if words[0] != "nervous":
            raise ValueError(f"only nervous commands run in transcripts, got: {step.command}")
        args = [self.aliases.get(w, w) for w in words[1:]]
        proc = subprocess.run([sys.executable, "-m", "nervous", *args], env=self.env, cwd=self.cwd,
                              capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
        actual = proc.stdout + proc.stderr
        self._learn(step.expected, actual)
        return actual, proc.returncode

    def check(self, step: Step) -> list[str]:
        """Problems with one step (empty when it prints what the page shows)."""
        actual, code = self.run(step)
        problems = []
        if self.normalise(actual) != self.normalise(step.expected):
            problems.append(f"$ {step.command}\n--- page\n{self.normalise(step.expected)}\n--- actual\n"
                            f"{self.normalise(actual)}")
        failed = step.expected.startswith(("error:", '{"ok": false'))
        if (code != 0) != failed:
            problems.append(f"$ {step.command}: exit code {code}")
        return problems


def rewrite(text: str, transcript: Transcript) -> str:
    """``text`` with every console block's output replaced by what its commands print now.

    For refreshing a page after an intended change in output; review the diff before keeping it.
    """

    def block(match: re.Match[str]) -> str:
        lines: list[str] = []
        for step in console_blocks(match.group(0))[0]:
            command = " ".join(transcript.aliases.get(w, w) for w in step.command.split(" "))
            actual, _code = transcript.run(Step(command, step.expected))
            for real, shown in transcript.replace:
                actual = actual.replace(real, shown)
            lines += [f"$ {command}", *actual.rstrip("\n").splitlines()]
        return "```console\n" + "\n".join(lines) + "\n```"

    return BLOCK_RE.sub(block, text)


__all__ = ["rewrite", "Step", "Transcript", "console_blocks", "TOKEN_RE", "SESSION_RE"]
