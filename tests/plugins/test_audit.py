"""The audit plugin records lifecycle events in the configured store; observers never break work."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import nervous
from nervous.testing.cli import run_cli


def test_events_are_appended_to_the_store_audit_log(nervous_pm: Any) -> None:
    assert nervous_pm.emit("install", {"ref": "demo", "version": "1.0.0"}) == []
    nervous_pm.emit("uninstall", {"ref": "demo"})
    entries = nervous_pm.storage().read_log("audit")
    assert [e["kind"] for e in entries] == ["install", "uninstall"]
    assert entries[0]["data"] == {"ref": "demo", "version": "1.0.0"}
    assert entries[0]["at"].endswith("Z")


def test_audit_can_be_disabled_by_settings(nervous_pm: Any) -> None:
    nervous_pm.config.plugins.settings["audit"] = {"enabled": False}
    nervous_pm.emit("install", {"ref": "demo"})
    assert nervous_pm.storage().read_log("audit") == []


class Broken:
    @nervous.hookimpl
    def nervous_event(self, event: Any) -> None:
        raise RuntimeError("telemetry endpoint down")


def test_a_failing_observer_becomes_a_warning_naming_it(nervous_pm: Any) -> None:
    nervous_pm.register(Broken(), "telemetry")
    warnings = nervous_pm.emit("search", {"hits": 0})
    assert len(warnings) == 1 and "telemetry" in warnings[0] and "endpoint down" in warnings[0]
    assert [e["kind"] for e in nervous_pm.storage().read_log("audit")] == ["search"]


def test_audit_command(nervous_home: Path, nervous_pm: Any) -> None:
    nervous_pm.emit("install", {"ref": "demo"})
    env = {**os.environ, "NERVOUS_HOME": str(nervous_home)}
    out = run_cli("audit", "--json", "--kind", "install", environ=env, cwd=nervous_home)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert [e["data"] for e in data["events"]] == [{"ref": "demo"}]


def test_a_log_of_damaged_lines_is_one_warning(nervous_home: Path, nervous_pm: Any) -> None:
    nervous_pm.emit("install", {"ref": "demo"})
    (log,) = (nervous_home / "data").rglob("audit.jsonl")
    with log.open("ab") as f:
        f.write(b"garbage\n" * 30_000 + b'{"kind": "install", "data": {"ref": "late"}}\n' + b"[1]\n")
    env = {**os.environ, "NERVOUS_HOME": str(nervous_home)}
    out = run_cli("audit", "--json", "--kind", "install", environ=env, cwd=nervous_home)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert sorted(e["data"]["ref"] for e in data["events"]) == ["demo", "late"]  # whole lines still read
    damaged = [w for w in data["warnings"] if "not a JSON object" in w]
    assert len(damaged) == 1, damaged[:3]
    assert "30001 lines are not a JSON object (lines 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 and 29991 more)" in damaged[0]
