"""Deterministic hosted-skill zips (protocols §A7.4): the same files always give the same bytes."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Mapping
from typing import Any

from ...kernel.fingerprint import sort_paths

_EPOCH = (1980, 1, 1, 0, 0, 0)

_CONTENT_TYPES = {".md": "text/markdown", ".sh": "application/x-sh", ".py": "text/x-python",
                  ".json": "application/json", ".txt": "text/plain", ".js": "text/javascript",
                  ".yaml": "text/yaml", ".yml": "text/yaml", ".png": "image/png"}


def content_type(path: str) -> str:
    """The stored content type for a published file, by extension."""
    lower = path.lower()
    for ext, ctype in _CONTENT_TYPES.items():
        if lower.endswith(ext):
            return ctype
    return "application/octet-stream"


def build_zip(files: Mapping[str, bytes], meta: Mapping[str, Any] | None) -> bytes:
    """Files at the root in collation order, 1980 mtimes, deflate level 6, ``_meta.json`` last
    (two-space JSON, keys in the given order, no trailing newline)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
        entries = [(p, files[p]) for p in sort_paths(files)]
        if meta is not None:
            entries.append(("_meta.json", json.dumps(dict(meta), indent=2).encode()))
        for path, data in entries:
            info = zipfile.ZipInfo(path, date_time=_EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, data, compresslevel=6)
    return buf.getvalue()
