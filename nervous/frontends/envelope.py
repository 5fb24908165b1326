"""Under ``--json`` standard output carries the one JSON envelope and nothing else.

A plugin may print from a hook, from a thread it started, or run a program that writes to file
descriptor 1. All of that goes to standard error: for the length of the command ``sys.stdout`` passes
on only what is written inside :func:`envelope`, and in a real process descriptor 1 itself points at
standard error, the envelope going to a copy of the original descriptor.
"""

from __future__ import annotations

import _thread
import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any


class EnvelopeStdout:
    """``sys.stdout`` of a ``--json`` command: the envelope's thread, inside :func:`envelope`, writes to
    standard output; every other write goes to standard error."""

    def __init__(self, out: Any) -> None:
        self._out = out
        self._writer: int | None = None  # the thread writing the envelope

    @contextlib.contextmanager
    def open(self) -> Iterator[None]:
        self._writer = _thread.get_ident()
        try:
            yield
        finally:
            self._writer = None

    def _target(self) -> Any:
        if self._writer == _thread.get_ident() or sys.stderr is self:
            return self._out
        return sys.stderr

    def write(self, text: str) -> int:
        return int(self._target().write(text) or 0)

    def writelines(self, lines: Any) -> None:
        self._target().writelines(lines)

    def flush(self) -> None:
        if not getattr(self._out, "closed", False):
            self._out.flush()
        if sys.stderr is not self:
            sys.stderr.flush()

    @property
    def buffer(self) -> Any:
        """Bytes written to ``sys.stdout.buffer`` (``click.echo(b"...")``) follow the same rule."""
        return _EnvelopeBytes(self)

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._out, attr)


class _EnvelopeBytes:
    def __init__(self, text: EnvelopeStdout) -> None:
        self._text = text

    def _target(self) -> Any:
        stream = self._text._target()
        return getattr(stream, "buffer", stream)

    def write(self, data: bytes) -> int:
        return int(self._target().write(data) or 0)

    def flush(self) -> None:
        self._target().flush()

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._text._out.buffer, attr)


def envelope() -> contextlib.AbstractContextManager[None]:
    """Write the envelope inside this: it reaches standard output (outside ``--json`` a no-op)."""
    out = sys.stdout
    return out.open() if isinstance(out, EnvelopeStdout) else contextlib.nullcontext()


@contextlib.contextmanager
def only_envelope() -> Iterator[None]:
    """For a ``--json`` command: nothing but :func:`envelope` writes reach standard output."""
    if isinstance(sys.stdout, EnvelopeStdout):
        yield
        return
    original = sys.stdout
    out, restore = _descriptor_apart(original)
    sys.stdout = EnvelopeStdout(out)
    try:
        yield
    finally:
        # (also when click wrapped it after a reader went away: nothing may write to it after this)
        sys.stdout = original
        restore()


def _descriptor_apart(stdout: Any) -> tuple[Any, Callable[[], None]]:
    """Point descriptor 1 at standard error; return a writer on the original and how to undo it.

    Only when ``stdout`` is the process's own descriptor 1 (not a test's capture, not a pipe a
    caller swapped in); otherwise ``stdout`` itself and nothing to undo.
    """
    try:
        own = sys.__stdout__
        if own is None or stdout is not own or own.fileno() != 1 or sys.stderr.fileno() != 2:
            return stdout, lambda: None
        own.flush()
        saved = os.dup(1)
    except (AttributeError, OSError, ValueError):
        return stdout, lambda: None
    try:
        os.dup2(2, 1)
        out = open(saved, "w", encoding=getattr(stdout, "encoding", None) or "utf-8",  # noqa: SIM115
                   errors=getattr(stdout, "errors", None) or "strict", closefd=False)
    except (OSError, ValueError, LookupError):
        os.dup2(saved, 1)
        os.close(saved)
        return stdout, lambda: None

    def restore() -> None:
        try:
            out.close()  # flushed, and never flushed again (its descriptor is closed below)
        except OSError:  # a reader gone (EPIPE): the command's own write has said so already
            pass
        finally:
            os.dup2(saved, 1)
            os.close(saved)

    return out, restore


__all__ = ["EnvelopeStdout", "envelope", "only_envelope"]
