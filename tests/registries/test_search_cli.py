"""``nervous search`` when no registry answers: one JSON answer, every registry's reason, exit 3."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

from nervous.testing.cli import run_cli


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_no_registry_answers(nervous_home: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    env = {**os.environ, "NERVOUS_HOME": str(nervous_home), "CLAWHUB_REGISTRY": url,
           "NERVOUS_REGISTRIES": "clawhub", "NERVOUS_DISABLE_PLUGIN_AUTOLOAD": "1"}
    res = run_cli("search", "pdf", "--json", environ=env, cwd=nervous_home)
    assert res.returncode == 3
    data = json.loads(res.stdout)  # exactly one JSON document
    assert data["ok"] is False and data["error"]["code"] == "all_registries_failed"
    [status] = data["registries"]
    assert status["status"] == "error" and "connection refused" in status["message"]
    human = run_cli("search", "pdf", environ=env, cwd=nervous_home)
    assert human.returncode == 3 and "No registry answered" in human.stdout
    assert "connection refused" in human.stderr and "Traceback" not in human.stderr
