"""Argument checking for goal actions: bad input is an ``invalid_arg`` naming the argument.

Actions accept plain JSON values (agents) and typed records (Python callers) alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from . import timefmt
from .errors import GoalError, invalid_arg

#: the longest text one argument may hold (the task text limit of the cortex: describe, don't paste data)
MAX_TEXT_CHARS = 20_000


def bounded(text: str, name: str) -> str:
    """``text`` unless it is longer than :data:`MAX_TEXT_CHARS` (``too_large``, exit 2)."""
    if len(text) > MAX_TEXT_CHARS:
        raise GoalError("too_large", f"{name} is {len(text):,} characters long; at most {MAX_TEXT_CHARS:,} are "
                        "accepted (describe the goal; keep data in files and refer to them)",
                        details={"length": len(text), "limit": MAX_TEXT_CHARS})
    return text


def as_mapping(value: Any, name: str) -> dict[str, Any]:
    if attrs.has(type(value)):
        out = {f.name: getattr(value, f.name) for f in attrs.fields(type(value)) if f.name != "extra"}
        return {k: v for k, v in out.items() if v is not None}
    if isinstance(value, Mapping):
        return dict(value)
    raise invalid_arg(f"{name}: expected an object, got {type(value).__name__}")


def required_str(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise invalid_arg(f"{name} is required and must be a non-empty string")
    return bounded(value.strip(), name)


def optional_str(value: Any, name: str) -> str | None:
    """``None`` when absent; a trimmed string otherwise (possibly empty: callers decide)."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise invalid_arg(f"{name}: expected a string, got {type(value).__name__}")
    return bounded(value.strip(), name)


def str_list(value: Any, name: str) -> list[str] | None:
    """``None`` when absent; a single string counts as a one-item list; empty items dropped."""
    if value is None:
        return None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)):
        raise invalid_arg(f"{name}: expected a list of strings, got {type(value).__name__}")
    out: list[str] = []
    seen: set[str] = set()  # beside ``out``: a long list is checked in linear time
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise invalid_arg(f"{name}[{i}]: expected a string, got {type(item).__name__}")
        if item.strip() and item.strip() not in seen:
            out.append(bounded(item.strip(), f"{name}[{i}]"))
            seen.add(out[-1])
    return out


def choice(value: Any, name: str, choices: tuple[str, ...]) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or value.strip() not in choices:
        raise invalid_arg(f"{name}: {value!r} is not one of {', '.join(choices)}")
    return value.strip()


def flag(value: Any, name: str) -> bool | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "yes", "no", "1", "0"):
        return value.strip().lower() in ("true", "yes", "1")
    raise invalid_arg(f"{name}: expected true or false, got {value!r}")


def integer(value: Any, name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise invalid_arg(f"{name}: expected an integer, got {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    raise invalid_arg(f"{name}: expected an integer, got {value!r}")


def timestamp(value: Any, name: str) -> str | None:
    """An ISO 8601 time, normalised to UTC with milliseconds."""
    if value is None:
        return None
    t = timefmt.parse(value) if isinstance(value, str) else None
    if t is None:
        raise invalid_arg(f"{name}: expected an ISO 8601 time such as 2026-06-18T14:00:00Z, got {value!r}")
    return timefmt.iso(t)


def reject_unknown(args: Mapping[str, Any], allowed: set[str], action: str) -> None:
    unknown = sorted(k for k, v in args.items() if k not in allowed and v is not None)
    if unknown:
        raise invalid_arg(f"{action}: unknown argument(s) {', '.join(unknown)}; "
                          f"accepted: {', '.join(sorted(allowed)) or 'none'}")
