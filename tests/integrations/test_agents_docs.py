"""The integration docs run: docs/agents.md's Python is executed, docs/mcp.md's JSON is well formed."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def blocks(doc: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", (REPO / "docs" / doc).read_text(encoding="utf-8"), re.S)


def test_the_agent_loop_in_agents_md_runs(tmp_path: Path) -> None:
    code = "\n\n".join(blocks("agents.md", "python"))
    assert "acquire_and_use" in code and "nv.approve(" in code and "nv.done(" in code
    script = tmp_path / "agent_loop.py"
    script.write_text(code, encoding="utf-8")
    env = {"NERVOUS_HOME": str(tmp_path / "home"), "PATH": os.environ.get("PATH", ""),
           "NERVOUS_DISABLE_PLUGIN_AUTOLOAD": "1", "NERVOUS_PROJECT": "docs", "TMPDIR": str(tmp_path)}
    res = subprocess.run([sys.executable, str(script)], cwd=REPO, env=env, capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "done - learned from the success of word-count" in res.stdout
    assert "disk-cleanup: review" in res.stdout or "disk-cleanup: refuse" in res.stdout


def test_mcp_md_client_configurations_are_valid_json() -> None:
    configs = [json.loads(b) for b in blocks("mcp.md", "json")]
    assert configs
    for config in configs:
        servers = config.get("mcpServers") or config.get("servers") or config.get("mcp_servers")
        assert servers and servers["nervous"]["command"].endswith("nervous")
        assert servers["nervous"]["args"][-1] == "mcp"
