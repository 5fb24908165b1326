"""The engine: learning, reflex promotion and demotion, lessons, blacklist, pruning, perception."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nervous.engines.cortex import Cortex
from nervous.engines.cortex.engine import blacklist_matches, is_blacklisted
from nervous.engines.cortex.memory import COLLECTION, KEY
from nervous.errors import NotFound, UnsupportedVersion, UsageError
from nervous.kernel.storage import MemoryStore
from nervous.testing.growth import linear_run

from .conftest import DAY, NOW

FP = "a" * 64


def doc_of(cortex: Cortex) -> dict[str, Any]:
    return cortex.store.read(COLLECTION, KEY).value or {}


def promote_ready(cortex: Cortex, slug: str = "reader", *, tags: tuple[str, ...] = ("network:api.example.com",),
                  n: int = 20, scan: str | None = "allow", fingerprint: str | None = FP) -> Any:
    result = None
    for i in range(n):  # one success per 8 days: the window is empty each time
        result = cortex.record_outcome("notes", slug, "success", version="1.0.0", fingerprint=fingerprint,
                                       tags=tags, scan_decision=scan, now=NOW + i * 8 * DAY)
    return result


def test_first_success_and_task_mismatch(cortex: Cortex) -> None:
    first = cortex.record_outcome("task-management", "todoist-cli", "success", now=NOW)
    assert first.weight == pytest.approx(0.575)
    bad = cortex.record_outcome("task-management", "flaky", "task_mismatch", detail="no batch ops", now=NOW)
    assert bad.weight == pytest.approx(0.2)
    ranked = cortex.rank_region("task-management", now=NOW)
    assert [v.slug for v in ranked] == ["todoist-cli"]  # 0.2 is below the 0.3 filter


def test_sliding_window_counts_recent_successes(cortex: Cortex) -> None:
    weights = [cortex.record_outcome("r", "s", "success", now=NOW + i).weight for i in range(3)]
    assert weights == pytest.approx([0.575, 0.606875, 0.62653125])
    doc = doc_of(cortex)
    runs = doc["cortex"]["motor"]["r"]["candidates"][0]["runs"]
    assert runs["recent_successes_7d"] == 3 and runs["consecutive_successes"] == 3
    later = cortex.record_outcome("r", "s", "success", now=NOW + 8 * DAY)
    assert later.weight == pytest.approx(0.62653125 + (1 - 0.62653125) * 0.15)


def test_promotion_needs_every_condition(cortex: Cortex) -> None:
    result = promote_ready(cortex)
    assert result.reflex and not result.reflex_blockers
    perception_views = cortex.rank_region("notes", now=NOW + 19 * 8 * DAY)
    assert perception_views[0].reflex


@pytest.mark.parametrize("tag", ["write:file:~/notes", "delete:file:/tmp/x", "shell:rm"])
def test_never_promoted_with_writing_tags(cortex: Cortex, tag: str) -> None:
    result = promote_ready(cortex, tags=("network:x", tag))
    assert result.weight >= 0.9 and not result.reflex
    assert any("write:/delete:/shell:" in b for b in result.reflex_blockers)


def test_no_promotion_without_scan_or_fingerprint(cortex: Cortex) -> None:
    assert not promote_ready(cortex, "a", scan=None).reflex
    assert not promote_ready(cortex, "b", fingerprint=None).reflex
    assert not promote_ready(cortex, "c", scan="review").reflex


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(weight=st.floats(0.85, 0.95), consecutive=st.integers(3, 7), successes=st.integers(3, 8),
       writing=st.booleans(), classified=st.booleans(), allow=st.booleans(),
       source=st.sampled_from(["clawhub", "github", "local", "thirdparty"]))
def test_promotion_exactly_when_all_conditions_hold(nervous_pm: Any, weight: float, consecutive: int,
                                                    successes: int, writing: bool, classified: bool,
                                                    allow: bool, source: str) -> None:
    successes = max(successes, consecutive)
    cortex = Cortex(nervous_pm, MemoryStore())
    # a candidate one success away from the state under test
    prior = weight - (1 - weight) * 0.15 / 0.85  # the weight before one success with an empty window
    raw = {"slug": "s", "source": source, "version": "1", "weight": max(0.0, prior),
           "runs": {"success": successes - 1, "fail": 1, "recent_successes_7d": 0,
                    "consecutive_successes": consecutive - 1, "recent_success_times": []},
           "last_fail": None, "side_effects": [], "skill_md_chars": 10, "reflex": False,
           "fingerprint": FP, "last_used": "2026-03-04"}
    cortex.import_v1({"version": 1, "cortex": {"motor": {"r": {"candidates": [raw], "last_used": "2026-03-04"}}}})
    tags = ("write:file:x",) if writing else ("network:x",)
    result = cortex.record_outcome("r", "s", "success", source=source, version="1",
                                   fingerprint=FP if classified else None, tags=tags if classified else None,
                                   scan_decision="allow" if allow else "review", now=NOW)
    expected = (round(result.weight, 10) >= 0.9 and consecutive >= 5 and successes >= 5 and not writing
                and classified and allow and source != "thirdparty")
    assert result.reflex is expected


@pytest.mark.parametrize("change", ["failure", "version", "fingerprint", "blacklist"])
def test_demotion(cortex: Cortex, change: str) -> None:
    assert promote_ready(cortex).reflex
    later = NOW + 200 * DAY
    if change == "failure":
        result = cortex.record_outcome("notes", "reader", "api_error", now=later)
        assert not result.reflex and result.consecutive_successes == 0
    elif change == "version":
        result = cortex.record_outcome("notes", "reader", "success", version="2.0.0", now=later)
        assert not result.reflex and result.consecutive_successes == 1
    elif change == "fingerprint":
        result = cortex.record_outcome("notes", "reader", "success", version="1.0.0", fingerprint="b" * 64,
                                       now=later)
        assert not result.reflex  # side effects are not known for the new content
    else:
        cortex.blacklist_add("reader", "compromised", now=later)
        assert cortex.rank_region("notes", now=later) == []
        cand = doc_of(cortex)["cortex"]["motor"]["notes"]["candidates"][0]
        assert cand["reflex"] is False


def test_perceive_hit_with_reflex_reasons(cortex: Cortex) -> None:
    promote_ready(cortex)
    cortex.record_outcome("notes", "reader", "success", task="summarize my meeting notes", version="1.0.0",
                          now=NOW + 160 * DAY)
    p = cortex.perceive("please summarize these notes", now=NOW + 161 * DAY)
    assert p.hit and p.region == "notes" and p.candidates[0].slug == "reader"
    assert p.reflex is True and p.reflex_candidate == "clawhub:reader"
    idle = cortex.perceive("please summarize these notes", now=NOW + 181 * DAY)
    assert idle.reflex is False and any("effective weight" in r for r in idle.reflex_reasons)


def test_perceive_miss_gives_filtered_keywords(cortex: Cortex) -> None:
    p = cortex.perceive("Book a table at Nobu for 7pm on March 3", now=NOW)
    assert not p.hit and p.region is None
    assert "nobu" not in p.keywords and "book" in p.keywords


def test_bad_input_is_refused_without_changes(cortex: Cortex) -> None:
    cortex.record_outcome("r", "s", "success", now=NOW)
    before = doc_of(cortex)
    with pytest.raises(UsageError):
        cortex.record_outcome("r", "s", "exploded", now=NOW)
    with pytest.raises(UsageError):
        cortex.record_outcome("bad region", "s", "success", now=NOW)
    with pytest.raises(NotFound):
        cortex.forget("nope")
    assert doc_of(cortex) == before


def test_unsupported_version_is_refused(cortex: Cortex) -> None:
    cortex.store.update(COLLECTION, KEY, lambda d: d.update({"version": 2}))
    with pytest.raises(UnsupportedVersion):
        cortex.perceive("anything at all")
    with pytest.raises(UnsupportedVersion):
        cortex.record_outcome("r", "s", "success")
    assert doc_of(cortex) == {"version": 2}


def test_signals_are_merged_capped_and_never_raw(cortex: Cortex) -> None:
    tasks = ["Send the invoice to bob@acme.com by Friday", "create invoice reminders for clients",
             "export quarterly billing summaries", "archive paid receipts automatically",
             "reconcile ledger entries monthly"]
    for i, t in enumerate(tasks):
        cortex.record_outcome("billing", "inv", "success", task=t, now=NOW + i)
    doc = doc_of(cortex)
    signals = doc["cortex"]["sensory"]["patterns"][0]["signal"]
    assert len(signals) == 10 and len(set(signals)) == 10
    text = str(doc)
    assert "bob" not in text and "acme" not in text and "Friday" not in text


def test_lessons_lifecycle(cortex: Cortex) -> None:
    r1 = cortex.record_outcome("images", "magick", "dependency_missing", deps_missing=["imagemagick"], now=NOW)
    assert r1.lesson_events == ()
    r2 = cortex.record_outcome("images", "magick", "dependency_missing", deps_missing=["imagemagick"], now=NOW)
    assert r2.lesson_events == ("dependency_warning images/imagemagick created",)
    cortex.record_outcome("images", "magick", "success", deps_missing=["imagemagick"], now=NOW)
    lesson = next(x for x in doc_of(cortex)["cortex"]["prefrontal"]["lessons"] if x["type"] == "dependency_warning")
    assert lesson["confidence"] == pytest.approx(0.7) and lesson["validations"] == 1
    for _ in range(2):
        cortex.record_dependency_check("images", "imagemagick", True, now=NOW)
    lesson = next(x for x in doc_of(cortex)["cortex"]["prefrontal"]["lessons"] if x["type"] == "dependency_warning")
    assert lesson["confidence"] == pytest.approx(0.3)
    cortex.record_dependency_check("images", "imagemagick", True, now=NOW)
    assert not any(x["type"] == "dependency_warning" for x in doc_of(cortex)["cortex"]["prefrontal"]["lessons"])

    cortex.record_outcome("todo", "cli", "success", env_present=["TODOIST_API_KEY"], now=NOW)
    created = cortex.record_outcome("todo", "cli", "success", env_present=["TODOIST_API_KEY"], now=NOW)
    assert "env_ready todo/TODOIST_API_KEY created" in created.lesson_events
    missing = cortex.record_outcome("todo", "cli", "auth_error", env_missing=["TODOIST_API_KEY"], now=NOW)
    assert "env_ready todo/TODOIST_API_KEY contradicted" in missing.lesson_events

    cortex.record_outcome("todo", "liar", "success", now=NOW)
    cortex.record_outcome("todo", "liar", "task_mismatch", description_misleading=True,
                          detail="does not support batch ops for Alice", now=NOW)
    warning = next(x for x in doc_of(cortex)["cortex"]["prefrontal"]["lessons"]
                   if x["type"] == "skill_quality_warning")
    assert warning["slug"] == "liar" and "Alice" not in warning["detail"]


def test_quality_warning_sorts_last(cortex: Cortex) -> None:
    def cand(slug: str, weight: float) -> dict[str, Any]:
        return {"slug": slug, "source": "clawhub", "version": "1", "weight": weight,
                "runs": {"success": 3, "fail": 0, "recent_successes_7d": 0}, "last_fail": None,
                "side_effects": [], "skill_md_chars": 10, "reflex": False}

    cortex.import_v1({"version": 1, "cortex": {
        "motor": {"todo": {"candidates": [cand("a", 0.6), cand("b", 0.9)], "last_used": "2026-03-04"}},
        "prefrontal": {"lessons": [{"type": "skill_quality_warning", "slug": "b", "detail": "no batch ops",
                                    "confidence": 0.9, "created": "2026-03-01"}]}}})
    assert [v.slug for v in cortex.rank_region("todo", now=NOW)] == ["a", "b"]
    p = cortex.perceive("todo", now=NOW)
    assert p.hit and p.lessons[0]["slug"] == "b"


def test_pruning_limits_and_the_just_used_candidate(nervous_pm: Any) -> None:
    cortex = Cortex(nervous_pm, MemoryStore())
    for i in range(6):
        cortex.record_outcome("r", f"s{i}", "success", now=NOW)
    slugs = {c["slug"] for c in doc_of(cortex)["cortex"]["motor"]["r"]["candidates"]}
    assert len(slugs) == 5 and "s5" in slugs  # the new one was just used, so an older one went
    nervous_pm.config.cortex.max_regions = 3
    for i, region in enumerate(["a", "b", "c", "d"]):
        cortex.record_outcome(region, "x", "success", now=NOW + (i + 1) * DAY)
    assert sorted(doc_of(cortex)["cortex"]["motor"]) == ["b", "c", "d"]


def test_weak_candidates_are_pruned(cortex: Cortex) -> None:
    cortex.record_outcome("r", "weak", "task_mismatch", now=NOW)  # 0.2
    cortex.record_outcome("r", "weak", "task_mismatch", now=NOW)  # 0.08, just used: kept
    cortex.record_outcome("r", "other", "success", now=NOW)
    assert [c["slug"] for c in doc_of(cortex)["cortex"]["motor"]["r"]["candidates"]] == ["other"]


def test_blacklist_commands(cortex: Cortex) -> None:
    cortex.record_outcome("r", "@mallory/tool", "success", now=NOW)
    cortex.record_outcome("r", "good", "success", now=NOW)
    added = cortex.blacklist_add("tool", "malware verdict", now=NOW)
    assert added["added"]
    assert [v.slug for v in cortex.rank_region("r", now=NOW)] == ["good"]  # bare entry matches @owner/tool
    listed = cortex.blacklist_list()["blacklist"]
    assert listed[0]["identifier"] == "tool" and listed[0]["source"] == "user"
    cortex.blacklist_remove("tool", now=NOW)
    assert len(cortex.rank_region("r", now=NOW)) == 2
    with pytest.raises(NotFound):
        cortex.blacklist_remove("tool", now=NOW)


def test_forget_removes_everything_of_a_region(cortex: Cortex) -> None:
    cortex.record_outcome("r", "s", "success", task="resize this photo", env_present=["K"], now=NOW)
    cortex.record_outcome("r", "s", "success", env_present=["K"], now=NOW)
    cortex.forget("r", now=NOW)
    doc = doc_of(cortex)
    assert doc["cortex"]["motor"] == {} and doc["cortex"]["sensory"]["patterns"] == []
    assert doc["cortex"]["prefrontal"]["lessons"] == []
    assert doc["counters"]["env_present"] == {}
    assert doc["matcher_state"]["lexical"]["regions"] == {}


def test_stats_and_show(cortex: Cortex) -> None:
    cortex.record_outcome("r", "s", "success", now=NOW)
    cortex.bump_stats(searches=2, installs=1, now=NOW)
    stats = cortex.stats(now=NOW)
    assert stats["regions"] == 1 and stats["candidates"] == 1 and stats["stats"]["searches"] == 2
    shown = cortex.show(now=NOW)
    assert shown["regions"]["r"]["candidates"][0]["weight"] == pytest.approx(0.575)


def test_seed_policy_order_and_ties(cortex: Cortex) -> None:
    for slug, outcomes in (("b", ["success"]), ("a", ["success"]), ("c", ["success", "success"])):
        for o in outcomes:
            cortex.record_outcome("r", slug, o, now=NOW)
    assert [v.slug for v in cortex.rank_region("r", now=NOW)] == ["c", "a", "b"]


def test_every_outcome_keeps_weights_in_range(cortex: Cortex) -> None:
    outcomes = ["success", "task_mismatch", "runtime_error", "auth_error", "dependency_missing", "api_error"]
    for i, o in enumerate(itertools.islice(itertools.cycle(outcomes), 30)):
        r = cortex.record_outcome("r", "s", o, now=NOW + i * 3600)
        assert 0 <= r.weight <= 1


def test_retire_removes_the_candidate_from_motor(cortex: Cortex) -> None:
    cortex.record_outcome("r", "keeper", "success", now=NOW)
    cortex.record_outcome("r", "other", "success", now=NOW)
    assert cortex.retire("r", "keeper", now=NOW)["removed"] is True
    assert [c["slug"] for c in doc_of(cortex)["cortex"]["motor"]["r"]["candidates"]] == ["other"]
    assert cortex.retire("r", "keeper", now=NOW)["removed"] is False


# ------------------------------------------------------------------ large (imported, not yet pruned) memories: linear reads


def _crowded(nervous_pm: Any, n: int) -> Cortex:
    """A memory imported as it was (an import into an empty store is not pruned): one region with ``n``
    candidates whose weights need coercion (one warning each) and ``n`` blacklist entries."""
    cands = [{"slug": f"s{i}", "source": "clawhub", "weight": "heavy", "runs": {"success": 1, "fail": 0}}
             for i in range(n)]
    cortex = Cortex(nervous_pm, MemoryStore())
    cortex.import_v1({"version": 1, "cortex": {
        "sensory": {"patterns": [{"signal": ["query"], "region": "one"}]},
        "motor": {"one": {"candidates": cands, "last_used": "2026-03-01"}}, "prefrontal": {"lessons": []}},
        "blacklist": [f"evil-{i}" for i in range(n)] + ["s1"], "stats": {}}, now=NOW)
    return cortex


def test_reading_a_crowded_memory_is_linear(nervous_pm: Any) -> None:
    """Every candidate was compared with every blacklist entry, and every warning with every earlier one."""
    memories = {n: _crowded(nervous_pm, n) for n in (250, 2000)}
    shown = memories[250].show(now=NOW)
    assert len(shown["warnings"]) == 250 and len(shown["regions"]["one"]["candidates"]) == 250
    assert [c["slug"] for c in shown["regions"]["one"]["candidates"] if c["blacklisted"]] == ["s1"]
    p = memories[250].perceive("query the list", now=NOW)
    assert p.hit and len(p.candidates) == 249 and "s1" not in {v.slug for v in p.candidates}
    linear_run(lambda n: memories[n].show(now=NOW), 250)
    linear_run(lambda n: memories[n].perceive("query the list", now=NOW), 250)
    linear_run(lambda n: memories[n].stats(now=NOW), 250)


@pytest.mark.parametrize("source, slug, owner", [
    ("clawhub", "tool", None), ("clawhub", "@alice/tool", None), ("clawhub", "@alice/tool", "alice"),
    ("clawhub", "tool", "bob"), ("github", "tool", None), ("github", "owner/repo/tool", "owner"),
    ("local", "@alice/tool", "alice"),
])
def test_is_blacklisted_is_blacklist_matches_over_the_list(source: str, slug: str, owner: str | None) -> None:
    entries = ["tool", "@alice/tool", "@bob/tool", "owner/repo/tool", "other"]
    for k in range(len(entries) + 1):
        listed = entries[:k]
        assert is_blacklisted(set(listed), source, slug, owner) == any(
            blacklist_matches(e, source, slug, owner) for e in listed), listed

