"""v1 compatibility: lossless import/export, strict export, defaults, merge."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from nervous.engines.cortex import Cortex
from nervous.engines.cortex.memory import COLLECTION, KEY, Candidate, today_of
from nervous.engines.cortex.transfer import import_warnings, merge_into, strict_v1
from nervous.errors import BadInput, UnsupportedVersion
from nervous.kernel.clock import parse_timestamp
from nervous.kernel.storage import MemoryStore
from nervous.testing.growth import linear_run

from .conftest import NOW
from .v1_fixture import V1


def test_import_then_export_is_lossless(cortex: Cortex, tmp_path: Path) -> None:
    path = tmp_path / "cortex.json"
    path.write_text(json.dumps(V1), encoding="utf-8")
    assert cortex.import_v1(path)["mode"] == "copied"
    assert cortex.export()["document"] == V1
    # reading, ranking and perceiving never write
    cortex.perceive("query my todo list", now=NOW)
    cortex.rank_region("task-management", now=NOW)
    cortex.show(now=NOW)
    assert cortex.store.read(COLLECTION, KEY).value == V1


def test_strict_export_is_the_v1_subset(cortex: Cortex) -> None:
    cortex.import_v1(copy.deepcopy(V1))
    cortex.record_outcome("task-management", "todoist-cli", "success", now=NOW)
    strict = cortex.export("skill-cortex-v1")["document"]
    assert "unknown_top" not in strict and "ext_version" not in strict and "revision" not in strict
    cand = strict["cortex"]["motor"]["task-management"]["candidates"][0]
    assert set(cand) <= {"slug", "source", "version", "weight", "runs", "last_fail", "side_effects",
                         "skill_md_chars", "reflex"}
    assert set(cand["runs"]) == {"success", "fail", "recent_successes_7d"}
    assert all(lesson["type"] != "free_form" for lesson in strict["cortex"]["prefrontal"]["lessons"])
    # v1 values of the untouched region are unchanged
    assert strict["cortex"]["motor"]["image-processing"] == V1["cortex"]["motor"]["image-processing"]
    assert strict_v1(V1)["stats"] == V1["stats"]


def test_extension_keys_are_written_only_when_mutated(cortex: Cortex) -> None:
    cortex.import_v1(copy.deepcopy(V1))
    cortex.record_outcome("task-management", "todoist-cli", "success", now=NOW)
    doc = cortex.store.read(COLLECTION, KEY).value
    assert doc is not None
    todo = doc["cortex"]["motor"]["task-management"]["candidates"]
    assert "consecutive_successes" in todo[0]["runs"] and todo[0]["x-custom"] == {"any": [1, 2]}
    assert "consecutive_successes" not in todo[1]["runs"]  # untouched candidate keeps its v1 shape
    assert doc["unknown_top"] == "kept" and doc["cortex"]["future_section"] == {"x": 1}
    assert doc["cortex"]["sensory"]["patterns"][1]["note"] == "kept verbatim"


def test_v1_defaults_for_the_sliding_window() -> None:
    region = {"last_used": "2026-03-01"}
    raw = {"slug": "s", "weight": 0.5, "runs": {"success": 5, "fail": 0, "recent_successes_7d": 3}, "last_fail": None}
    now = parse_timestamp("2026-03-08T12:00:00Z")
    cand = Candidate(raw, region, today_of(now), "p", lambda _m: None)
    assert len([t for t in cand.recent_times() if t > now - 604_800]) == 3
    later = parse_timestamp("2026-03-09T12:00:00Z")
    assert len([t for t in cand.recent_times() if t > later - 604_800]) == 0
    assert cand.consecutive == 5 and cand.last_used.isoformat() == "2026-03-01"


def test_several_patterns_are_matched_as_a_union(cortex: Cortex) -> None:
    cortex.import_v1(copy.deepcopy(V1))
    memory = cortex.matcher_memory(cortex.store.read(COLLECTION, KEY).value or {})
    assert memory.signals["task-management"] == ("query", "todo", "task", "reminder")
    assert cortex.perceive("set a reminder for my todo list", now=NOW).region == "task-management"


def test_coercion_warns_and_is_written_on_mutation(cortex: Cortex) -> None:
    broken = copy.deepcopy(V1)
    cands = broken["cortex"]["motor"]["task-management"]["candidates"]
    cands[1]["weight"] = 7
    cands.append({"no": "slug"})
    cortex.import_v1(broken)
    shown = cortex.show(now=NOW)
    assert any("clamped" in w for w in shown["warnings"]) and any("no string slug" in w for w in shown["warnings"])
    result = cortex.record_outcome("task-management", "todoist-cli", "success", now=NOW)
    assert any("quarantine" in w for w in result.warnings)
    doc = cortex.store.read(COLLECTION, KEY).value or {}
    assert doc["quarantine"][0]["value"] == {"no": "slug"}
    assert doc["cortex"]["motor"]["task-management"]["candidates"][1]["weight"] == 1.0


def test_merge_into_a_non_empty_store(nervous_pm: Any) -> None:
    cortex = Cortex(nervous_pm, MemoryStore())
    cortex.record_outcome("task-management", "todoist-cli", "success", task="query todo items", now=NOW)
    result = cortex.import_v1(copy.deepcopy(V1), now=NOW)
    assert result["mode"] == "merged"
    doc = cortex.store.read(COLLECTION, KEY).value or {}
    todo = doc["cortex"]["motor"]["task-management"]["candidates"]
    mine = next(c for c in todo if c["slug"] == "todoist-cli")
    assert mine["runs"]["success"] == 1  # ours was used later (today) than the imported record
    assert doc["stats"]["searches"] == 14 and doc["blacklist"] == ["evil-skill", "@someone/fake-tool"]


def test_bad_import_files(cortex: Cortex, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{nope", encoding="utf-8")
    with pytest.raises(BadInput):
        cortex.import_v1(bad)
    with pytest.raises(BadInput):
        cortex.import_v1(tmp_path / "missing.json")
    with pytest.raises(UnsupportedVersion):
        cortex.import_v1({"version": 2})
    assert cortex.store.read(COLLECTION, KEY).value is None


# ------------------------------------------------------------------ large documents: linear time


def _big_v1(n: int, tag: str) -> dict[str, Any]:
    """``n`` regions (a pattern and a candidate each), one region of ``n`` candidates, ``n`` lessons, ``n``
    blacklist entries; ``tag`` makes the entries of two documents distinct."""
    def cand(slug: str) -> dict[str, Any]:
        return {"slug": slug, "source": "clawhub", "version": "1.0.0", "weight": 0.7, "last_fail": None,
                "runs": {"success": 3, "fail": 1, "recent_successes_7d": 0}, "reflex": False}

    motor: dict[str, Any] = {f"r-{tag}-{i}": {"candidates": [cand(f"s{tag}{i}")], "last_used": "2026-03-01"}
                             for i in range(n)}
    motor["shared"] = {"candidates": [cand(f"c{tag}{i}") for i in range(n)], "last_used": "2026-03-01"}
    return {"version": 1, "cortex": {
        "sensory": {"patterns": [{"signal": [f"w{tag}{i}"], "region": f"r-{tag}-{i}"} for i in range(n)]},
        "motor": motor,
        "prefrontal": {"lessons": [{"type": "dependency_warning", "region": "shared", "key": f"bin{tag}{i}",
                                    "confidence": 0.6, "created": "2026-02-01"} for i in range(n)]}},
        "blacklist": [f"evil-{tag}-{i}" for i in range(n)], "stats": {"searches": 1}}


def test_merging_large_documents_is_linear(cortex: Cortex) -> None:
    """Each merged entry was looked up by a scan of the memory (seconds at a few thousand lessons)."""
    today = today_of(NOW)
    docs = {n: (_big_v1(n, "a"), _big_v1(n, "b")) for n in (300, 2400)}

    def run(n: int) -> dict[str, int]:
        mine, theirs = docs[n]
        return merge_into(copy.deepcopy(mine), copy.deepcopy(theirs), cortex.cfg, today)

    assert run(300) == {"patterns": 300, "candidates": 600, "lessons": 300, "blacklist": 300}
    linear_run(run, 300)


def test_merge_keeps_the_first_match_and_unhashable_identities(cortex: Cortex) -> None:
    today = today_of(NOW)
    mine = _big_v1(2, "a")
    mine["cortex"]["prefrontal"]["lessons"] += [{"type": "env_ready", "region": ["odd"], "key": {"k": [1]},
                                                 "confidence": 0.4}]
    theirs = copy.deepcopy(mine)
    theirs["cortex"]["prefrontal"]["lessons"][-1]["confidence"] = 0.9  # same identity: the higher confidence wins
    theirs["cortex"]["motor"]["shared"]["candidates"][0]["last_used"] = "2026-03-02"  # later: replaces ours
    counts = merge_into(mine, theirs, cortex.cfg, today)
    assert counts == {"patterns": 0, "candidates": 1, "lessons": 0, "blacklist": 0}
    assert mine["cortex"]["prefrontal"]["lessons"][-1]["confidence"] == 0.9
    assert mine["cortex"]["motor"]["shared"]["candidates"][0]["last_used"] == "2026-03-02"
    assert len(mine["cortex"]["motor"]["shared"]["candidates"]) == 2 and len(mine["blacklist"]) == 2


def test_import_warnings_of_many_coerced_entries_are_linear() -> None:
    """One warning per coerced candidate; each was compared with every earlier one."""
    today = today_of(NOW)

    def doc(n: int) -> dict[str, Any]:
        return {"version": 1, "cortex": {"motor": {"one": {"candidates": [
            {"slug": f"s{i}", "weight": "heavy"} for i in range(n)]}}}}

    docs = {n: doc(n) for n in (1000, 8000)}
    assert len(import_warnings(docs[1000], today)) == 1000
    linear_run(lambda n: import_warnings(docs[n], today), 1000)
