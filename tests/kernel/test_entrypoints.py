"""The entry-point cache: reused while the environment is unchanged, rebuilt when it changes."""

from __future__ import annotations

import sys
import zlib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nervous.kernel.entrypoints import crc32, entry_points_for


def _dist(site: Path, name: str) -> None:
    info = site / f"{name}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[nervous]\n{name} = {name}_mod\n", encoding="utf-8")


def test_cache_is_reused_and_invalidated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    site.mkdir()
    _dist(site, "alpha")
    monkeypatch.syspath_prepend(str(site))
    cache = tmp_path / "cache"
    first = entry_points_for("nervous", cache)
    assert "alpha" in {e.name for e in first}
    (written,) = cache.glob("entry-points-nervous-*.json")  # one file per interpreter
    assert entry_points_for("nervous", cache) == first  # served from the cache
    _dist(site, "beta")  # installing a distribution changes the folder's modification time
    import os

    os.utime(site, ns=(site.stat().st_atime_ns, site.stat().st_mtime_ns + 1_000_000))
    assert {"alpha", "beta"} <= {e.name for e in entry_points_for("nervous", cache)}
    written.write_text("{not json", encoding="utf-8")
    assert {e.name for e in entry_points_for("nervous", cache)} >= {"alpha", "beta"}  # a bad cache is rebuilt
    assert sys.path[0] == str(site)


@given(st.binary(max_size=300))
def test_the_cache_file_checksum_is_zlibs(data: bytes) -> None:
    assert crc32(data) == zlib.crc32(data)


def test_the_cache_file_is_named_as_before_for_this_interpreter() -> None:
    """Same name as with ``zlib.crc32``: an existing cache is still found after the change."""
    from nervous.kernel.entrypoints import cache_file

    expected = f"entry-points-nervous-{zlib.crc32(sys.executable.encode('utf-8', 'surrogateescape')):08x}.json"
    assert cache_file(Path("/cache"), "entry-points-nervous").name == expected

