"""Publish, the backup stack, rollback walking back to absent, canary promotion and deprecation (§8)."""

from __future__ import annotations

from pathlib import Path

import pytest

from nervous.engines.evolver import Evolver, EvolverError
from nervous.engines.evolver.skillfile import managed_info
from nervous.kernel.skillmd import parse_skill_md

from .conftest import create, make_draft

SKILL = Path("skills/learned-log-summary/SKILL.md")


def patch(ev: Evolver, step: str) -> dict:
    res = create(ev, "log summary", change="patch_skill",
                 draft=make_draft(steps=("Open the newest log file.", step)))
    return ev.publish_candidate(res["candidate_id"], user_confirmed=True)


def test_publish_writes_markers_and_keeps_body(evolver: Evolver, workspace: Path) -> None:
    draft = make_draft(extra_front="license: MIT\nmetadata:\n  openclaw:\n    emoji: \"x\"\nmanaged-version: 99\n")
    cid = create(evolver, draft=draft)["candidate_id"]
    res = evolver.publish_candidate(cid, user_confirmed=True)
    text = (workspace / SKILL).read_text()
    doc = parse_skill_md(text)
    assert doc.frontmatter["managed-by"] == "skill-evolver"
    assert doc.frontmatter["managed-version"] == 1
    assert doc.frontmatter["published-from-candidate"] == cid
    assert doc.frontmatter["license"] == "MIT" and doc.frontmatter["metadata"] == {"openclaw": {"emoji": "x"}}
    assert list(doc.frontmatter)[:5] == ["name", "description", "managed-by", "managed-version",
                                         "published-from-candidate"]
    assert text.endswith(draft.split("---\n", 2)[2])
    assert any("managed-version" in w for w in res["warnings"])
    assert res["backup_path"].endswith("-absent.json")


def test_publish_rollback_rollback_walks_the_stack(evolver: Evolver, published, workspace: Path) -> None:
    published()
    v1 = (workspace / SKILL).read_bytes()
    patch(evolver, "Count the errors by type.")
    v2 = (workspace / SKILL).read_bytes()
    third = patch(evolver, "Count the errors by hour.")
    assert third["published_version"] == 3
    v3 = (workspace / SKILL).read_bytes()
    assert len({v1, v2, v3}) == 3

    first = evolver.rollback_skill("log-summary", user_confirmed=True)
    assert (workspace / SKILL).read_bytes() == v2
    assert first["status_before"] == "published" and first["status_after"] == "rolled_back"
    assert (workspace / first["safety_copy_path"]).read_bytes() == v3
    second = evolver.rollback_skill("learned-log-summary", user_confirmed=True)
    assert (workspace / SKILL).read_bytes() == v1
    assert second["candidate_id"] != first["candidate_id"]
    third_rb = evolver.rollback_skill("log summary", user_confirmed=True)
    assert not (workspace / SKILL).parent.exists()  # first version unpublished
    assert third_rb["message"].endswith("unpublished (first publication rolled back)")
    with pytest.raises(EvolverError) as err:
        evolver.rollback_skill("log-summary", user_confirmed=True)
    assert err.value.code == "BACKUP_NOT_FOUND"
    statuses = [c["status"] for c in evolver.list_candidates(["rolled_back"])["candidates"]]
    assert statuses == ["rolled_back"] * 3
    restored = list((workspace / ".skill-evolver/backups/learned-log-summary/restored").iterdir())
    assert len(restored) == 3


def test_versions_are_never_reused_after_rollback(evolver: Evolver, published, workspace: Path) -> None:
    published()
    patch(evolver, "Count the errors by type.")
    evolver.rollback_skill("log-summary", user_confirmed=True)
    assert managed_info((workspace / SKILL).read_bytes()).version == 1
    again = patch(evolver, "Count the warnings too.")
    assert again["published_version"] == 3


def test_first_publish_can_be_undone_then_published_again(evolver: Evolver, published, workspace: Path) -> None:
    published()
    evolver.rollback_skill("log-summary", user_confirmed=True)
    assert not (workspace / "skills/learned-log-summary").exists()
    res = create(evolver)
    out = evolver.publish_candidate(res["candidate_id"], user_confirmed=True)
    assert out["published_version"] == 2


def test_create_on_existing_managed_skill_should_patch(evolver: Evolver, published) -> None:
    first = published()
    with pytest.raises(EvolverError) as err:
        create(evolver)
    assert err.value.code == "SHOULD_PATCH_EXISTING"
    assert err.value.blocking_record["candidate_id"] == first["candidate_id"]


def test_one_open_candidate_per_target(evolver: Evolver) -> None:
    first = create(evolver)["candidate_id"]
    with pytest.raises(EvolverError) as err:
        create(evolver, draft=make_draft(steps=("Another take.",)))
    assert err.value.code == "DUPLICATE_TARGET_SKILL"
    assert err.value.blocking_record["candidate_id"] == first
    evolver.reject(first, "superseded")
    create(evolver, draft=make_draft(steps=("Another take.",)))


def test_patch_needs_an_existing_target(evolver: Evolver) -> None:
    with pytest.raises(EvolverError) as err:
        create(evolver, change="patch_skill")
    assert err.value.code == "TARGET_NOT_FOUND"


def test_publish_as_another_name(evolver: Evolver, workspace: Path) -> None:
    cid = create(evolver)["candidate_id"]
    res = evolver.publish_candidate(cid, "Log Triage", user_confirmed=True)
    assert res["skill_name"] == "learned-log-triage"
    assert parse_skill_md((workspace / "skills/learned-log-triage/SKILL.md").read_text()).name == "learned-log-triage"
    rec = evolver.show_candidate(cid)["record"]
    assert rec["published_name"] == "learned-log-triage" and rec["publish_effect"] == "Published learned-log-triage v1"


def test_patch_cannot_publish_under_another_name(evolver: Evolver, published) -> None:
    published()
    cid = create(evolver, change="patch_skill", draft=make_draft(steps=("Open it.", "Count.")))["candidate_id"]
    with pytest.raises(EvolverError) as err:
        evolver.publish_candidate(cid, "learned-other", user_confirmed=True)
    assert err.value.code == "INVALID_NAME"


def test_deprecation_publishes_a_disabled_version_and_rollback_restores(evolver: Evolver, published,
                                                                        workspace: Path) -> None:
    published()
    before = (workspace / SKILL).read_bytes()
    res = create(evolver, change="deprecate_skill", draft=make_draft(description="Deprecated: use learned-x."))
    assert res["status_after"] == "pending_review"
    evolver.publish_candidate(res["candidate_id"], user_confirmed=True)
    doc = parse_skill_md((workspace / SKILL).read_text())
    assert doc.frontmatter["disable-model-invocation"] is True and doc.frontmatter["managed-deprecated"] is True
    evolver.rollback_skill("log-summary", user_confirmed=True)
    assert (workspace / SKILL).read_bytes() == before


def test_canary_create_promote_rollback(evolver: Evolver, workspace: Path) -> None:
    evolver.set_mode("autonomous", user_confirmed=True)
    res = create(evolver, "log digest", draft=make_draft("learned-log-digest"))
    canary = workspace / "skills/learned-log-digest-canary/SKILL.md"
    main = workspace / "skills/learned-log-digest/SKILL.md"
    assert canary.exists() and not main.exists()
    assert parse_skill_md(canary.read_text()).name == "learned-log-digest-canary"
    with pytest.raises(EvolverError) as err:
        evolver.promote_canary("log-summary", user_confirmed=True)
    assert err.value.code == "TARGET_NOT_FOUND"

    out = evolver.promote_canary("learned-log-digest-canary", user_confirmed=True)
    assert out["skill_name"] == "learned-log-digest" and out["published_version"] == 1
    assert not canary.parent.exists()
    doc = parse_skill_md(main.read_text())
    assert doc.name == "learned-log-digest" and doc.frontmatter["published-from-candidate"] == res["candidate_id"]
    rec = evolver.show_candidate(res["candidate_id"])["record"]
    assert rec["promotion_channel"] == "main" and rec["published_name"] == "learned-log-digest"
    assert rec["promoted_at"] and rec["publish_effect"] == "Promoted learned-log-digest-canary to learned-log-digest v1"
    assert evolver.audit_events()[-1]["event_type"] == "canary_promoted"

    with pytest.raises(EvolverError) as err:
        evolver.promote_canary("log-digest", user_confirmed=True)
    assert err.value.code == "TARGET_NOT_FOUND"
    evolver.rollback_skill("log-digest", user_confirmed=True)
    assert not main.parent.exists()
    assert evolver.show_candidate(res["candidate_id"])["record"]["status"] == "rolled_back"


def test_rolling_back_an_unpromoted_canary_unpublishes_it(evolver: Evolver, workspace: Path) -> None:
    evolver.set_mode("autonomous", user_confirmed=True)
    create(evolver, "log digest", draft=make_draft("learned-log-digest"))
    evolver.rollback_skill("log-digest-canary", user_confirmed=True)
    assert not (workspace / "skills/learned-log-digest-canary").exists()


def test_promote_refuses_non_canary_and_unmanaged_main(evolver: Evolver, workspace: Path) -> None:
    evolver.set_mode("autonomous", user_confirmed=True)
    create(evolver, "log digest", draft=make_draft("learned-log-digest"))
    main = workspace / "skills/learned-log-digest"
    main.mkdir()
    (main / "SKILL.md").write_text("---\nname: learned-log-digest\ndescription: Mine.\n---\nx\n")
    with pytest.raises(EvolverError) as err:
        evolver.promote_canary("log-digest", user_confirmed=True)
    assert err.value.code == "UNMANAGED_TARGET"
    (main / "SKILL.md").unlink()
    main.rmdir()
    evolver.set_mode("manual", user_confirmed=True)
    res = create(evolver, "log digest canary", change="patch_skill",
                 draft=make_draft("learned-log-digest-canary", steps=("Open it.", "Count errors by type.")))
    with pytest.raises(EvolverError) as err:
        evolver.promote_canary("log-digest", user_confirmed=True)
    assert err.value.code == "DUPLICATE_TARGET_SKILL"
    assert err.value.blocking_record["candidate_id"] == res["candidate_id"]


def test_a_canary_published_by_hand_as_patch_target_is_not_a_canary(evolver: Evolver, workspace: Path) -> None:
    evolver.set_mode("autonomous", user_confirmed=True)
    res = create(evolver, "log digest", draft=make_draft("learned-log-digest"))
    evolver.rollback_skill("log-digest-canary", user_confirmed=True)  # the canary record is rolled back
    canary = workspace / "skills/learned-log-digest-canary"
    canary.mkdir(parents=True)
    (canary / "SKILL.md").write_text("---\nname: learned-log-digest-canary\ndescription: Copied.\n"
                                     "managed-by: skill-evolver\nmanaged-version: 1\n---\nx\n")
    with pytest.raises(EvolverError) as err:
        evolver.promote_canary("log-digest", user_confirmed=True)
    assert err.value.code == "NOT_A_CANARY"
    assert evolver.show_candidate(res["candidate_id"])["record"]["status"] == "rolled_back"
