"""Which goal document a process works on: ``<project>/<context>`` (specs/goals.md §8.1).

The context is pinned for the life of a process (and inherited by its children through
``NERVOUS_SESSION_CONTEXTS``), so switching branches mid-task does not make goals disappear.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import MutableMapping
from pathlib import Path

from attrs import frozen

from .errors import GoalError

PIN_VARIABLE = "NERVOUS_SESSION_CONTEXTS"
_SLUG_RE = re.compile(r"[^a-z0-9._-]+")


@frozen
class Scope:
    """Where a goal document lives: a storage key, or an explicit file (``NERVOUS_GOALS_PATH``)."""

    project: str
    context: str
    path: Path | None = None

    @property
    def key(self) -> str:
        return f"{self.project}/{self.context}"


def slug(text: str) -> str:
    """Lower-case; runs outside ``[a-z0-9._-]`` become ``-``; trimmed; at most 80 characters."""
    return _SLUG_RE.sub("-", text.lower()).strip("-")[:80].strip("-")


def git_root(start: Path) -> Path | None:
    for d in (start, *start.parents):
        if (d / ".git").exists():
            return d
    return None


def _git_dir(root: Path) -> Path | None:
    dot = root / ".git"
    if dot.is_dir():
        return dot
    try:  # worktrees and submodules: ".git" is a file "gitdir: <path>"
        text = dot.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if text.startswith("gitdir:"):
        target = Path(text[7:].strip())
        return target if target.is_absolute() else (root / target).resolve()
    return None


def git_context(root: Path) -> str | None:
    """The current branch, or ``detached-<short sha>``; ``None`` when it cannot be read."""
    gd = _git_dir(root)
    if gd is None:
        return None
    try:
        head = (gd / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if head.startswith("ref:"):
        ref = head[4:].strip()
        return ref.removeprefix("refs/heads/") or None
    if re.fullmatch(r"[0-9a-f]{7,64}", head):
        return f"detached-{head[:7]}"
    return None


def resolve_scope(environ: MutableMapping[str, str] | None = None, cwd: Path | None = None) -> Scope:
    """Resolve the scope from the environment and working directory, pinning the context."""
    env = os.environ if environ is None else environ
    cwd = (cwd or Path.cwd()).absolute()
    root = git_root(cwd) or cwd
    override = env.get("NERVOUS_GOALS_PATH", "")
    if override:
        path = Path(override).expanduser()
        if not path.is_absolute():
            raise GoalError("config_error", f"NERVOUS_GOALS_PATH must be an absolute path, got {override!r}")
    if env.get("NERVOUS_PROJECT", "").strip():
        project = slug(env["NERVOUS_PROJECT"]) or "default"
    else:
        digest = hashlib.sha1(str(root).encode("utf-8")).hexdigest()[:8]
        project = f"{slug(root.name) or 'root'}-{digest}"
    if env.get("NERVOUS_CONTEXT", "").strip():
        context = slug(env["NERVOUS_CONTEXT"]) or "default"
    else:
        context = _pinned_context(env, root)
    if override:
        return Scope(project, context, Path(override).expanduser())
    return Scope(project, context)


def _pinned_context(env: MutableMapping[str, str], root: Path) -> str:
    try:
        pins = json.loads(env.get(PIN_VARIABLE, "") or "{}")
        if not isinstance(pins, dict):
            pins = {}
    except ValueError:
        pins = {}
    pinned = pins.get(str(root))
    if isinstance(pinned, str) and pinned:
        return pinned
    context = slug(git_context(root) or "") or "default"
    pins[str(root)] = context
    env[PIN_VARIABLE] = json.dumps(pins, sort_keys=True)
    return context
