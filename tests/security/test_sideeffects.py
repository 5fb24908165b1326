"""Pure tag functions: grammar, classes, icons, MCP hints, risk levels, reflex eligibility."""

from __future__ import annotations

import pytest

from nervous.kernel import sideeffects as se


def test_normalize_tags() -> None:
    tags = se.normalize_tags(["network:HTTPS://API.Example.com:443/v1", "read:env:Todoist_Key", "shell:FFmpeg -i x",
                              "write:./Out/", "network:api.example.com"])
    assert tags == ("network:api.example.com", "read:env:Todoist_Key", "shell:ffmpeg", "write:./out/")
    with pytest.raises(ValueError):
        se.normalize_tag("run:ls")


def test_collapse_to_wildcard() -> None:
    many = [f"shell:cmd{i}" for i in range(65)] + ["network:a.example.com"]
    assert se.normalize_tags(many) == ("network:a.example.com", "shell:*")
    assert len(se.normalize_tags([f"shell:cmd{i}" for i in range(64)])) == 64


def test_classes_and_icons() -> None:
    tags = ["delete:./build/", "read:env:GITHUB_TOKEN", "network:api.github.com", "shell:git", "write:./out"]
    classes = se.classes_of(tags)
    assert classes == ["destructive", "shell", "sensitive_credentials", "write", "network"]
    assert se.icons_of(classes) == "\U0001f534\u2699\ufe0f\U0001f511\U0001f7e1\U0001f310"
    assert se.classes_of(["read:env:REGION", "network:x.example.com"]) == ["network", "read_only"]
    assert se.classes_of(["read:env:REGION"], primary_env="REGION") == ["sensitive_credentials", "read_only"]
    assert se.classes_of(["read:file:~/.aws/credentials"]) == ["sensitive_credentials", "read_only"]
    assert se.classes_of([], complete=False) == []


@pytest.mark.parametrize("path,expected", [
    ("~/.ssh/id_ed25519", True), ("$HOME/.aws/credentials", True), ("./.env", True), (".env.production", True),
    ("~/Library/Application Support/Google/Chrome/Default/Login Data", True), ("wallet.dat", True),
    ("./environment.md", False), ("~/.sshrc-notes.txt", False), ("src/keys.py", False),
])
def test_credential_paths(path: str, expected: bool) -> None:
    assert se.is_credential_path(path) is expected


def test_reflex_and_mcp() -> None:
    assert se.reflex_eligible(["read:env:X", "network:a.example.com"])
    assert not se.reflex_eligible(["write:?"])
    assert se.mcp_hints(["network:*"]) == {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True,
                                           "openWorldHint": True}
    worst = se.mcp_hints([], ["incomplete"])
    assert worst == {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True}


def test_risk_levels() -> None:
    from nervous_plugins.review_policy import risk as se  # the review policy's scoring, not the vocabulary

    assert se.risk_level(["network:api.example.com"]) == "low"
    assert se.risk_level(["read:env:API_KEY"]) == "medium"
    assert se.risk_level(["shell:cp"], shell_tiers={"cp": "CAUTION"}) == "medium"
    assert se.risk_level(["shell:curl"], shell_tiers={"curl": "DANGEROUS"}) == "high"
    assert se.risk_level(["delete:./tmp"]) == "high"
    assert se.risk_level([], ["network_send"]) == "medium"
    assert se.risk_level([], ["financial"]) == "high"
