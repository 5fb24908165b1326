"""Drive ``nervous`` as an agent would (in-process, no terminal) and as a person would: in a real
pseudo-terminal, answering its prompts."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from nervous.testing.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_CONFIG = ROOT / "examples" / "nervous.toml"


def env_for(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NERVOUS_", "CLAWHUB_"))}
    env.update(NERVOUS_HOME=str(home), NERVOUS_DISABLE_PLUGIN_AUTOLOAD="1", NO_COLOR="1", **extra)
    return env


def run_json(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, dict[str, Any]]:
    """``nervous ARGS --json`` without a terminal (an agent's call)."""
    res = run_cli(*args, "--json", cwd=cwd, environ=env)
    return res.exit_code, json.loads(res.stdout)


def at_terminal(args: list[str], cwd: Path, env: dict[str, str], answers: list[tuple[str, str]],
                timeout: float = 60.0) -> tuple[int, str]:
    """Run ``nervous ARGS`` on a pseudo-terminal; when the output shows ``expect``, type ``reply``."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "nervous", *args], cwd=cwd, env=env, stdin=slave,
                            stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    out = b""
    pending = list(answers)
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    chunk = os.read(master, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                out += chunk
                if pending and pending[0][0].encode() in out:
                    os.write(master, pending.pop(0)[1].encode() + b"\r")
            elif proc.poll() is not None:
                break
        code = proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    return code, out.decode("utf-8", "replace")
