"""The per-skill backup stack (§8.2): pushed before every publish, popped by every rollback.

Entries are the top-level files of ``.skill-evolver/backups/<skill>/``: ``<stamp>-v<n>-SKILL.md``
(previous contents) and ``<stamp>-absent.json`` (the skill did not exist: rolling it back is an
unpublish). Popped entries move to ``restored/``; files replaced by a rollback are kept in
``rolled-back/``. Stamps only ever grow within a stack, so the order is the push order.
"""

from __future__ import annotations

import re

from .journal import Transaction
from .names import STATE_DIR, check_skill_name
from .stamps import sort_key, stamp

_VERSION_RE = re.compile(r"-v(\d+)-SKILL\.md$")
_ENTRY_RE = re.compile(r"(?:-v\d+-SKILL\.md|-absent\.json|SKILL\.md)$")


def stack_dir(name: str) -> str:
    return f"{STATE_DIR}/backups/{check_skill_name(name)}"


def entries(tx: Transaction, name: str) -> list[str]:
    """Stack entries, oldest first (file names)."""
    names = [n for n in tx.listdir(stack_dir(name)) if _ENTRY_RE.search(n) and not n.startswith(".")]
    return sorted(names, key=sort_key)


def versions_seen(tx: Transaction, name: str) -> list[int]:
    """Every ``v<n>`` in the stack, ``restored/`` and ``rolled-back/`` (versions are never reused)."""
    base = stack_dir(name)
    out = []
    for sub in (base, f"{base}/restored", f"{base}/rolled-back"):
        for n in tx.listdir(sub):
            m = _VERSION_RE.search(n)
            if m:
                out.append(int(m.group(1)))
    return out


def _fresh_name(tx: Transaction, directory: str, suffix: str, existing: list[str]) -> str:
    """A name whose stamp sorts after every existing entry (collisions get ``-1``, ``-2``…)."""
    now = stamp()
    newest = max((sort_key(n) for n in existing), default=("", 0, ""))
    base, seq = now, 0
    if newest[0] > now or (newest[0] == now):
        base, seq = newest[0], max(newest[1], 0) + 1
    taken = set(tx.listdir(directory))
    while True:
        name = f"{base}-{seq}-{suffix}" if seq else f"{base}-{suffix}"
        if name not in taken:
            return name
        seq += 1


def push_file(tx: Transaction, name: str, content: bytes, version: int | None) -> str:
    """Push previous contents; returns the workspace-relative entry path."""
    base = stack_dir(name)
    suffix = f"v{version}-SKILL.md" if version is not None else "v0-SKILL.md"
    entry = _fresh_name(tx, base, suffix, entries(tx, name))
    tx.write(f"{base}/{entry}", content)
    return f"{base}/{entry}"


def push_tombstone(tx: Transaction, name: str, candidate_id: str, created_at: str, reason: str) -> str:
    import json

    base = stack_dir(name)
    entry = _fresh_name(tx, base, "absent.json", entries(tx, name))
    body = {"skill_name": name, "candidate_id": candidate_id, "created_at": created_at, "reason": reason}
    tx.write(f"{base}/{entry}", (json.dumps(body, indent=2) + "\n").encode())
    return f"{base}/{entry}"


def safety_copy(tx: Transaction, name: str, content: bytes, version: int | None) -> str:
    sub = f"{stack_dir(name)}/rolled-back"
    entry = _fresh_name(tx, sub, f"v{version if version is not None else 0}-SKILL.md", tx.listdir(sub))
    tx.write(f"{sub}/{entry}", content)
    return f"{sub}/{entry}"


def pop(tx: Transaction, name: str) -> tuple[str, bytes | None, str] | None:
    """Move the newest entry to ``restored/``: (original path, SKILL.md bytes or None for a tombstone, new path)."""
    stack = entries(tx, name)
    if not stack:
        return None
    newest = stack[-1]
    base = stack_dir(name)
    src = f"{base}/{newest}"
    data = tx.read(src)
    restored_dir = f"{base}/restored"
    dst_name = newest if newest not in tx.listdir(restored_dir) else _fresh_name(
        tx, restored_dir, newest.split("-", 3)[-1], tx.listdir(restored_dir))
    tx.move(src, f"{restored_dir}/{dst_name}")
    content = None if newest.endswith("absent.json") else data
    return src, content, f"{restored_dir}/{dst_name}"
