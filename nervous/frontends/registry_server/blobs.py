"""File blobs stored once by SHA-256 under a directory that several servers may share.

A blob is written to a temporary file beside its final name, flushed to disk, then renamed in:
a reader never sees a partial blob, and a crash leaves at worst an orphan temporary file.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from pathlib import Path

_SHA_RE = re.compile(r"^[0-9a-f]{64}$")


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
