"""A person's confirmation at a terminal: the one answer an agent relaying JSON cannot produce.

Typing the skill's (or candidate's) name, not pressing ``y``, is the confirmation: it proves the
person read which skill this is. Overrides (``--accept-risk``) are honoured only here.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import click

from ...engines.install.gate import Approval
from ...errors import Refused, UsageError


def at_terminal() -> bool:
    """Both ends are a terminal: someone is there to read the question and type the answer."""
    try:
        return sys.stdin.isatty() and sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def ask_person(question: str, name: str, *, accept_risk: Sequence[str] = ()) -> Approval:
    """Ask at the terminal; the person must type ``name``. Anything else cancels."""
    if not at_terminal():
        raise UsageError("this confirmation needs a person at an interactive terminal", code="needs_terminal")
    click.echo(question, err=True)
    answer = click.prompt(f"Type {name!r} to confirm (anything else cancels)", default="", show_default=False,
                          err=True)
    if answer.strip() != name:
        raise Refused(f"not confirmed: {name} was not typed; nothing was changed", code="cancelled")
    return Approval.person("terminal", accept_risk=accept_risk)


def require_terminal_for(accept_risk: Sequence[str]) -> None:
    """``--accept-risk`` from a pipe or an agent's JSON call is refused outright."""
    if accept_risk and not at_terminal():
        raise Refused("--accept-risk is honoured only from a person at an interactive terminal; nothing was "
                      "installed", code="needs_terminal")


__all__ = ["ask_person", "at_terminal", "require_terminal_for"]
