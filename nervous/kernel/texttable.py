"""A plain text table that fits the terminal: for the CLI and for report formats written for people."""

from __future__ import annotations

import os
import sys
from typing import Any


def terminal_safe(text: Any) -> str:
    """Stored or remote text made harmless for a terminal: control and format characters (escape
    sequences, bidirectional overrides) and undecodable bytes are shown as ``\\x1b``-style escapes."""
    shown = str(text)
    if shown.isprintable():
        return shown
    import unicodedata

    return "".join(c if c == " " or unicodedata.category(c)[0] not in "CZ" or c == "\u3000"
                   else c.encode("unicode_escape").decode("ascii") for c in shown)


def terminal_lines(text: Any) -> str:
    """:func:`terminal_safe` line by line: a text of several lines keeps its line breaks (and only those)."""
    return "\n".join(terminal_safe(line) for line in str(text).split("\n"))


def table(rows: list[list[str]], headers: list[str], width: int | None = None) -> str:
    """A plain text table that fits the terminal (long cells are shortened with '…', controls escaped)."""
    headers = [terminal_safe(h) for h in headers]
    rows = [[terminal_safe(v) for v in r] for r in rows]
    width = width or min(os.get_terminal_size(sys.stdout.fileno()).columns if sys.stdout.isatty() else 80, 120)
    cols = len(headers)
    widths = [max(len(str(r[i])) for r in [headers, *rows]) for i in range(cols)]
    budget = width - 2 * (cols - 1)
    while sum(widths) > budget and max(widths) > 8:
        i = widths.index(max(widths))
        widths[i] -= 1

    def cell(v: Any, w: int) -> str:
        s = str(v).replace("\n", " ")
        return s if len(s) <= w else s[: max(w - 1, 0)] + "…"

    lines = ["  ".join(cell(h, w).ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    for r in rows:
        lines.append("  ".join(cell(v, w).ljust(w) for v, w in zip(r, widths, strict=False)).rstrip())
    return "\n".join(lines)
