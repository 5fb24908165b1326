"""Acceptance: every refusal gives a clear error and leaves the skills directory unchanged."""

from __future__ import annotations

import io
import stat
import zipfile
from pathlib import Path
from typing import Any

import pytest
from install_helpers import digest

from nervous.engines.install.gate import Approval
from nervous.engines.install.installer import Installer
from nervous.errors import BadInput, NervousError, Refused, RegistryError, UsageError
from nervous.testing.clawhub_server import ClawHubStandin, skill_md

#: the user's yes, relayed by an agent (a token, --yes)
AGENT = Approval("agent", "token")


@pytest.fixture
def skills(workdir: Path) -> Path:
    """A skills folder holding one long-term skill of the user's, which must never change."""
    folder = workdir / "skills" / "mine"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(skill_md("mine", "The user's own skill."))
    return workdir / "skills"


def _attempt(pm: Any, ref: str, **kw: Any) -> NervousError:
    installer = Installer(pm)
    with pytest.raises(NervousError) as info:
        plan = installer.plan(ref)
        installer.install(plan, approval=kw.pop("approval", AGENT), **kw)
    return info.value


def _unchanged(pm: Any, skills: Path, before: dict[str, str], workdir: Path) -> None:
    assert digest(skills) == before
    assert not (workdir / ".clawhub" / "lock.json").exists()
    assert pm.install_target().installed() == []


@pytest.mark.parametrize("legacy", [False, True], ids=["current", "legacy"])
@pytest.mark.parametrize(
    ("ref", "error", "code", "words"),
    [
        ("malware", Refused, "malware", "malicious"),
        ("badversion", Refused, "malware", "malicious"),
        ("pending", RegistryError, "scan_pending", "try again"),
        ("scanpending", RegistryError, "scan_pending", "try again later"),
        ("removed", Refused, "removed", "removed by a moderator"),
        ("hidden", Refused, "unavailable", "currently unavailable"),
    ],
)
def test_moderation_states_refuse_and_never_download(
    pm: Any, standin: ClawHubStandin, skills: Path, workdir: Path, legacy: bool,
    ref: str, error: type[NervousError], code: str, words: str,
) -> None:
    standin.legacy_moderation = legacy
    before = digest(skills)
    err = _attempt(pm, ref)
    assert isinstance(err, error), err
    assert err.code == code
    assert words in err.message.lower()
    assert "/api/v1/download" not in standin.paths_requested()
    _unchanged(pm, skills, before, workdir)


def test_malware_error_carries_the_registry_reason(pm: Any, standin: ClawHubStandin, skills: Path) -> None:
    standin.legacy_moderation = True  # older servers show the moderation block on the detail route
    err = _attempt(pm, "malware")
    assert "Mines cryptocurrency." in err.message and "malicious.crypto_mining" in err.message


def test_suspicious_needs_explicit_confirmation_and_never_reflex(
    pm: Any, standin: ClawHubStandin, skills: Path, workdir: Path
) -> None:
    before = digest(skills)
    plan = Installer(pm).plan("sus")
    assert plan.needs_confirmation
    assert any("suspicious.env_credential_access" in w for w in plan.warnings)
    with pytest.raises(Refused) as info:
        Installer(pm).install(plan)
    assert info.value.code == "confirmation_required"
    with pytest.raises(Refused) as info:
        Installer(pm, reflex=True).plan("sus")
    assert info.value.code == "suspicious_reflex"
    _unchanged(pm, skills, before, workdir)  # fetched in memory for the integrity check, never written
    record = Installer(pm).install(plan, approval=Approval("agent", "token", confirmed=True))
    assert record.version == "1.0.0" and (skills / "sus" / "SKILL.md").is_file()


def test_ambiguous_slug_lists_the_choices(pm: Any, standin: ClawHubStandin, skills: Path, workdir: Path) -> None:
    before = digest(skills)
    err = _attempt(pm, "twin")
    assert isinstance(err, UsageError) and err.code == "ambiguous_slug"
    assert "@alice/twin" in err.message and "@bob/twin" in err.message
    assert err.details["matches"] == ["@alice/twin", "@bob/twin"]
    _unchanged(pm, skills, before, workdir)
    record = Installer(pm).install(Installer(pm).plan("@bob/twin"), approval=AGENT)
    assert Path(record.path) == skills / "@bob" / "twin"
    assert any(r["query"].get("ownerHandle") == "bob" for r in standin.requests if r["path"] == "/api/v1/download")


def test_rate_limit_is_retried_after_retry_after_then_fails_clearly(
    pm: Any, standin: ClawHubStandin, skills: Path, workdir: Path, sleeps: list[float]
) -> None:
    before = digest(skills)
    standin.rate_limit(after=0, count=10, retry_after=7)
    err = _attempt(pm, "demo")
    assert isinstance(err, RegistryError) and err.code == "rate_limited"
    assert "429" in err.message and "Rate limit exceeded" in err.message
    assert len(sleeps) == 2 and all(7 <= s <= 7.25 for s in sleeps)
    _unchanged(pm, skills, before, workdir)


def test_rate_limit_recovers_within_the_retry_budget(
    pm: Any, standin: ClawHubStandin, skills: Path, sleeps: list[float]
) -> None:
    standin.rate_limit(after=1, count=2, retry_after=3)
    record = Installer(pm).install(Installer(pm).plan("demo"), approval=AGENT)
    assert record.version == "1.1.0"
    assert [round(s) for s in sleeps] == [3, 3]


def test_a_wait_beyond_a_minute_is_not_slept(pm: Any, standin: ClawHubStandin, sleeps: list[float]) -> None:
    standin.rate_limit(after=0, count=1, retry_after=3600)
    err = _attempt(pm, "demo")
    assert err.code == "rate_limited" and "retry in 3600" in err.message
    assert sleeps == []


def test_5xx_burst_gives_up_after_three_attempts(
    pm: Any, standin: ClawHubStandin, skills: Path, workdir: Path, sleeps: list[float]
) -> None:
    before = digest(skills)
    standin.fail_next(3, status=500)
    err = _attempt(pm, "demo")
    assert isinstance(err, RegistryError)
    assert "HTTP 500 after 3 attempts" in err.message and "/api/v1/skills/demo" in err.message
    assert len(sleeps) == 2
    _unchanged(pm, skills, before, workdir)
    standin.fail_next(2, status=503)
    assert Installer(pm).install(Installer(pm).plan("demo"), approval=AGENT).version == "1.1.0"


def _hostile(standin: ClawHubStandin, slug: str, zip_bytes: bytes) -> None:
    standin.add_skill({"slug": slug, "owner": "eve", "versions": [{
        "version": "1.0.0", "files": {"SKILL.md": skill_md(slug, "Hostile.")}, "zipBytes": zip_bytes}]})


def _zip(entries: list[tuple[zipfile.ZipInfo | str, bytes]]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries:
            zf.writestr(name, data)
    return buf.getvalue()


def _symlink_entry(name: str, target: str) -> tuple[zipfile.ZipInfo, bytes]:
    info = zipfile.ZipInfo(name)
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info, target.encode()


@pytest.mark.parametrize(
    ("slug", "entries", "words"),
    [
        ("dotdot", [("SKILL.md", skill_md("dotdot", "x").encode()), ("../evil.sh", b"rm -rf ~\n")], ".."),
        ("absolute", [("SKILL.md", skill_md("absolute", "x").encode()), ("/etc/evil", b"x")], "absolute"),
        ("backslash", [("SKILL.md", skill_md("backslash", "x").encode()), ("a\\..\\evil", b"x")], "\\"),
        ("symlink", [("SKILL.md", skill_md("symlink", "x").encode()), _symlink_entry("creds", "/etc/passwd")],
         "symlink"),
        ("bomb", [("SKILL.md", skill_md("bomb", "x").encode()), ("pad.bin", b"\0" * (3 * 1024 * 1024))], "zip bomb"),
    ],
)
def test_unsafe_archives_are_refused_whole(
    pm: Any, standin: ClawHubStandin, skills: Path, workdir: Path, slug: str, entries: list[Any], words: str
) -> None:
    _hostile(standin, slug, _zip(entries))
    before = digest(skills)
    err = _attempt(pm, slug)
    assert isinstance(err, BadInput), err
    assert words in err.message.lower() or words in err.message
    _unchanged(pm, skills, before, workdir)
    assert not (workdir / "evil.sh").exists()
    assert not [p for p in skills.iterdir() if p.name.startswith(".nervous-")]


def test_oversized_archive_is_refused(pm: Any, standin: ClawHubStandin, skills: Path, workdir: Path) -> None:
    pm.config.install.max_file_bytes = 1024
    pm.config.install.max_compression_ratio = 10_000.0
    _hostile(standin, "big", _zip([("SKILL.md", skill_md("big", "x").encode()), ("big.bin", b"\1" * 4096)]))
    before = digest(skills)
    err = _attempt(pm, "big")
    assert isinstance(err, BadInput) and "big.bin" in err.message
    _unchanged(pm, skills, before, workdir)


def test_sha256_mismatch_names_the_file(pm: Any, standin: ClawHubStandin, skills: Path, workdir: Path) -> None:
    before = digest(skills)
    err = _attempt(pm, "tampered")
    assert isinstance(err, BadInput) and err.code == "integrity"
    assert "run.sh: sha256" in err.message and "SKILL.md" not in err.message
    _unchanged(pm, skills, before, workdir)
