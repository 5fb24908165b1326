"""Run ``nervous registry serve`` in a real child process on 127.0.0.1 (tests and benchmarks).

The storage backend comes from the environment given (``NERVOUS_STORAGE_BACKEND``...), so several
processes can share one SQLite file or one PostgreSQL schema, and one blob directory.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any


def registry_env(home: Path, *, backend: str = "sqlite", db: Path | None = None, dsn: str | None = None,
                 base: Mapping[str, str] | None = None) -> dict[str, str]:
    """An environment for registry processes: isolated ``NERVOUS_HOME`` and the chosen backend."""
    env = dict(base if base is not None else os.environ)
    for var in ("NERVOUS_STORAGE_PATH", "NERVOUS_POSTGRES_DSN", "CLAWHUB_REGISTRY", "CLAWHUB_TOKEN",
                "NERVOUS_REGISTRIES"):
        env.pop(var, None)
    env["NERVOUS_HOME"] = str(home)
    env["NERVOUS_STORAGE_BACKEND"] = backend
    if backend == "sqlite":
        env["NERVOUS_STORAGE_PATH"] = str(db or home / "registry.db")
    if dsn:
        env["NERVOUS_POSTGRES_DSN"] = dsn
    env["PYTHONUNBUFFERED"] = "1"
    return env


def nervous_cli(args: Sequence[str], env: Mapping[str, str], overrides: Sequence[str] = (),
                timeout: float = 60) -> dict[str, Any]:
    """Run ``python -m nervous ARGS --json`` in a child process; its JSON answer."""
    cmd = [sys.executable, "-m", "nervous", *(x for o in overrides for x in ("-c", o)), *args, "--json"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=dict(env), timeout=timeout)
    try:
        data: dict[str, Any] = json.loads(proc.stdout)
    except ValueError:
        raise AssertionError(f"nervous {' '.join(args)} printed no JSON ({proc.returncode}):\n{proc.stdout}\n"
                             f"{proc.stderr}") from None
    data["_exit"] = proc.returncode
    return data


class RegistryProcess:
    """``nervous registry serve --port 0`` as a child process; ``url`` once it listens."""

    def __init__(self, env: Mapping[str, str], data_dir: Path, *, overrides: Sequence[str] = (),
                 extra_args: Sequence[str] = ("--no-rate-limit",), refresh_interval: float = 0.2) -> None:
        self.env = dict(env)
        self.data_dir = data_dir
        self.overrides = list(overrides)
        self.extra_args = list(extra_args)
        self.refresh_interval = refresh_interval
        self.proc: subprocess.Popen[str] | None = None
        self.url = ""

    def start(self, timeout: float = 60) -> RegistryProcess:
        cmd = [sys.executable, "-m", "nervous", *(x for o in self.overrides for x in ("-c", o)), "registry", "serve",
               "--host", "127.0.0.1", "--port", "0", "--data", str(self.data_dir),
               "--refresh-interval", str(self.refresh_interval), *self.extra_args]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=self.env)
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        line = ""
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if line.startswith("listening on "):
                self.url = line.split(" ", 2)[2].strip()
                return self
            if not line and self.proc.poll() is not None:
                break
        err = self.proc.stderr.read() if self.proc.stderr and self.proc.poll() is not None else ""
        self.stop()
        raise RuntimeError(f"registry server did not start: {line!r} {err}")

    def kill(self) -> None:
        """SIGKILL: no clean-up runs (crash tests)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)
        self.stop()

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()
        self.proc = None

    def token(self, handle: str, *, moderator: bool = False) -> str:
        args = ["registry", "token", "create", handle, *(["--moderator"] if moderator else [])]
        out = nervous_cli(args, self.env, self.overrides)
        assert out["ok"], out
        return str(out["token"])

    def __enter__(self) -> RegistryProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
