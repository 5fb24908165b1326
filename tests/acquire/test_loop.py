"""The acquisition loop end to end against the ClawHub stand-in (real HTTP on loopback)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from acquire_helpers import NOTES_TASK, TASK, bump_version, fetched, skill

from nervous.engines.cortex import Cortex
from nervous.testing.clawhub_server import ClawHubStandin
from nervous.testing.growth import assert_linear


def _tokens(state: dict[str, Any]) -> dict[str, str]:
    return {c["name"]: c["token"] for c in state["candidates"] if c.get("token")}


def _succeed(acq: Any, task: str, slug: str) -> dict[str, Any]:
    """One whole task: acquire, approve ``slug``, report success, decline retention."""
    state = acq.start(task).to_json()
    acq.approve(_tokens(state)[slug])
    result = acq.done(slug, "success").to_json()
    if result["state"] == "retention":
        acq.done(slug, keep=False)
    return {"start": state, "done": result}


def test_cold_miss_search_approve_install_success_learns(acq: Any, standin: ClawHubStandin,
                                                         workdir: Path) -> None:
    state = acq.start(TASK).to_json()
    assert state["schema"] == "nervous.acquire.v1"
    assert (state["state"], state["hit"], state["mode"]) == ("awaiting_approval", False, "standard")
    assert state["next"] == ["approve", "cancel"]
    names = [c["name"] for c in state["candidates"]]
    assert len(names) <= 3 and names[0] == "word-count"
    first = state["candidates"][0]
    assert (first["stars"], first["downloads"], first["scan_status"], first["decision"]) == (41, 5400, "clean",
                                                                                            "allow")
    assert first["classes"] == ["read_only"] and first["fingerprint"]
    assert not (workdir / "skills").exists(), "nothing is installed before approval"

    installed = acq.approve(first["token"]).to_json()
    assert installed["state"] == "installed"
    folder = workdir / "skills" / "word-count"
    assert (folder / "SKILL.md").is_file()
    plan = installed["plan"]
    assert plan["steps"][0] == "Read the document the user names."
    assert plan["classes"] == ["read_only"] and plan["dependencies"]["ok"]

    result = acq.done("word-count", "success").to_json()
    assert result["state"] == "done" and not folder.exists(), "the cached skill is uninstalled"
    learned = result["learned"]
    assert learned["weight"] == pytest.approx(0.575) and learned["successes"] == 1
    shown = Cortex(acq.pm).show()
    region = shown["regions"][state["region"]]
    assert {"count", "words", "report"} <= set(region["signals"])
    assert region["candidates"][0]["slug"] == "word-count"
    assert shown["stats"]["searches"] == 1 and shown["stats"]["installs"] == 1

    again = acq.start(TASK).to_json()
    assert again["hit"] and again["region"] == state["region"]
    assert again["candidates"][0]["history"]["successes"] == 1
    assert Cortex(acq.pm).show()["stats"]["cache_hits"] == 1


def test_repeated_successes_reach_the_reflex_for_a_read_only_skill(fast_acq: Any, workdir: Path) -> None:
    modes = [_succeed(fast_acq, TASK, "word-count")["start"]["mode"] for _ in range(5)]
    assert modes == ["standard"] * 5
    state = fast_acq.start(TASK).to_json()
    assert (state["state"], state["mode"]) == ("reflex", "reflex")
    assert state["notice"] == {"name": "word-count", "version": "1.0.0", "success_rate": 100,
                               "traits": ["read-only"]}
    assert state["message"].startswith("⚡ Skill Cortex reflex: word-count v1.0.0 (100% success rate)")
    installed = fast_acq.approve(state["candidates"][0]["token"]).to_json()
    assert installed["state"] == "installed" and installed["mode"] == "reflex"
    assert Cortex(fast_acq.pm).show()["stats"]["reflexes_fired"] == 1
    # a host that cannot show a cancellable notice never takes the fast path
    fast_acq.cancel(state["candidates"][0]["token"])
    assert not (workdir / "skills" / "word-count").exists()
    assert fast_acq.start(TASK, interactive=False).to_json()["mode"] == "standard"


def test_reflex_notice_can_be_cancelled_and_nothing_is_learned(fast_acq: Any, workdir: Path) -> None:
    for _ in range(5):
        _succeed(fast_acq, TASK, "word-count")
    before = Cortex(fast_acq.pm).show()["regions"]
    state = fast_acq.start(TASK).to_json()
    assert state["mode"] == "reflex"
    cancelled = fast_acq.cancel(state["candidates"][0]["token"]).to_json()
    assert cancelled["state"] == "cancelled" and cancelled["next"] == []
    assert Cortex(fast_acq.pm).show()["regions"] == before
    assert not (workdir / "skills").joinpath("word-count").exists()


def test_a_write_skill_never_reflexes(fast_acq: Any) -> None:
    for _ in range(7):
        run = _succeed(fast_acq, NOTES_TASK, "note-taker")
        assert run["start"]["mode"] == "standard"
    learned = run["done"]["learned"]
    assert learned["weight"] > 0.9 and learned["consecutive_successes"] == 7 and learned["reflex"] is False
    assert any("write" in b for b in learned["reflex_blockers"])
    state = fast_acq.start(NOTES_TASK).to_json()
    assert (state["state"], state["mode"]) == ("awaiting_approval", "standard")
    assert any("reflex flag not set" in r or "write" in r for r in state["reflex_reasons"])


def test_a_version_bump_demotes_the_reflex(fast_acq: Any, standin: ClawHubStandin) -> None:
    for _ in range(5):
        _succeed(fast_acq, TASK, "word-count")
    assert fast_acq.start(TASK).to_json()["mode"] == "reflex"
    bump_version(standin, "word-count", "1.1.0")
    state = fast_acq.start(TASK).to_json()
    assert (state["state"], state["mode"]) == ("awaiting_approval", "standard")
    assert any("version changed (1.0.0 → 1.1.0)" in r for r in state["reflex_reasons"])
    assert state["candidates"][0]["version"] == "1.1.0"
    fast_acq.approve(state["candidates"][0]["token"])
    learned = fast_acq.done("word-count", "success").to_json()["learned"]
    assert learned["reflex"] is False and learned["consecutive_successes"] == 1


def test_an_install_failure_switches_to_the_next_approved_candidate(acq: Any, workdir: Path) -> None:
    mine = workdir / "skills" / "word-count"
    mine.mkdir(parents=True)
    (mine / "SKILL.md").write_text("---\nname: word-count\ndescription: the user's own\n---\nmine\n")
    state = acq.start(TASK).to_json()
    tokens = _tokens(state)
    result = acq.approve(tokens["word-count"], tokens["wordstats"]).to_json()
    assert result["state"] == "installed" and result["installed"]["slug"] == "wordstats"
    assert result["attempts"][0]["outcome"] == "install_failed" and result["switches"] == 1
    assert any("switching to the next approved candidate: wordstats" in w for w in result["warnings"])
    assert (mine / "SKILL.md").read_text().endswith("mine\n"), "a long-term skill is never touched"


def test_an_install_failure_without_another_approval_asks_again(acq: Any, workdir: Path) -> None:
    (workdir / "skills" / "word-count").mkdir(parents=True)
    (workdir / "skills" / "word-count" / "SKILL.md").write_text("---\nname: word-count\ndescription: x\n---\n")
    state = acq.start(TASK).to_json()
    result = acq.approve(_tokens(state)["word-count"]).to_json()
    assert result["state"] == "awaiting_approval", "an unapproved candidate needs its own approval"
    assert list(_tokens(result)) == ["wordstats"]
    assert not (workdir / "skills" / "wordstats").exists()


def test_a_runtime_error_uninstalls_and_switches_only_with_consent(acq: Any, workdir: Path) -> None:
    state = acq.start(TASK).to_json()
    acq.approve(_tokens(state)["word-count"])
    failed = acq.done("word-count", "runtime_error", detail="crashed on empty input").to_json()
    assert failed["state"] == "awaiting_approval" and failed["learned"]["weight"] == pytest.approx(0.3)
    assert not (workdir / "skills" / "word-count").exists()
    assert not (workdir / "skills" / "wordstats").exists(), "no switch without consent"
    assert list(_tokens(failed)) == ["wordstats"]
    installed = acq.approve(_tokens(failed)["wordstats"]).to_json()
    assert installed["installed"]["slug"] == "wordstats" and installed["switches"] == 1
    done = acq.done("wordstats", "task_mismatch").to_json()
    assert done["state"] == "failed", "no candidate left"
    report = {r["candidate"]: r for r in done["report"]}
    assert report["word-count"]["outcome"] == "runtime_error" and report["word-count"]["remedy"]
    assert report["wordstats"]["outcome"] == "task_mismatch"


def test_api_error_retries_once_and_only_the_final_outcome_counts(acq: Any) -> None:
    state = acq.start(TASK).to_json()
    acq.approve(_tokens(state)["word-count"])
    retry = acq.done("word-count", "api_error").to_json()
    assert retry["state"] == "retry" and retry["retry_after"] == 3
    assert "learned" not in retry
    assert acq.done("word-count", "success").to_json()["learned"]["weight"] == pytest.approx(0.575)


def test_dependency_missing_waits_for_confirmation_then_counts_the_final_outcome(acq: Any) -> None:
    state = acq.start(TASK).to_json()
    acq.approve(_tokens(state)["word-count"])
    waiting = acq.done("word-count", "dependency_missing", detail="needs wc").to_json()
    assert waiting["state"] == "awaiting_dependency" and "separate confirmation" in waiting["message"]
    declined = acq.done("word-count", "dependency_missing").to_json()
    assert declined["state"] == "failed" and declined["learned"]["weight"] == pytest.approx(0.5 * 0.85)


def test_a_malicious_candidate_is_refused_blacklisted_and_never_downloaded(acq: Any,
                                                                         standin: ClawHubStandin) -> None:
    state = acq.start(TASK).to_json()
    bad = next(c for c in state["candidates"] if c["name"] == "count-words-pro")
    assert bad["decision"] == "refuse" and "token" not in bad
    assert "malicious" in bad["reasons"][0]
    assert fetched(standin, "count-words-pro") == []
    assert fetched(standin, "word-count"), "the others were fetched to be scanned"
    blacklist = Cortex(acq.pm).blacklist_list()["blacklist"]
    assert [e["identifier"] for e in blacklist] == ["@mallory/count-words-pro"]
    assert blacklist[0]["source"] == "registry"
    # blacklisted: a later search does not even consider it
    again = acq.start("count words in a report quickly").to_json()
    assert "count-words-pro" not in [c["name"] for c in again["candidates"]]
    assert fetched(standin, "count-words-pro") == []


def test_a_known_candidate_turning_malicious_is_refused_without_download(acq: Any,
                                                                      standin: ClawHubStandin) -> None:
    _succeed(acq, TASK, "word-count")
    standin.requests.clear()
    skill(standin, "word-count").moderation = {"isMalwareBlocked": True, "verdict": "malicious",
                                               "reasonCodes": ["malicious.exfiltration"], "summary": "Steals."}
    state = acq.start(TASK).to_json()
    assert state["state"] in ("refused", "no_candidates") or state["candidates"][0]["decision"] == "refuse"
    assert fetched(standin, "word-count") == []


def test_a_skill_our_scan_refuses_is_never_installed(acq: Any, workdir: Path) -> None:
    state = acq.start("claim gpu credits").to_json()
    assert state["state"] == "refused" and state["next"] == []
    refused = state["candidates"][0]
    assert refused["name"] == "free-gpu-credits" and refused["decision"] == "refuse"
    assert "NV-EXEC-001" in refused["rule_ids"] and "token" not in refused
    assert state["report"][0]["outcome"] == "refused"
    assert not (workdir / "skills").exists()
    assert Cortex(acq.pm).blacklist_list()["blacklist"] == [], "a local refusal does not blacklist"


def test_retention_keep_hands_the_skill_over(acq: Any, workdir: Path) -> None:
    for _ in range(2):
        _succeed(acq, TASK, "word-count")
    acq.pm.config.cortex.retention_min_weight = 0.6
    state = acq.start(TASK).to_json()
    acq.approve(_tokens(state)["word-count"])
    asked = acq.done("word-count", "success").to_json()
    assert asked["state"] == "retention" and asked["next"] == ["keep", "release"]
    kept = acq.done("word-count", keep=True).to_json()
    assert kept["state"] == "retained"
    assert (workdir / "skills" / "word-count" / "SKILL.md").is_file()
    assert acq.pm.install_target().installed() == [], "no longer ours: never removed by nervous"
    assert Cortex(acq.pm).show()["regions"].get(state["region"], {"candidates": []})["candidates"] == []


def test_warnings_are_united_in_order_and_in_linear_time() -> None:
    """A cortex with many coerced entries warns once per entry, in perception and again in the stats
    update of the same acquisition: each was compared with every earlier one (38 s at 32,000)."""
    import time

    from nervous.kernel.messages import AppendOnce

    warnings = ["a"]
    AppendOnce(warnings).extend(["b", "a", "c", "b"])
    assert warnings == ["a", "b", "c"]

    def cpu(n: int) -> float:
        mine = [f"cortex.motor.one.candidates[{i}].weight: 'heavy' is not a number" for i in range(n)]
        start = time.process_time()
        AppendOnce(mine).extend(list(mine) + ["new"])
        spent = time.process_time() - start
        assert len(mine) == n + 1
        return spent

    assert_linear(cpu, 1000, floor=0.02)  # quadratic: 64x


def test_finished_acquisitions_are_deleted_after_thirty_days_and_waiting_ones_kept(
        acq: Any, fixed_clock: list[float]) -> None:
    from nervous.engines.acquire import session as S

    done = _succeed(acq, TASK, "word-count")["start"]["session"]
    waiting = acq.start(NOTES_TASK).to_json()["session"]
    fixed_clock[0] += S.FINISHED_KEPT - 60  # not yet: both stay
    acq.start(TASK)
    assert {done, waiting} <= set(acq.store.keys(S.COLLECTION))
    assert acq.status(done).to_json()["state"] == "done"
    fixed_clock[0] += 120  # the finished one is over thirty days old; the one waiting for approval is kept
    acq.start(TASK)
    keys = set(acq.store.keys(S.COLLECTION))
    assert done not in keys and waiting in keys
    assert acq.status(waiting).to_json()["state"] == "awaiting_approval"
