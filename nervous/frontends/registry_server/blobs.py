"""File blobs stored once by SHA-256 under a directory that several servers may share.

A blob is written to a temporary file beside its final name, flushed to disk, then renamed in:
a reader never sees a partial blob, and a crash leaves at worst an orphan temporary file. Uploads
come before the publish that names them, so a refused or abandoned publish leaves blobs nothing
references; :meth:`BlobStore.collect` removes those (and stray temporary files) once they are older
than a grace period, which keeps the uploads of a publish still in flight.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

import attrs

_SHA_RE = re.compile(r"^[0-9a-f]{64}\Z")


class BlobStore:
    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)

    def _path(self, sha256: str) -> Path:
        if not _SHA_RE.match(sha256):
            raise ValueError(f"invalid blob id {sha256!r}: expected 64 lower-case hex digits")
        return self.root / sha256[:2] / sha256[2:]

    def has(self, sha256: str) -> bool:
        return self._path(sha256).is_file()

    def get(self, sha256: str) -> bytes:
        return self._path(sha256).read_bytes()

    def put(self, data: bytes) -> str:
        """Store ``data``; its SHA-256 (the blob id). Idempotent."""
        digest = hashlib.sha256(data).hexdigest()
        final = self._path(digest)
        if final.is_file():
            # a new upload of a stored blob starts its grace period again (see :meth:`collect`)
            with contextlib.suppress(OSError):
                os.utime(final)
            return digest
        final.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=final.parent, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, final)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return digest

    def collect(self, keep: Iterable[str], *, grace_seconds: float, dry_run: bool = False) -> Collected:
        """Remove blobs not in ``keep`` and temporary files, each last written over ``grace_seconds`` ago."""
        kept = set(keep)
        cutoff = time.time() - grace_seconds
        removed = young = 0
        freed = 0
        for folder in sorted(self.root.iterdir()) if self.root.is_dir() else []:
            if not (len(folder.name) == 2 and folder.is_dir() and not folder.is_symlink()):
                continue
            for entry in sorted(folder.iterdir()):
                temporary = entry.name.startswith(".tmp-")
                if not temporary and (folder.name + entry.name in kept or not _SHA_RE.match(folder.name + entry.name)):
                    continue
                try:
                    info = entry.lstat()
                except FileNotFoundError:
                    continue
                if not entry.is_file() or entry.is_symlink():
                    continue
                if info.st_mtime > cutoff:
                    young += 1
                    continue
                if not dry_run:
                    with contextlib.suppress(FileNotFoundError):
                        entry.unlink()
                removed += 1
                freed += info.st_size
        return Collected(removed=removed, freed_bytes=freed, kept=len(kept), too_young=young, dry_run=dry_run)


@attrs.frozen
class Collected:
    """What :meth:`BlobStore.collect` removed (or would remove, on a dry run)."""

    removed: int
    freed_bytes: int
    kept: int
    too_young: int
    dry_run: bool
