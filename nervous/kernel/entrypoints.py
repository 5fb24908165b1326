"""Entry points of the ``nervous`` group, cached between runs to keep start-up fast.

Scanning installed distributions costs more than the rest of start-up together. The cache is
keyed by the interpreter and the modification times of every ``sys.path`` directory (installing,
upgrading or removing a distribution changes them), so a change of environment rescans.

The cache describes a Python environment, not a nervous home, so it lives in the user's cache
directory (:func:`user_cache_dir`: ``$XDG_CACHE_HOME/nervous``, by default ``~/.cache/nervous``
on Linux) even when ``NERVOUS_HOME`` is set, one file per interpreter. A read-only command in a
fresh home therefore writes nothing there. ``NERVOUS_NO_ENTRY_POINT_CACHE=1`` turns it off.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import NamedTuple

#: the entry-point group third-party plugins register under
ENTRY_POINT_GROUP = "nervous"


class EntryPointInfo(NamedTuple):
    """One entry point as cached (a tuple: creating an attrs class here would cost start-up time)."""

    name: str
    value: str
    dist: str | None
    version: str | None

    def load(self) -> object:
        import importlib

        module, _, attr = self.value.partition(":")
        obj: object = importlib.import_module(module.strip())
        for part in filter(None, attr.strip().split(".")):
            obj = getattr(obj, part)
        return obj


def user_cache_dir() -> Path | None:
    """The platform's per-user cache folder for nervous (what ``platformdirs`` gives), or None.

    Computed without importing ``platformdirs`` on Linux and macOS (start-up).
    """
    try:
        if sys.platform == "darwin":
            return Path.home() / "Library" / "Caches" / "nervous"
        if sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
            xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
            return Path(xdg if os.path.isabs(xdg) else Path.home() / ".cache") / "nervous"
        from platformdirs import user_cache_dir as _platform_cache_dir

        return Path(_platform_cache_dir("nervous", appauthor=False))
    except (RuntimeError, OSError, KeyError):  # no home folder: run without the cache
        return None


def crc32(data: bytes) -> int:
    """``zlib.crc32(data)``, bit by bit: naming the cache file must not load ``zlib`` (start-up).

    Meant for short inputs (an interpreter's path): about forty bytes cost less than the import.
    """
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0xEDB88320 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


def cache_file(cache_dir: Path, name: str) -> Path:
    """One file per interpreter, so two environments sharing the folder do not evict each other."""
    return cache_dir / f"{name}-{crc32(sys.executable.encode('utf-8', 'surrogateescape')):08x}.json"


def environment_key(*parts: str) -> str:
    """What an environment cache is valid for: the interpreter, ``parts``, and every ``sys.path`` folder's
    modification time (installing, upgrading or removing a distribution changes it)."""
    h = [sys.executable, *parts]
    cwd = os.getcwd()
    for entry in sys.path:
        if entry in ("", ".", cwd):  # the working directory churns and holds no installed distributions
            continue
        try:
            st = os.stat(entry or ".")
        except OSError:
            continue
        h += [entry, str(st.st_mtime_ns)]
    return "\0".join(h)


def read_cache(path: Path, key: str) -> object | None:
    """The value cached in ``path`` for ``key``; None when missing, unreadable, malformed or stale."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("key") != key:
        return None
    return data.get("value", data.get("entries"))


def write_cache(path: Path, key: str, value: object) -> None:
    """Replace ``path`` atomically with ``value`` for ``key``; a folder that cannot be written only costs speed."""
    tmp = path.with_suffix(f".tmp.{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps({"key": key, "value": value}), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass


def _scan(group: str) -> list[EntryPointInfo]:
    from importlib.metadata import entry_points

    out = []
    for ep in entry_points(group=group):
        dist = getattr(ep, "dist", None)
        out.append(EntryPointInfo(ep.name, ep.value, dist.metadata["Name"] if dist else None,
                                  dist.version if dist else None))
    return sorted(out, key=lambda e: e.name)


def entry_points_for(group: str, cache_dir: Path | None) -> list[EntryPointInfo]:
    """Entry points of ``group``; read from ``cache_dir`` when the environment is unchanged."""
    if cache_dir is None or os.environ.get("NERVOUS_NO_ENTRY_POINT_CACHE"):
        return _scan(group)
    key = environment_key(group)
    cache = cache_file(cache_dir, f"entry-points-{group}")
    cached = read_cache(cache, key)
    if isinstance(cached, list):
        try:
            return [EntryPointInfo(**e) for e in cached]
        except TypeError:
            pass
    entries = _scan(group)
    write_cache(cache, key, [e._asdict() for e in entries])
    return entries
