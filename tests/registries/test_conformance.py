"""Every built-in registry, and the documented third-party example, pass the registry conformance suite."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from nervous_plugins.clawhub import ClawHubRegistry
from nervous_plugins.github import GitHubRegistry
from nervous_plugins.local_registry import LocalRegistry

from nervous.kernel.records import SkillRef
from nervous.testing.clawhub_server import ClawHubStandin, skill_md
from nervous.testing.github_server import GitHubServer
from nervous.testing.registry_suite import RegistryConformance

EXAMPLE = Path(__file__).parents[2] / "examples"


class TestLocal(RegistryConformance):
    @pytest.fixture
    def registry(self) -> Any:
        return LocalRegistry([EXAMPLE / "registry"])

    @pytest.fixture
    def query(self) -> str:
        return "count words"

    @pytest.fixture
    def missing_ref(self) -> SkillRef:
        return SkillRef("no-such-skill", registry="local")


class TestClawHub(RegistryConformance):
    @pytest.fixture
    def registry(self) -> Iterator[Any]:
        skills = [{"slug": "pdf-tools", "owner": "acme", "summary": "Read and fill PDF forms.",
                   "files": {"SKILL.md": skill_md("pdf-tools", "Read and fill PDF forms."),
                             "scripts/fill.sh": "pdftk \"$1\" fill_form \"$2\" output out.pdf\n"}}]
        with ClawHubStandin(skills) as server:
            yield ClawHubRegistry(registry=server.url)

    @pytest.fixture
    def query(self) -> str:
        return "pdf"

    @pytest.fixture
    def missing_ref(self) -> SkillRef:
        return SkillRef("no-such-skill", registry="clawhub")


class TestGitHub(RegistryConformance):
    publishes_digests = False  # the GitHub API gives git blob ids (SHA-1 of a header and the bytes), not SHA-256
    @pytest.fixture
    def registry(self) -> Iterator[Any]:
        with GitHubServer() as server:
            repo = server.add_repo("acme/skills", description="Agent skills", topics=["agent-skills"], stars=3)
            repo.commit({"skills/pdf/SKILL.md": b"---\nname: pdf\ndescription: Read PDF forms.\n---\n# PDF\n",
                         "skills/pdf/scripts/read.py": b"print('read')\n"})
            yield GitHubRegistry(api_url=server.url, token="ghp_test_token",
                                 http_options={"sleep": lambda s: None, "clock": server.clock})

    @pytest.fixture
    def query(self) -> str:
        return "pdf"

    @pytest.fixture
    def missing_ref(self) -> SkillRef:
        return SkillRef.parse("github:acme/skills/skills/nothing-here")


class TestThirdPartyExample(RegistryConformance):
    @pytest.fixture
    def registry(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
        monkeypatch.syspath_prepend(str(EXAMPLE / "nervous-demo-registry" / "src"))
        sys.modules.pop("nervous_demo_registry.plugin", None)
        from nervous_demo_registry.plugin import CatalogRegistry

        catalog = tmp_path / "catalog.json"
        catalog.write_text(json.dumps({"skills": {"weather": {
            "summary": "Forecasts for a city", "version": "2.0.0",
            "files": {"SKILL.md": "---\nname: weather\ndescription: Forecasts for a city.\n---\n# Weather\n"}}}}))
        return CatalogRegistry(catalog)

    @pytest.fixture
    def query(self) -> str:
        return "forecasts"

    @pytest.fixture
    def missing_ref(self) -> SkillRef:
        return SkillRef("no-such-skill", registry="demo")
