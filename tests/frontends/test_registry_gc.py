"""``nervous registry gc`` names a blob folder that is not there as bad input, and removes nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from nervous.testing.cli import run_cli


@pytest.mark.parametrize("kind", ["missing", "file", "fifo"])
def test_gc_of_a_data_folder_without_blobs_is_bad_path(tmp_path: Path, nervous_home: Path, kind: str) -> None:
    data = tmp_path / "data"
    if kind != "missing":
        data.mkdir()
        blobs = data / "blobs"
        if kind == "file":
            blobs.write_bytes(b"not a folder")
        else:
            os.mkfifo(blobs)
    before = sorted(p.name for p in tmp_path.iterdir())
    res = run_cli("registry", "gc", "--data", str(data), "--json", cwd=tmp_path)
    assert res.exit_code == 2, res.stdout
    assert res.json["error"]["code"] == "bad_path"
    assert str(data / "blobs") in res.json["error"]["message"] and "nothing was removed" in res.json["error"]["message"]
    assert sorted(p.name for p in tmp_path.iterdir()) == before
