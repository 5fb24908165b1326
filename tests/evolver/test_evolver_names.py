"""Identifier and path safety: ids and names never escape the workspace (§12)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from nervous.engines.evolver import EvolverError
from nervous.engines.evolver.names import check_candidate_id, check_rel_path, normalize_skill_name, slugify

from .conftest import create, make_draft


@pytest.mark.parametrize("raw,expected", [
    ("log summary", "learned-log-summary"),
    ("Learned-Log_Summary", "learned-log-summary"),
    ("  CSV --> JSON  ", "learned-csv-json"),
    ("learned-foo-canary", "learned-foo-canary"),
])
def test_names_are_normalised(raw: str, expected: str) -> None:
    assert normalize_skill_name(raw) == expected
    assert slugify("A  b--C") == "a-b-c"


@pytest.mark.parametrize("raw", ["../x", "../../etc/passwd", "/abs/skill", "skills/learned-x", "a/b", "a\\b",
                                 "~/.ssh", "x\x00y", "..", "!!!", "", "learned-" + "a" * 60])
def test_bad_names_are_refused(raw: str) -> None:
    with pytest.raises(EvolverError) as err:
        normalize_skill_name(raw)
    assert err.value.code == "INVALID_NAME"


def test_main_names_leave_room_for_canary_suffix() -> None:
    assert normalize_skill_name("a" * 49) == "learned-" + "a" * 49  # 57 characters
    with pytest.raises(EvolverError):
        normalize_skill_name("a" * 50)
    with pytest.raises(EvolverError) as err:
        normalize_skill_name("learned-foo-canary", allow_canary=False)
    assert err.value.code == "INVALID_NAME"


@pytest.mark.parametrize("cid", ["../x", "candidate-../../x", "/tmp/candidate-x", "candidate-a/b", "candidate-a\\b",
                                 "Candidate-Upper", "candidate-x\x00", "x" * 200, "candidate-"])
def test_bad_candidate_ids_are_refused(cid: str) -> None:
    with pytest.raises(EvolverError) as err:
        check_candidate_id(cid)
    assert err.value.code == "INVALID_ID"


def test_legacy_ids_allow_more_but_never_paths() -> None:
    assert check_candidate_id("Cand_2024.01-x", legacy=True) == "Cand_2024.01-x"
    for bad in ("../x", "a/b", "a..b", ".hidden"):
        with pytest.raises(EvolverError):
            check_candidate_id(bad, legacy=True)


@pytest.mark.parametrize("rel", ["skills/other/SKILL.md", "skills/../x", "/etc/passwd", ".skill-evolver",
                                 "skills/learned-x/../../y", "./skills/learned-x/SKILL.md", "README.md",
                                 ".skill-evolver/../x"])
def test_only_state_and_learned_skills_are_writable(rel: str) -> None:
    with pytest.raises(EvolverError) as err:
        check_rel_path(rel)
    assert err.value.code == "PATH_OUT_OF_SCOPE"
    assert str(check_rel_path("skills/learned-x/SKILL.md")) == "skills/learned-x/SKILL.md"


def test_create_with_escaping_id_or_target_writes_nothing(evolver, workspace: Path) -> None:
    for kw in ({"candidate_id": "../../escape"}, {"candidate_id": "/tmp/x"}):
        with pytest.raises(EvolverError) as err:
            create(evolver, **kw)
        assert err.value.code == "INVALID_ID"
    for target in ("../../outside", "/etc/cron.d/x", "skills/../../x"):
        with pytest.raises(EvolverError) as err:
            create(evolver, target)
        assert err.value.code == "INVALID_NAME"
    assert not (workspace / ".skill-evolver").exists()
    assert not (workspace.parent / "escape").exists() and not (workspace.parent / "outside").exists()


def test_lookups_with_escaping_ids_are_refused(evolver, workspace: Path) -> None:
    create(evolver)
    for op in (lambda: evolver.approve("../registry", user_confirmed=True),
               lambda: evolver.show_candidate("../../etc/passwd"),
               lambda: evolver.publish_candidate("a/b", user_confirmed=True)):
        with pytest.raises(EvolverError) as err:
            op()
        assert err.value.code == "INVALID_ID"


def test_publish_as_and_rollback_names_are_confined(evolver, workspace: Path) -> None:
    cid = create(evolver)["candidate_id"]
    with pytest.raises(EvolverError) as err:
        evolver.publish_candidate(cid, "../../outside", user_confirmed=True)
    assert err.value.code == "INVALID_NAME"
    with pytest.raises(EvolverError) as err:
        evolver.publish_candidate(cid, "learned-thing-canary", user_confirmed=True)
    assert err.value.code == "INVALID_NAME"
    with pytest.raises(EvolverError) as err:
        evolver.rollback_skill("../.skill-evolver", user_confirmed=True)
    assert err.value.code == "INVALID_NAME"
    assert not (workspace / "skills").exists()


def test_symlinked_skills_dir_is_refused(evolver, workspace: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, workspace / "skills")
    with pytest.raises(EvolverError) as err:
        create(evolver)
    assert err.value.code == "PATH_OUT_OF_SCOPE"
    assert list(elsewhere.iterdir()) == []


def test_symlinked_target_dir_is_refused_at_publish(evolver, workspace: Path, tmp_path: Path) -> None:
    cid = create(evolver)["candidate_id"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (workspace / "skills").mkdir()
    os.symlink(elsewhere, workspace / "skills" / "learned-log-summary")
    with pytest.raises(EvolverError) as err:
        evolver.publish_candidate(cid, user_confirmed=True)
    assert err.value.code == "PATH_OUT_OF_SCOPE"
    assert list(elsewhere.iterdir()) == []
    assert evolver.show_candidate(cid)["record"]["status"] == "pending_review"


def test_unmanaged_skills_are_never_touched(evolver, workspace: Path) -> None:
    own = workspace / "skills" / "learned-notes"
    own.mkdir(parents=True)
    original = b"---\nname: learned-notes\ndescription: Mine.\n---\nMy own skill.\n"
    (own / "SKILL.md").write_bytes(original)
    with pytest.raises(EvolverError) as err:
        create(evolver, "notes", draft=make_draft("learned-notes"))
    assert err.value.code == "UNMANAGED_TARGET"
    for change in ("patch_skill", "deprecate_skill"):
        with pytest.raises(EvolverError) as err:
            create(evolver, "notes", change=change, draft=make_draft("learned-notes"))
        assert err.value.code == "UNMANAGED_TARGET"
    with pytest.raises(EvolverError) as err:
        evolver.rollback_skill("notes", user_confirmed=True)
    assert err.value.code == "UNMANAGED_TARGET"
    assert (own / "SKILL.md").read_bytes() == original
    events = [e["event_type"] for e in evolver.audit_events()]
    assert events == ["candidate_refused"] * 3
