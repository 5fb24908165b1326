"""Large test inputs written to a file in pieces, so a test process never holds them whole."""

from __future__ import annotations

from pathlib import Path


def filled_file(path: Path, head: str, fill: str, mib: int, tail: str) -> Path:
    """``head``, then ``mib`` MiB of the character ``fill``, then ``tail``, written a MiB at a time."""
    piece = fill * (1 << 20)
    with path.open("w", encoding="utf-8") as fh:
        fh.write(head)
        for _ in range(mib):
            fh.write(piece)
        fh.write(tail)
    return path
