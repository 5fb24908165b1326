"""The MCP server answers lines that are not JSON-RPC messages with the protocol's own errors."""

from __future__ import annotations

import json
from pathlib import Path

from .test_limits import _rpc, mcp_session


def test_parse_errors_and_invalid_requests_are_answered_and_the_session_goes_on(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with mcp_session(home, tmp_path) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        # not JSON, JSON of the wrong kinds, a request whose method is a number; blank lines are skipped
        proc.stdin.write(b'{"jsonrpc": "2.0", "id": 2, "method": \n\n   \n[1, 2]\n"ping"\n'
                         b'{"jsonrpc": "2.0", "id": 3, "method": 42}\n{"id": "four"}\n\xff\xfe\n')
        proc.stdin.flush()
        _rpc(proc, {"jsonrpc": "2.0", "id": 9, "method": "ping"})
        answers = []
        while True:
            data = json.loads(proc.stdout.readline())
            if data.get("id") == 9:
                break
            answers.append(data)
        assert [(a["id"], a["error"]["code"]) for a in answers] == [
            (None, -32700), (None, -32600), (None, -32600), (3, -32600), ("four", -32600), (None, -32700)]
        assert all(a["jsonrpc"] == "2.0" and a["error"]["message"] for a in answers)
        assert "parse error" in answers[0]["error"]["message"] and "an array" in answers[1]["error"]["message"]
        assert data == {"jsonrpc": "2.0", "id": 9, "result": {}}  # the session goes on
    assert proc.returncode == 0
