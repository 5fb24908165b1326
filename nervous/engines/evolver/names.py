"""Identifier and path safety (specs/evolver.md §12): nothing a caller supplies may escape the workspace.

Ids and names are checked before they are used in any file name; every path the evolver writes,
deletes or replays from a journal is resolved and confined to ``.skill-evolver/`` or
``skills/learned-*/`` with no symlinked component.
"""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePosixPath

from .errors import EvolverError

STATE_DIR = ".skill-evolver"
SKILLS_DIR = "skills"
PREFIX = "learned-"
CANARY_SUFFIX = "-canary"
MAX_NAME = 64
MAX_MAIN_NAME = MAX_NAME - len(CANARY_SUFFIX)
MAX_ID = 128

_SKILL_NAME_RE = re.compile(r"^learned-[a-z0-9]+(?:-[a-z0-9]+)*\Z")
_NEW_ID_RE = re.compile(r"^candidate-[a-z0-9]+(?:-[a-z0-9]+)*\Z")
_LEGACY_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}\Z")


def slugify(text: str) -> str:
    """Lower-case; runs outside ``[a-z0-9]`` become ``-``; trimmed."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def normalize_skill_name(raw: str, *, allow_canary: bool = True) -> str:
    """``Foo Bar`` → ``learned-foo-bar``. Refuses anything that is a path rather than a name."""
    if not isinstance(raw, str) or not raw.strip():
        raise EvolverError("INVALID_NAME", "a skill name is required")
    text = raw.strip()
    if "/" in text or "\\" in text or "\x00" in text or ".." in text or text.startswith("~"):
        raise EvolverError("INVALID_NAME", f"skill name {raw!r} looks like a path; give a bare name such as "
                           "learned-my-workflow")
    if text.lower().startswith("skills") and text[6:7] in ("/", "\\"):
        raise EvolverError("INVALID_NAME", f"skill name {raw!r} must not include the skills/ folder")
    slug = slugify(text)
    if not slug:
        raise EvolverError("INVALID_NAME", f"skill name {raw!r} has no letters or digits")
    if slug == PREFIX.rstrip("-") and text.lower().startswith(PREFIX):
        raise EvolverError("INVALID_NAME", f"skill name {raw!r} has nothing after {PREFIX!r}; give a name such as "
                           "learned-my-workflow")
    name = slug if slug.startswith(PREFIX) else PREFIX + slug
    check_skill_name(name, allow_canary=allow_canary)
    return name


def check_skill_name(name: str, *, allow_canary: bool = True) -> str:
    """A normalised managed-skill name, or ``INVALID_NAME``."""
    if not _SKILL_NAME_RE.match(name) or name == PREFIX.rstrip("-"):
        raise EvolverError("INVALID_NAME", f"{name!r} is not a managed skill name (learned-<slug>)")
    if len(name) > MAX_NAME:
        raise EvolverError("INVALID_NAME", f"skill name {name!r} is {len(name)} characters; the limit is {MAX_NAME}")
    if name.endswith(CANARY_SUFFIX):
        if not allow_canary:
            raise EvolverError("INVALID_NAME", f"a main skill name may not end in {CANARY_SUFFIX!r}: {name}")
    elif len(name) > MAX_MAIN_NAME:
        raise EvolverError("INVALID_NAME", f"main skill name {name!r} is {len(name)} characters; the limit is "
                           f"{MAX_MAIN_NAME} so that the {CANARY_SUFFIX} suffix still fits")
    return name


def main_name(name: str) -> str:
    return name[: -len(CANARY_SUFFIX)] if name.endswith(CANARY_SUFFIX) else name


def canary_name(name: str) -> str:
    return main_name(name) + CANARY_SUFFIX


def check_candidate_id(cid: object, *, legacy: bool = False) -> str:
    """A candidate id safe to use in a file name, or ``INVALID_ID``."""
    if not isinstance(cid, str) or not cid:
        raise EvolverError("INVALID_ID", "a candidate id is required")
    unsafe = "/" in cid or "\\" in cid or ".." in cid or "\x00" in cid
    if unsafe:
        raise EvolverError("INVALID_ID", f"candidate id {cid!r} contains a path separator, '..' or NUL")
    pattern = _LEGACY_ID_RE if legacy else _NEW_ID_RE
    if len(cid) > MAX_ID or not pattern.match(cid):
        expected = "letters, digits, '.', '_' or '-'" if legacy else "candidate-<lower-case slug>"
        raise EvolverError("INVALID_ID", f"candidate id {cid!r} is not valid (expected {expected}, at most "
                           f"{MAX_ID} characters)")
    return cid


def lookup_id(cid: object) -> str:
    """An id given to look a candidate up: new or legacy form, never a path."""
    return check_candidate_id(cid, legacy=True)


def check_rel_path(rel: str) -> PurePosixPath:
    """A workspace-relative path the evolver may write: under ``.skill-evolver/`` or ``skills/learned-*/``."""
    p = PurePosixPath(rel)
    parts = p.parts
    if (not rel or p.is_absolute() or "\\" in rel or "\x00" in rel or any(x in ("..", ".", "") for x in parts)
            or rel != str(p)):
        raise EvolverError("PATH_OUT_OF_SCOPE", f"path {rel!r} is not a clean workspace-relative path")
    if parts[0] == STATE_DIR and len(parts) >= 2:
        return p
    if parts[0] == SKILLS_DIR and len(parts) >= 2 and _SKILL_NAME_RE.match(parts[1]) and len(parts[1]) <= MAX_NAME:
        return p
    raise EvolverError("PATH_OUT_OF_SCOPE", f"path {rel!r} is outside ./{STATE_DIR}/ and ./{SKILLS_DIR}/learned-*/")


def resolve_in_workspace(workspace: Path, rel: str) -> Path:
    """The absolute path for ``rel``, refusing symlinked components and anything resolving elsewhere."""
    p = check_rel_path(rel)
    current = workspace
    for part in p.parts:
        current = current / part
        try:
            if current.is_symlink():
                raise EvolverError("PATH_OUT_OF_SCOPE", f"./{rel}: component ./{current.relative_to(workspace)} "
                                   "is a symbolic link")
        except OSError:
            break
    full = workspace / p
    real_ws = os.path.realpath(workspace)
    real = os.path.realpath(full)
    if not (real == real_ws or real.startswith(real_ws + os.sep)):
        raise EvolverError("PATH_OUT_OF_SCOPE", f"./{rel} resolves outside the workspace")
    return full


def skill_file(name: str) -> str:
    return f"{SKILLS_DIR}/{check_skill_name(name)}/SKILL.md"


def skill_dir(name: str) -> str:
    return f"{SKILLS_DIR}/{check_skill_name(name)}"
