"""The goal workflows as MCP prompts, served by a real ``nervous mcp`` process to the SDK client."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError
from mcp_client import McpProcess, server_env

from nervous.frontends.integrations import bundled_skills
from nervous.testing.clawhub_server import ClawHubStandin


@pytest.fixture(scope="module")
def server(clawhub: ClawHubStandin, tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpProcess]:
    home = tmp_path_factory.mktemp("home")
    with McpProcess(server_env(home, clawhub.url), str(tmp_path_factory.mktemp("ws"))) as proc:
        yield proc


def test_the_prompts_are_listed_with_their_arguments(server: McpProcess) -> None:
    assert server.initialize.capabilities.prompts is not None
    listed = server.portal.call(server.session.list_prompts).prompts
    assert [p.name for p in listed] == ["cortex", "cortex-resume", "nervous-drain", "goal-workflow"]
    cortex = listed[0]
    assert [(a.name, a.required) for a in cortex.arguments] == [("request", True)]
    assert all(p.description for p in listed)


def test_cortex_fills_in_the_request(server: McpProcess) -> None:
    got = server.portal.call(server.session.get_prompt, "cortex", {"request": "Build a todo API with tests"})
    text = got.messages[0].content.text
    assert got.messages[0].role == "user"
    assert "Build a todo API with tests" in text and 'action "analyze"' in text
    assert "$ARGUMENTS" not in text and not text.startswith("---")


def test_drain_and_resume_take_optional_instructions(server: McpProcess) -> None:
    drain = server.portal.call(server.session.get_prompt, "nervous-drain", {}).messages[0].content.text
    assert drain.startswith("Drain the unfinished goals") and "$ARGUMENTS" not in drain and "\n\n\n" not in drain
    resume = server.portal.call(server.session.get_prompt, "cortex-resume", {"instructions": "skip the docs"})
    assert "skip the docs" in resume.messages[0].content.text


def test_the_workflow_prompt_is_the_skill_every_host_gets(server: McpProcess) -> None:
    text = server.portal.call(server.session.get_prompt, "goal-workflow", {}).messages[0].content.text
    skill = bundled_skills()["goal-workflow"]
    assert text == skill.split("---\n", 2)[2].strip()
    assert "0. **frame**" in text and "8. **complete**" in text


@pytest.mark.parametrize(("name", "args", "needle"), [
    ("cortex", {}, "'request' is required"),
    ("cortex", {"request": "x", "colour": "red"}, "unknown argument(s) colour"),
    ("deploy", {}, "unknown prompt 'deploy'"),
])
def test_bad_prompt_calls_are_invalid_params(server: McpProcess, name: str, args: dict[str, str], needle: str) -> None:
    with pytest.raises(MCPError) as info:
        server.portal.call(server.session.get_prompt, name, args)
    assert info.value.error.code == -32602 and needle in info.value.error.message


def test_the_prompt_files_exist_in_the_package() -> None:
    from nervous.frontends.mcp.prompts import PROMPTS

    root = Path(__file__).resolve().parents[2] / "nervous" / "frontends" / "integrations"
    for spec in PROMPTS:
        assert (root / spec.source).is_file(), spec.source
