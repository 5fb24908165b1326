"""The scan-size benchmark builds folders of the size it says and measures one child scan of them."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "scan_size.py"


def _bench():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("scan_size", BENCH)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_generated_folders_have_the_size_and_files_asked_and_their_python_parses(tmp_path: Path) -> None:
    bench = _bench()
    for kind in ("ordinary", "dense"):
        root = tmp_path / kind
        root.mkdir()
        written = bench.make_folder(root, kind, 200_000, 12)
        files = [p for p in root.rglob("*") if p.is_file()]
        assert len(files) == 12 and 150_000 < written <= 200_000 + 4_096
        for p in files:
            if p.suffix == ".py":
                ast.parse(p.read_text(encoding="utf-8"))


def test_one_scan_is_measured_in_its_own_child(tmp_path: Path) -> None:
    bench = _bench()
    ordinary, dense = tmp_path / "o", tmp_path / "d"
    ordinary.mkdir()
    dense.mkdir()
    bench.make_folder(ordinary, "ordinary", 20_000, 4)
    bench.make_folder(dense, "dense", 20_000, 4)
    calm = bench.scan(ordinary, "json")
    hot = bench.scan(dense, "sarif")
    assert calm["exit"] == 0 and hot["exit"] == 1  # the dense shapes are refused
    for figures in (calm, hot):
        assert figures["cpu_s"] > 0 and figures["peak_mb"] > 10 and figures["output_mb"] > 0
    assert hot["output_mb"] > calm["output_mb"]
