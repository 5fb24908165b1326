"""The ``github`` registry against the GitHub API stand-in over real loopback HTTP."""

from __future__ import annotations

import base64
import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from nervous_plugins.github import GitHubRegistry

from nervous.errors import BadInput, NotFound, RegistryError, UsageError
from nervous.kernel.bundle import load_zip
from nervous.kernel.fingerprint import bundle_fingerprint, folder_fingerprint
from nervous.kernel.records import SkillRef
from nervous.testing.github_server import GitHubServer, Submodule, Symlink, git_blob_sha

TOKEN = "ghp_test_token"
PDF = b"---\nname: pdf\ndescription: Read and fill PDF forms.\n---\n# PDF\nUse pdftotext.\n"
CSV = b"---\nname: csv\ndescription: Clean CSV files.\n---\n# CSV\n"


@pytest.fixture
def gh() -> Iterator[GitHubServer]:
    with GitHubServer() as server:
        skills = server.add_repo("acme/skills", description="Acme's agent skills", topics=["agent-skills"], stars=50)
        skills.commit({"README.md": b"# Acme skills\n", "skills/pdf/SKILL.md": PDF,
                       "skills/pdf/scripts/fill.py": b"print('fill')\n", "skills/pdf/.env.example": b"X=1\n",
                       "skills/csv/SKILL.md": CSV})
        single = server.add_repo("solo/weather", description="Weather skill", topics=["agent-skills", "weather"],
                                 stars=5)
        single.commit({"SKILL.md": b"---\nname: weather\ndescription: Forecasts via wttr.in.\n---\n# Weather\n",
                       "ref/api.md": b"curl wttr.in\n"})
        server.add_repo("old/archived", description="pdf tools", topics=["agent-skills"], archived=True).commit(
            {"SKILL.md": PDF})
        yield server


def registry(gh: GitHubServer, token: str | None = TOKEN, **kw: Any) -> GitHubRegistry:
    sleeps: list[float] = []
    reg = GitHubRegistry(api_url=gh.url, token=token,
                         http_options={"sleep": sleeps.append, "clock": gh.clock}, **kw)
    reg.sleeps = sleeps  # type: ignore[attr-defined]
    return reg


# --------------------------------------------------------------------------------------------
# Search


def test_code_search_with_token_finds_skill_folders(gh: GitHubServer) -> None:
    hits = registry(gh).search("pdf")
    assert [str(h.ref) for h in hits] == ["github:acme/skills/skills/pdf"]
    hit = hits[0]
    assert hit.reviewed is False and hit.scan.status == "unreviewed" and hit.registry == "github"
    assert hit.summary == "Acme's agent skills"
    req = gh.requests("/search/code")[-1]
    assert req["query"]["q"] == "pdf filename:SKILL.md" and req["token"]
    assert req["api_version"] == "2022-11-28" and req["user_agent"].startswith("nervous/")


def test_without_token_uses_topic_repository_search(gh: GitHubServer) -> None:
    hits = registry(gh, token=None).search("acme")
    assert not gh.requests("/search/code")
    assert [h.ref.qualified for h in hits] == ["acme/skills"]
    assert hits[0].stars == 50 and hits[0].reviewed is False
    q = gh.requests("/search/repositories")[-1]["query"]
    assert "topic:agent-skills" in q["q"] and q["sort"] == "stars"
    assert [h.ref.qualified for h in registry(gh, token=None).search("")] == ["acme/skills", "solo/weather"]


def test_code_search_requires_auth_on_the_wire(gh: GitHubServer) -> None:
    with pytest.raises(urllib.error.HTTPError) as exc:
        urllib.request.urlopen(f"{gh.url}/search/code?q=filename:SKILL.md")
    assert exc.value.code == 401
    assert json.loads(exc.value.read())["message"] == "Requires authentication"


def test_bad_token_is_a_clear_error(gh: GitHubServer) -> None:
    with pytest.raises(RegistryError, match="Bad credentials.*GITHUB_TOKEN") as exc:
        registry(gh, token="ghp_wrong").search("pdf")
    assert exc.value.code == "auth_failed"


def test_incomplete_results_warn(gh: GitHubServer) -> None:
    gh.incomplete_results = True
    reg = registry(gh)
    assert reg.search("pdf")
    assert any("partial" in w for w in reg.warnings)


# --------------------------------------------------------------------------------------------
# Pinning and fetching


def test_resolve_pins_the_default_branch_to_a_full_sha(gh: GitHubServer) -> None:
    head = gh.repos["acme/skills"].branches["main"]
    meta = registry(gh).resolve(SkillRef.parse("github:acme/skills/skills/pdf"))
    assert meta.latest_version == head and len(head) == 40
    assert meta.ref.revision == head and str(meta.ref) == f"github:acme/skills/skills/pdf@{head}"
    assert meta.reviewed is False and meta.stars == 50 and meta.scan.status == "unreviewed"
    assert gh.requests("/repos/acme/skills/commits/main")


def test_fetch_reads_files_at_the_pinned_sha(gh: GitHubServer) -> None:
    reg = registry(gh)
    meta = reg.resolve(SkillRef.parse("github:acme/skills/skills/pdf"))
    pinned = meta.latest_version
    gh.repos["acme/skills"].commit({"skills/pdf/SKILL.md": PDF + b"changed\n"})  # the branch moves on
    bundle = reg.fetch(meta.ref)
    assert bundle.version == pinned and bundle.registry == "github"
    assert [f.path for f in bundle.files] == ["scripts/fill.py", "SKILL.md"]  # dot files left out
    assert bundle.file("SKILL.md").data == PDF  # type: ignore[union-attr]
    for req in gh.requests("/repos/acme/skills/git/blobs/"):
        assert "application/vnd.github.raw" in req["accept"]


def test_fetch_matches_codeload_zip_of_the_same_commit(gh: GitHubServer) -> None:
    """Two independent paths to the same bytes: blobs via the API and the codeload archive."""
    reg = registry(gh)
    bundle = reg.fetch(SkillRef.parse("github:acme/skills/skills/pdf"))
    sha = bundle.version
    with urllib.request.urlopen(f"{gh.url}/repos/acme/skills/zipball/{sha}") as resp:  # follows the 302
        data = resp.read()
    zipped = load_zip(data, strip_top=True, subpath="skills/pdf")
    assert bundle_fingerprint(bundle) == bundle_fingerprint(zipped)


def test_repo_root_skill_and_multi_skill_repo(gh: GitHubServer) -> None:
    reg = registry(gh)
    assert reg.resolve(SkillRef.parse("github:solo/weather")).ref.path == "weather"
    with pytest.raises(UsageError, match="holds 2 skills") as exc:
        reg.resolve(SkillRef.parse("github:acme/skills"))
    assert exc.value.details["matches"] == ["github:acme/skills/skills/csv", "github:acme/skills/skills/pdf"]


def test_version_by_short_sha_and_versions(gh: GitHubServer) -> None:
    reg = registry(gh)
    head = gh.repos["solo/weather"].branches["main"]
    v = reg.version(SkillRef.parse("github:solo/weather"), head[:10])
    assert v.version == head
    assert {f.path for f in v.files} == {"SKILL.md", "ref/api.md"}
    assert [x.version for x in reg.versions(SkillRef.parse("github:solo/weather"))] == [head]
    with pytest.raises(UsageError, match="must be a commit sha"):
        reg.version(SkillRef.parse("github:solo/weather"), "main")


def test_unknown_repo_and_folder(gh: GitHubServer) -> None:
    reg = registry(gh)
    with pytest.raises(NotFound, match="not found"):
        reg.resolve(SkillRef.parse("github:acme/nope"))
    with pytest.raises(NotFound, match="no SKILL.md in 'skills/none'"):
        reg.resolve(SkillRef.parse("github:acme/skills/skills/none"))


def test_symlink_in_skill_folder_refused_submodule_skipped(gh: GitHubServer) -> None:
    repo = gh.add_repo("evil/skill")
    repo.commit({"SKILL.md": PDF, "creds": Symlink("/home/user/.ssh/id_rsa")})
    with pytest.raises(BadInput, match="'creds'.*symlink"):
        registry(gh).fetch(SkillRef.parse("github:evil/skill"))
    repo.commit({"SKILL.md": PDF, "vendor/lib": Submodule("a" * 40)})
    reg = registry(gh)
    assert [f.path for f in reg.fetch(SkillRef.parse("github:evil/skill")).files] == ["SKILL.md"]
    assert any("submodule 'vendor/lib'" in w for w in reg.warnings)


def test_limits_checked_before_download(gh: GitHubServer) -> None:
    from nervous.kernel.config import InstallConfig

    gh.add_repo("big/skill").commit({"SKILL.md": PDF, "data.bin": b"x" * 5000})
    reg = registry(gh, limits=InstallConfig(max_file_bytes=1000))
    with pytest.raises(BadInput, match="larger than 1000 bytes"):
        reg.fetch(SkillRef.parse("github:big/skill"))
    assert not gh.requests("/repos/big/skill/git/blobs/")


def test_truncated_tree_falls_back_to_contents_listing(gh: GitHubServer) -> None:
    gh.truncate_trees.add("acme/skills")
    reg = registry(gh)
    bundle = reg.fetch(SkillRef.parse("github:acme/skills/skills/pdf"))
    assert [f.path for f in bundle.files] == ["scripts/fill.py", "SKILL.md"]
    assert gh.requests("/repos/acme/skills/contents/skills/pdf")


def test_contents_api_shapes(gh: GitHubServer) -> None:
    sha = gh.repos["acme/skills"].branches["main"]
    with urllib.request.urlopen(f"{gh.url}/repos/acme/skills/contents/skills/pdf/SKILL.md?ref={sha}") as r:
        body = json.loads(r.read())
    assert body["encoding"] == "base64" and body["sha"] == git_blob_sha(PDF)
    assert all(len(line) <= 60 for line in body["content"].splitlines())
    assert base64.b64decode(body["content"]) == PDF
    req = urllib.request.Request(f"{gh.url}/repos/acme/skills/contents/skills/pdf/SKILL.md?ref={sha}",
                                 headers={"Accept": "application/vnd.github.raw+json"})
    with urllib.request.urlopen(req) as r:
        assert r.read() == PDF
    with urllib.request.urlopen(f"{gh.url}/repos/acme/skills/contents/skills?ref={sha}") as r:
        listing = json.loads(r.read())
    assert [(e["name"], e["type"]) for e in listing] == [("csv", "dir"), ("pdf", "dir")]


# --------------------------------------------------------------------------------------------
# Rate limits


def test_rate_limit_headers_on_every_response(gh: GitHubServer) -> None:
    with urllib.request.urlopen(f"{gh.url}/repos/acme/skills") as r:
        headers = {k.lower(): v for k, v in r.headers.items()}
    for name in ("x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-used", "x-ratelimit-reset",
                 "x-ratelimit-resource"):
        assert name in headers
    assert headers["x-ratelimit-limit"] == "60" and headers["x-ratelimit-resource"] == "core"


def test_secondary_limit_with_retry_after_is_waited_out(gh: GitHubServer) -> None:
    gh.secondary_remaining = 2
    gh.secondary_retry_after = 3
    reg = registry(gh)
    assert reg.search("pdf")
    assert reg.sleeps == [3.0, 3.0]  # type: ignore[attr-defined]
    assert len(gh.requests("/search/code")) == 3


def test_secondary_limit_that_persists_gives_up_after_three_tries(gh: GitHubServer) -> None:
    gh.secondary_remaining = 10
    gh.secondary_status = 429
    reg = registry(gh)
    with pytest.raises(RegistryError, match="secondary rate limit exceeded") as exc:
        reg.search("pdf")
    assert exc.value.code == "rate_limited"
    assert len(gh.requests("/search/code")) == 3


def test_primary_limit_waits_for_reset_or_fails_fast(gh: GitHubServer) -> None:
    now = [1_800_000_000.0]
    gh.clock = lambda: now[0]
    gh.limits["core"] = (3, 5000)
    reg = GitHubRegistry(api_url=gh.url, token=None, http_options={"sleep": lambda s: None, "clock": gh.clock})
    reg.resolve(SkillRef.parse("github:solo/weather"))  # repo + commit + tree: the bucket is now empty
    with pytest.raises(RegistryError, match=r"rate limited by GitHub; retry in 3\d\d\d s.*GITHUB_TOKEN") as exc:
        reg.resolve(SkillRef.parse("github:solo/weather"))
    assert exc.value.code == "rate_limited"
    assert len(gh.requests("/repos/solo/weather")) == 4  # no retries while the reset is an hour away
    # A reset within the wait budget is slept through, then the call succeeds.
    slept: list[float] = []

    def sleep(s: float) -> None:
        slept.append(s)
        now[0] += s

    gh.windows["core"] = 30
    gh.used.clear()
    reg = GitHubRegistry(api_url=gh.url, token=None, http_options={"sleep": sleep, "clock": gh.clock})
    reg.resolve(SkillRef.parse("github:solo/weather"))
    meta = reg.resolve(SkillRef.parse("github:solo/weather"))
    assert meta.latest_version and slept and 1.0 <= slept[0] <= 30.0


def test_primary_limit_429_on_search_is_clear(gh: GitHubServer) -> None:
    now = [1_800_000_000.0]
    gh.clock = lambda: now[0]
    gh.primary_status = 429
    gh.limits["search"] = (1, 30)
    reg = GitHubRegistry(api_url=gh.url, token=None, max_wait=5, http_options={"sleep": lambda s: None,
                                                                                 "clock": gh.clock})
    reg.search("skills", limit=5)
    with pytest.raises(RegistryError, match="rate limited") as exc:
        reg.search("skills", limit=5)
    assert exc.value.code == "rate_limited" and exc.value.details["retry_after"] > 5


def test_validation_failed_is_a_usage_error(gh: GitHubServer) -> None:
    with pytest.raises(UsageError, match="Validation Failed"):
        registry(gh)._get("/search/code", {"q": "(a OR b) filename:SKILL.md"}, what="code search")


# --------------------------------------------------------------------------------------------
# Plugin wiring


def test_provider_settings_and_env(nervous_config: Any, monkeypatch: pytest.MonkeyPatch, gh: GitHubServer) -> None:
    from nervous.kernel.manager import PluginManager

    monkeypatch.setenv("GITHUB_TOKEN", "ghp_from_env")
    nervous_config.plugins.settings["github"] = {"api_url": gh.url, "topics": ["claude-skills"]}
    pm = PluginManager(nervous_config, autoload=False)
    try:
        reg = pm.create("registry", "github")
        assert reg.api_url == gh.url and reg.token == "ghp_from_env" and reg.topics == ("claude-skills",)
    finally:
        pm.close()
    nervous_config.plugins.settings["github"]["token"] = "ghp_cfg"
    pm = PluginManager(nervous_config, autoload=False)
    try:
        assert pm.create("registry", "github").token == "ghp_cfg"
    finally:
        pm.close()


def test_loading_the_plugin_does_not_import_http() -> None:
    import subprocess
    import sys

    code = "import sys, nervous_plugins.github; print('nervous.kernel.http' in sys.modules, 'urllib.request' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_fetched_bundle_fingerprint_equals_installed_folder(gh: GitHubServer, tmp_path: Any) -> None:
    bundle = registry(gh).fetch(SkillRef.parse("github:acme/skills/skills/pdf"))
    for f in bundle.files:
        p = tmp_path / "pdf" / f.path
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(f.data)
    assert folder_fingerprint(tmp_path / "pdf") == bundle_fingerprint(bundle)
