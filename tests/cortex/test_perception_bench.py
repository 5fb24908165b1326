"""The routing benchmark runs end to end on a small split in the data README's format."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_benchmark_smoke(tmp_path: Path) -> None:
    regions = [{"id": "WeatherNow", "name": "Weather Now", "description": "Forecasts and current weather."},
               {"id": "photo_tool", "name": "Photo Tool", "description": "Resize, crop and convert images."}]
    rows = [
        {"phase": "train", "task": "What is the weather forecast for the weekend?", "region": "WeatherNow"},
        {"phase": "train", "task": "Will it rain in the afternoon?", "region": "WeatherNow"},
        {"phase": "train", "task": "Resize this photo to a smaller size", "region": "photo_tool"},
        {"phase": "train", "task": "Crop the image and convert it to png", "region": "photo_tool"},
        {"phase": "test", "task": "Is rain expected in the forecast?", "region": "WeatherNow"},
        {"phase": "test", "task": "Please crop my photo", "region": "photo_tool"},
        {"phase": "test", "task": "Negotiate a mortgage refinancing schedule", "region": None},
    ]
    (tmp_path / "regions.jsonl").write_text("\n".join(json.dumps(r) for r in regions) + "\n", encoding="utf-8")
    (tmp_path / "split.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "perception.py"), "--regions",
                           str(tmp_path / "regions.jsonl"), "--split", str(tmp_path / "split.jsonl"), "--json"],
                          capture_output=True, text=True, timeout=120, check=True)
    report = json.loads(proc.stdout)
    assert report["known_test"] == 2 and report["novel_test"] == 1
    assert report["ours"]["hit_at_1"] == 1.0 and report["ours"]["routing_accuracy"] == 1.0
    assert report["stored_words"]["signals_per_region_max"] <= 10


def test_cross_validation_uses_only_train_rows(tmp_path: Path) -> None:
    topics = {
        "WeatherNow": ["weather forecast rain", "sunny weekend forecast", "rain storm warning"],
        "photo_tool": ["resize this photo", "crop the image", "convert image to png"],
        "RecipeBox": ["dinner recipe with chicken", "vegan dessert recipe", "bake bread recipe"],
        "FlightFinder": ["cheap flight tickets", "flight delays airport", "book a return flight"],
    }
    regions = [{"id": rid, "name": rid, "description": ""} for rid in topics]
    rows = [{"phase": "train", "task": f"Please help: {t}", "region": rid} for rid, ts in topics.items() for t in ts]
    rows.append({"phase": "test", "task": "is rain in the forecast", "region": "WeatherNow"})
    (tmp_path / "regions.jsonl").write_text("\n".join(json.dumps(r) for r in regions) + "\n", encoding="utf-8")
    (tmp_path / "split.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "perception.py"), "--regions",
                           str(tmp_path / "regions.jsonl"), "--split", str(tmp_path / "split.jsonl"), "--json",
                           "--cv", "3", "--cv-seed", "5"],
                          capture_output=True, text=True, timeout=120, check=True)
    cv = json.loads(proc.stdout)["cross_validation"]
    assert cv["rounds"] == 3 and cv["seed"] == 5
    assert set(cv["mean"]) >= {"hit_at_1", "routing_accuracy", "miss_recall"}
    assert all(0.0 <= v <= 1.0 for v in cv["mean"].values())


def test_region_cross_validation_calibrates_each_fold_on_the_other_tools(tmp_path: Path) -> None:
    topics = {
        "WeatherNow": ["weather forecast rain", "sunny weekend forecast", "rain storm warning"],
        "photo_tool": ["resize this photo", "crop the image", "convert image to png"],
        "RecipeBox": ["dinner recipe with chicken", "vegan dessert recipe", "bake bread recipe"],
        "FlightFinder": ["cheap flight tickets", "flight delays airport", "book a return flight"],
    }
    regions = [{"id": rid, "name": rid, "description": ""} for rid in topics]
    rows = [{"phase": "train", "task": f"Please help: {t}", "region": rid} for rid, ts in topics.items() for t in ts]
    rows += [{"phase": "test", "task": f"{t} please", "region": rid} for rid, ts in topics.items() for t in ts[:2]]
    rows += [{"phase": "test", "task": t, "region": None}
             for t in ("negotiate a mortgage schedule", "tune my guitar strings", "translate latin poetry",
                       "file quarterly taxes")]
    (tmp_path / "regions.jsonl").write_text("\n".join(json.dumps(r) for r in regions) + "\n", encoding="utf-8")
    (tmp_path / "split.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "perception.py"), "--regions",
                           str(tmp_path / "regions.jsonl"), "--split", str(tmp_path / "split.jsonl"), "--json",
                           "--region-cv", "2"],
                          capture_output=True, text=True, timeout=120, check=True)
    report = json.loads(proc.stdout)
    rcv = report["region_cross_validation"]
    assert rcv["folds"] == 2 and len(rcv["thresholds"]) == 2
    # the shipped threshold judged fold by fold averages back to the whole split's figures
    assert abs(rcv["shipped_threshold"]["mean"]["hit_at_1"] - report["ours"]["hit_at_1"]) < 0.26
    for part in ("calibrated", "shipped_threshold"):
        assert all(0.0 <= v <= 1.0 for v in rcv[part]["mean"].values())
    bad = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "perception.py"), "--regions",
                          str(tmp_path / "regions.jsonl"), "--split", str(tmp_path / "split.jsonl"),
                          "--region-cv", "1"], capture_output=True, text=True, timeout=120)
    assert bad.returncode != 0 and "at least 2 folds" in bad.stderr


def test_best_threshold_maximises_routing_accuracy() -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import perception
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    scored = [("a", [("a", 0.9)]), ("b", [("b", 0.5)]), (None, [("a", 0.3)]), (None, [("b", 0.2)])]
    assert perception.best_threshold(scored) == 0.5
    decided = perception.decide(scored, 0.5)
    assert [d for _g, _r, d in decided] == ["a", "b", None, None]
    assert perception.metrics(decided)["routing_accuracy"] == 1.0
