"""The hostile values the bad-input suite feeds to every command and tool, generated per test folder.

Categories: empty and blank, control and format characters (terminal escapes, bidi overrides),
undecodable names, huge values (over the task and argument caps), deep nesting, numbers that are
not numbers, option look-alikes, wrong types, and paths that are unreadable, non-regular, special
or outside the working folder. Paths only ever point into the test's own folder (or at /dev and
/proc, which nothing may write to), so a bug cannot damage the machine running the suite.
"""

from __future__ import annotations

import os
from pathlib import Path

DEEP = "[" * 50_000 + "]" * 50_000


def text_values() -> list[str]:
    """Strings a shell can pass (no NUL: exec cannot carry one)."""
    return [
        "", " ", "\t\r\n", "\x1b[31m\x1b]0;pwned\x07red", "a\u202eb\u200bc", "\udcff\udcfe-name",
        "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ünïcödé", "-", "--json", "-1", "1e309", "nan", "0x10",
        "a" * 10_000, "b" * 150_000, DEEP, '{"action": "list", "x": ' + DEEP + "}",
        "../outside/../outside", "@/../..", "owner/../../x", "clawhub:../../etc",
    ]


def path_values(root: Path) -> list[str]:
    """Paths of every kind, all inside ``root`` (plus read-only special files)."""
    return [str(root / "victim.txt"), str(root / "fifo"), str(root / "dir"), str(root / "missing" / "x"),
            str(root / "link-to-victim"), "/dev/zero", "/dev/null", "/proc/self", "/proc/self/mem",
            str(root / ("n" * 300)), str(root / "deep.json"), str(root / "binary.bin")]


def make_decoys(root: Path) -> None:
    """The files the path values name: a victim that must survive, a pipe, a folder, a link..."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "victim.txt").write_text("the victim must survive\n")
    if not (root / "fifo").exists():
        os.mkfifo(root / "fifo")
    (root / "dir").mkdir(exist_ok=True)
    (root / "dir" / "inside.txt").write_text("inside\n")
    if not (root / "link-to-victim").is_symlink():
        (root / "link-to-victim").symlink_to(root / "victim.txt")
    (root / "deep.json").write_text(DEEP)
    (root / "binary.bin").write_bytes(bytes(range(256)) * 64)


def json_values() -> list[object]:
    """Values of every JSON type for MCP tool arguments (wrong types included)."""
    nested: object = []
    for _ in range(3_000):
        nested = [nested]
    return ["", "\x00", "\x1b[2J", "\udcff", "a" * 30_000, None, True, -1, 2 ** 70, 1.5, [], ["x"] * 1_000,
            {}, {"a": {"b": {"c": [1, "2", None]}}}, nested]
