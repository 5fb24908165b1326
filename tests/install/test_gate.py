"""The install gate through the real CLI (with and without a terminal), the Python API and the stand-ins.

Local-registry tests use the example registry (examples/registry): ``free-gpu-credits`` is refused by
the built-in rules, ``disk-cleanup`` is review-level, ``word-count`` is clean.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gate_helpers import EXAMPLE_CONFIG, at_terminal, env_for, run_json

import nervous
from nervous.engines.install import gate
from nervous.engines.install.installer import Installer
from nervous.errors import BadInput, Refused
from nervous.kernel.records import Provider, ReviewDecision
from nervous.testing.clawhub_server import ClawHubStandin, skill_md

LOCAL = ["--config", str(EXAMPLE_CONFIG)]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    d = tmp_path / "project"
    d.mkdir()
    return d


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return env_for(tmp_path / "home")


def _audit(project: Path, env: dict[str, str], kind: str) -> list[dict[str, Any]]:
    code, out = run_json([*LOCAL, "audit"], project, env)
    assert code == 0, out
    return [e for e in out["events"] if e["kind"] == kind]


def _refusing_rules(project: Path, env: dict[str, str]) -> list[str]:
    code, out = run_json([*LOCAL, "install", "-y", "local:free-gpu-credits"], project, env)
    assert code == 1 and out["error"]["code"] == "refused", out
    return [r for r in out["error"]["message"].split("--accept-risk ")[1:] for r in [r.strip()]]


# ------------------------------------------------------------------------------------------ refuse is final


def test_yes_cannot_install_a_refused_skill_and_the_message_names_the_override(project: Path, env: dict) -> None:
    code, out = run_json([*LOCAL, "install", "-y", "local:free-gpu-credits"], project, env)
    assert code == 1 and out["error"]["code"] == "refused"
    details = out["error"]["details"]
    assert {"NV-EXEC-001", "NV-EXFIL-001"} <= set(details["floors"])
    assert "only at a terminal" in out["error"]["message"] and "--accept-risk NV-EXEC-001" in out["error"]["message"]
    assert not (project / "skills").exists()


def test_accept_risk_is_refused_without_a_terminal(project: Path, env: dict) -> None:
    code, out = run_json([*LOCAL, "install", "-y", "local:free-gpu-credits", "--accept-risk", "NV-EXEC-001"],
                         project, env)
    assert code == 1 and out["error"]["code"] == "needs_terminal"
    assert not (project / "skills").exists()


def test_a_person_overrides_a_refusal_at_a_terminal_and_it_is_audited(project: Path, env: dict) -> None:
    rules = _refusing_rules(project, env)
    assert "NV-EXEC-001" in rules
    # naming only some of the rules is not enough
    code, text = at_terminal([*LOCAL, "install", "local:free-gpu-credits", "--accept-risk", rules[0]], project, env,
                             [("to confirm", "free-gpu-credits")])
    assert code == 1 and "not accepted" in text and not (project / "skills").exists()
    # the wrong name typed cancels
    args = [*LOCAL, "install", "local:free-gpu-credits", *[a for r in rules for a in ("--accept-risk", r)]]
    code, text = at_terminal(args, project, env, [("to confirm", "yes")])
    assert code == 1 and "not confirmed" in text and not (project / "skills").exists()
    code, text = at_terminal(args, project, env, [("to confirm", "free-gpu-credits")])
    assert code == 0, text
    assert (project / "skills" / "free-gpu-credits" / "SKILL.md").is_file()
    [override] = _audit(project, env, "install.override")
    data = override["data"]
    assert data["accepted_rules"] == rules and data["approved_by"] == "person" and data["via"] == "terminal"
    assert data["who"] and override["at"] and data["skill"].startswith("free-gpu-credits@")


# ------------------------------------------------------------------------------------------ person mode


def test_person_mode_an_agents_yes_gives_needs_person_a_terminal_installs(project: Path, env: dict) -> None:
    person = [*LOCAL, "-c", "approval.mode=person"]
    code, out = run_json([*person, "install", "-y", "disk-cleanup"], project, env)
    assert code == 1 and out["error"]["code"] == "needs_person"
    assert out["error"]["details"]["run"] == "nervous install disk-cleanup"
    assert not (project / "skills").exists()
    # a clean skill still installs on the agent's relayed yes
    code, out = run_json([*person, "install", "-y", "word-count"], project, env)
    assert code == 0 and out["approved_by"] == "agent" and out["verified"] is True
    code, text = at_terminal([*person, "install", "-y", "disk-cleanup"], project, env,
                             [("to confirm", "disk-cleanup")])
    assert code == 0, text
    assert (project / "skills" / "disk-cleanup").is_dir()
    admits = [e["data"] for e in _audit(project, env, "gate.admit")]
    assert [(a["skill"].split("@")[0], a["approved_by"]) for a in admits] == [("word-count", "agent"),
                                                                              ("disk-cleanup", "person")]


def test_person_mode_acquisition_approve_needs_the_person(project: Path, env: dict) -> None:
    person = [*LOCAL, "-c", "approval.mode=person"]
    code, state = run_json([*person, "acquire", "clean up disk space in my project"], project, env)
    assert code == 0 and state["state"] == "awaiting_approval"
    cand = next(c for c in state["candidates"] if c["name"] == "disk-cleanup")
    assert cand["decision"] == "review"
    code, state = run_json([*person, "approve", cand["token"], "--confirm-suspicious"], project, env)
    assert code == 0 and state["state"] == "needs_person"
    assert state["person_must_run"] == f"nervous approve {cand['token']}"
    assert not (project / "skills").exists()
    code, text = at_terminal([*person, "approve", cand["token"]], project, env, [("to confirm", "disk-cleanup")])
    assert code == 0, text
    assert (project / "skills" / "disk-cleanup").is_dir()


# ------------------------------------------------------------------------------------------ floors


class _Lenient:
    """A third-party review policy that allows everything."""

    name = "lenient"

    def decide(self, bundle: Any, side_effects: Any, risk: Any, context: Any, intent: Any) -> ReviewDecision:
        return ReviewDecision("allow", risk, ("everything is fine",), (), "lenient")


class _LenientPlugin:
    @nervous.hookimpl
    def nervous_review_policies(self) -> list[Provider]:
        return [Provider("lenient", "Allows everything.", lambda ctx: _Lenient())]


def test_a_third_party_policy_cannot_lower_the_floors(project: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    with nervous.Nervous(EXAMPLE_CONFIG, home=tmp_path / "home", autoload=False) as nv:
        nv.manager.register(_LenientPlugin(), "lenient-policy")
        nv.config.review.policy = "lenient"
        state = nv.request_install("local:free-gpu-credits")
        assert state.state == "refused" and "token" not in state.data["candidates"][0]
        assert {"NV-EXEC-001", "NV-EXFIL-001"} <= set(state.data["candidates"][0]["rule_ids"])
        plan = Installer(nv.manager).plan("local:free-gpu-credits")
        with pytest.raises(Refused) as err:
            Installer(nv.manager).install(plan, approval=gate.Approval("agent", "token", confirmed=True))
        assert err.value.code == "refused" and "whatever the configured policy decides" in err.value.message
        # the lenient policy does decide the rest: a clean skill is allowed
        clean = nv.request_install("local:word-count")
        assert clean.data["candidates"][0]["decision"] == "allow"
    assert not (project / "skills").exists()


def test_an_agent_approval_never_carries_accept_risk() -> None:
    verdict = gate.Verdict("x@1", "local", "refuse", rule_ids=("NV-EXEC-001",), refusing=("NV-EXEC-001",))
    for approval in (gate.Approval("agent", "token", True, ("NV-EXEC-001",)),
                     gate.Approval("person", "elicitation", True, ("NV-EXEC-001",))):
        with pytest.raises(Refused) as err:
            gate.check_approval(verdict, approval, "agent")
        assert "only from a person at an interactive terminal" in err.value.message
    gate.check_approval(verdict, gate.Approval("person", "terminal", True, ("NV-EXEC-001",)), "agent")


def test_reflexes_admit_only_clean_verified_allowed_skills() -> None:
    reflex = gate.Approval("reflex", "reflex")
    gate.check_approval(gate.Verdict("a@1", "local", "allow"), reflex, "agent")
    for bad in (gate.Verdict("a@1", "x", "allow", verified=False), gate.Verdict("a@1", "x", "allow", suspicious=True),
                gate.Verdict("a@1", "x", "review")):
        with pytest.raises(Refused) as err:
            gate.check_approval(bad, reflex, "agent")
        assert err.value.code == "reflex_blocked"


# ------------------------------------------------------------------------------------------ the ClawHub stand-in


def _files(name: str) -> dict[str, str]:
    return {"SKILL.md": skill_md(name, f"The {name} skill.")}


@pytest.fixture
def hub() -> Iterator[ClawHubStandin]:
    catalog = [
        {"slug": "plain", "owner": "alice", "files": _files("plain"), "noDigests": True},
        {"slug": "sus", "owner": "dave", "files": _files("sus"),
         "moderation": {"isSuspicious": True, "isMalwareBlocked": False, "verdict": "suspicious",
                        "reasonCodes": ["suspicious.env_credential_access"], "summary": "Reads API keys."}},
        {"slug": "mislabelled", "owner": "alice", "files": _files("mislabelled"), "meta": {"slug": "other"}},
        {"slug": "oldmeta", "owner": "alice", "files": _files("oldmeta"), "meta": {"version": "0.9.0"}},
        {"slug": "clean", "owner": "alice", "files": _files("clean")},
    ]
    with ClawHubStandin(catalog) as server:
        yield server


@pytest.fixture
def hub_env(hub: ClawHubStandin, tmp_path: Path) -> dict[str, str]:
    return env_for(tmp_path / "home", CLAWHUB_REGISTRY=hub.url, NERVOUS_REGISTRIES="clawhub")


def test_a_registry_without_digests_gives_an_unverified_install(project: Path, hub_env: dict) -> None:
    code, out = run_json(["install", "-y", "plain"], project, hub_env)
    assert code == 1 and out["error"]["code"] == "confirmation_required"
    assert "unverified" in out["error"]["message"]
    assert not (project / "skills").exists()
    code, out = run_json(["install", "-y", "--confirm-suspicious", "plain"], project, hub_env)
    assert code == 0 and out["verified"] is False
    assert any("UNVERIFIED" in w for w in out["warnings"])
    code, listed = run_json(["list"], project, hub_env)
    assert [(s["name"], s["verified"]) for s in listed["skills"]] == [("plain", False)]
    code, state = run_json(["acquire", "plain skill"], project, hub_env)
    cand = state["candidates"][0]
    assert cand["verified"] is False and cand["needs_confirmation"] and cand["decision"] == "review"


def test_yes_alone_does_not_install_a_suspicious_skill(project: Path, hub_env: dict) -> None:
    code, out = run_json(["install", "-y", "sus"], project, hub_env)
    assert code == 1 and out["error"]["code"] == "confirmation_required"
    code, out = run_json(["install", "-y", "--confirm-suspicious", "sus"], project, hub_env)
    assert code == 0 and out["decision"] == "review"


@pytest.mark.parametrize(("slug", "words"), [("mislabelled", "slug 'other'"), ("oldmeta", "version '0.9.0'")])
def test_meta_json_must_name_the_requested_skill_and_version(project: Path, hub_env: dict, slug: str,
                                                            words: str) -> None:
    code, out = run_json(["install", "-y", slug], project, hub_env)
    assert code == 2 and out["error"]["code"] == "meta_mismatch" and words in out["error"]["message"]
    assert not (project / "skills").exists()


def test_meta_json_owner_must_match() -> None:
    from nervous.kernel.records import SkillBundle, SkillFile, SkillRef

    bundle = SkillBundle(ref=SkillRef("demo", "alice", "clawhub"), version="1.0.0", registry="clawhub",
                         files=(SkillFile("_meta.json", b'{"ownerHandle": "mallory", "slug": "demo"}'),))
    with pytest.raises(BadInput) as err:
        gate.check_meta(bundle, SkillRef("demo", "alice", "clawhub"), "1.0.0", label="demo")
    assert err.value.code == "meta_mismatch" and "owner 'mallory'" in err.value.message


def test_install_targets_refuse_writes_outside_the_gate(project: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from nervous.kernel.records import SkillBundle, SkillFile, SkillRef

    monkeypatch.chdir(project)
    with nervous.Nervous(EXAMPLE_CONFIG, home=tmp_path / "home", autoload=False) as nv:
        bundle = SkillBundle(ref=SkillRef("sneaky", registry="local"), version="1", registry="local",
                             files=(SkillFile("SKILL.md", b"---\nname: sneaky\ndescription: x\n---\n"),))
        with pytest.raises(Refused) as err:
            nv.manager.install_target().install(bundle)
        assert err.value.code == "not_admitted"
    assert not (project / "skills" / "sneaky").exists()


# ------------------------------------------------------------------------------------------ tamper evidence


def _tamper_cases() -> dict[str, Any]:
    def ignore_file(d: Path) -> str:
        (d / ".clawhubignore").write_text("payload.sh\n")
        (d / "payload.sh").write_text("echo hidden\n")
        return "added file: payload.sh"

    def dotfile(d: Path) -> str:
        (d / ".env").write_text("X=1\n")
        return "added file: .env"

    def git_hook(d: Path) -> str:
        (d / ".git" / "hooks").mkdir(parents=True)
        (d / ".git" / "hooks" / "post-checkout").write_text("#!/bin/sh\n")
        return "added file: .git/hooks/post-checkout"

    def node_modules(d: Path) -> str:
        (d / "node_modules" / "x").mkdir(parents=True)
        (d / "node_modules" / "x" / "index.js").write_text("1\n")
        return "added file: node_modules/x/index.js"

    def exec_bit(d: Path) -> str:
        os.chmod(d / "SKILL.md", 0o755)
        return "executable bit set: SKILL.md"

    def symlink_folder(d: Path) -> str:
        elsewhere = d.parent.parent / "elsewhere"
        d.rename(elsewhere)
        d.symlink_to(elsewhere, target_is_directory=True)
        return "the skill folder was replaced by a symbolic link"

    def symlink_file(d: Path) -> str:
        (d / "SKILL.md").unlink()
        (d / "SKILL.md").symlink_to("/etc/hostname")
        return "replaced by a symbolic link: SKILL.md"

    return {f.__name__: f for f in (ignore_file, dotfile, git_hook, node_modules, exec_bit, symlink_folder,
                                    symlink_file)}


@pytest.mark.parametrize("case", sorted(_tamper_cases()))
def test_list_and_verify_say_what_changed(project: Path, env: dict, case: str) -> None:
    code, out = run_json([*LOCAL, "install", "-y", "word-count"], project, env)
    assert code == 0, out
    code, out = run_json([*LOCAL, "verify"], project, env)
    assert code == 0 and out["changed"] == []
    expected = _tamper_cases()[case](project / "skills" / "word-count")
    code, listed = run_json([*LOCAL, "list"], project, env)
    skill = listed["skills"][0]
    assert skill["modified"] is True and expected in skill["changes"], skill
    code, out = run_json([*LOCAL, "verify", "word-count"], project, env)
    assert code == 1 and out["changed"] == ["word-count"] and expected in out["skills"][0]["changes"]


def test_scan_limits_and_policy_refusals_without_rules_cannot_be_accepted() -> None:
    person = gate.Approval.person("terminal", accept_risk=("NV-LIMIT-001", "policy"))
    for verdict in (gate.Verdict("x@1", "local", "refuse", rule_ids=("NV-LIMIT-001",), refusing=("NV-LIMIT-001",)),
                    gate.Verdict("x@1", "local", "refuse", reasons=("the policy said no",))):
        with pytest.raises(Refused) as err:
            gate.check_approval(verdict, person, "agent", retry="nervous install x")
        assert "cannot be overridden" in err.value.message and "--accept-risk" not in err.value.message
