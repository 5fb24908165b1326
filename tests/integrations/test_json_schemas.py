"""docs/json-schemas.md: every schema is valid, and real ``--json`` outputs validate against them.

The commands run offline against the example registry (examples/nervous.toml) in a fresh home.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from nervous.testing.cli import run_cli

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / "examples" / "nervous.toml"


def schemas() -> dict[str, dict[str, Any]]:
    text = (REPO / "docs" / "json-schemas.md").read_text(encoding="utf-8")
    out = {}
    for block in re.findall(r"```json\n(.*?)```", text, re.S):
        schema = json.loads(block)
        out[schema["$id"].removeprefix("urn:nervous:json:")] = schema
    return out


SCHEMAS = schemas()


def check(name: str, data: dict[str, Any]) -> None:
    errors = sorted(Draft202012Validator(SCHEMAS[name]).iter_errors(data), key=lambda e: e.json_path)
    assert not errors, f"{name}: " + "; ".join(f"{e.json_path}: {e.message}" for e in errors[:5])
    if data.get("ok") is True:
        check_envelope(data)


def check_envelope(data: dict[str, Any]) -> None:
    errors = list(Draft202012Validator(SCHEMAS["envelope"]).iter_errors(data))
    assert not errors, errors[0].message


class Cli:
    def __init__(self, cwd: Path, home: Path) -> None:
        self.cwd = cwd
        self.env = {"NERVOUS_HOME": str(home), "NERVOUS_DISABLE_PLUGIN_AUTOLOAD": "1", "NERVOUS_PROJECT": "schemas",
                    "PATH": "/usr/bin:/bin"}

    def __call__(self, *args: str, code: int = 0) -> dict[str, Any]:
        res = run_cli("--config", str(CONFIG), *args, "--json", cwd=self.cwd, environ=self.env)
        assert res.returncode == code, f"{args}: exit {res.returncode}: {res.stdout[-800:]} {res.stderr[-800:]}"
        data: dict[str, Any] = json.loads(res.stdout)
        return data


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    work = tmp_path / "work"
    work.mkdir()
    return Cli(work, tmp_path / "home")


def test_every_schema_is_a_valid_json_schema() -> None:
    assert {"envelope", "error", "search", "install", "acquire", "goal", "evolve", "scan"} <= set(SCHEMAS)
    for schema in SCHEMAS.values():
        Draft202012Validator.check_schema(schema)
    # they do reject wrong shapes
    assert not Draft202012Validator(SCHEMAS["search"]).is_valid({"ok": True, "warnings": []})
    assert not Draft202012Validator(SCHEMAS["error"]).is_valid({"ok": False, "error": {"code": ""}, "warnings": []})


def test_registry_commands(cli: Cli) -> None:
    check("search", cli("search", "word"))
    check("inspect", cli("inspect", "word-count"))
    check("install", cli("install", "word-count", "--yes"))
    check("list", cli("list"))
    check("verify", cli("verify"))
    check("uninstall", cli("uninstall", "word-count"))
    check("scan", cli("scan", "word-count"))
    check("scan", cli("scan", str(REPO / "examples" / "registry" / "word-count")))
    check("error", cli("install", "no-such-skill", "--yes", code=1))
    check("error", cli("search", code=2))  # usage error: the query is missing


def test_the_acquisition_loop(cli: Cli) -> None:
    started = cli("acquire", "count the words in my report")
    check("acquire", started)
    token = next(c["token"] for c in started["candidates"] if "token" in c)
    installed = cli("approve", token)
    check("acquire", installed)
    assert installed["state"] == "installed"
    finished = cli("done", installed["installed"]["slug"], "--outcome", "success")
    check("acquire", finished)
    check("perceive", cli("perceive", "count the words in my notes"))
    again = cli("acquire", "count the words in my notes")
    token = next(c["token"] for c in again["candidates"] if "token" in c)
    check("acquire", cli("cancel", token))
    check("error", cli("approve", token, code=1))
    check("cortex-stats", cli("cortex", "stats"))


def test_goal_and_evolver_commands(cli: Cli) -> None:
    check("goal", cli("goal", "analyze", "Ship the report"))
    check("goal", cli("goal", "summary"))
    check("goal", cli("goal", "list"))
    check("error", cli("goal", "complete", code=1))
    check("evolve", cli("evolve", "list"))
    check("evolve", cli("evolve", "mode"))


def test_kernel_and_integration_commands(cli: Cli, tmp_path: Path) -> None:
    check("plugins", cli("plugins"))
    check("config-show", cli("config", "show"))
    check("storage-info", cli("storage", "info"))
    check("audit", cli("audit"))
    check("mcp-list-tools", cli("mcp", "--list-tools"))
    check("integrations-install", cli("integrations", "install", "openclaw", "--workspace", str(tmp_path)))


def test_the_scan_report(tmp_path: Path) -> None:
    from nervous import Nervous

    with Nervous(CONFIG, home=tmp_path, autoload=False) as nv:
        for skill in ("word-count", "disk-cleanup"):
            report = nv.scan(REPO / "examples" / "registry" / skill).to_json()
            check("scan", report)
