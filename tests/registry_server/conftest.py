"""Fixtures: a real ``nervous registry serve`` process on loopback, tokens, skill folders, raw HTTP."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from nervous.testing.registry_process import RegistryProcess, registry_env

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")


class Answer:
    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")

    def json(self) -> Any:
        return json.loads(self.body)


def call(method: str, url: str, *, token: str | None = None, body: Any = None, data: bytes | None = None,
         headers: dict[str, str] | None = None) -> Answer:
    """One raw HTTP request (no retries): status, lower-cased headers, bytes."""
    hdrs = dict(headers or {})
    if body is not None:
        data = json.dumps(body).encode()
        hdrs.setdefault("Content-Type", "application/json")
    if token:
        hdrs["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(url, data=data, method=method, headers=hdrs)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return Answer(resp.status, {k.lower(): v for k, v in resp.headers.items()}, resp.read())
    except urllib.error.HTTPError as exc:
        return Answer(exc.code, {k.lower(): v for k, v in exc.headers.items()}, exc.read())


def skill_folder(root: Path, name: str, description: str = "A test skill.", extra: dict[str, str] | None = None,
                 body: str = "") -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n\n{body}\n")
    for path, text in (extra or {}).items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    return folder


@pytest.fixture
def server_env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "registry-home"
    home.mkdir()
    return registry_env(home)


@pytest.fixture
def server(server_env: dict[str, str], tmp_path: Path) -> Iterator[RegistryProcess]:
    with RegistryProcess(server_env, tmp_path / "registry-data") as proc:
        yield proc


@pytest.fixture
def alice(server: RegistryProcess) -> str:
    return server.token("alice")


def publish(server: RegistryProcess, token: str, folder: Path, version: str | None = None, **kw: Any) -> dict[str, Any]:
    from nervous.frontends.registry_server.publisher import publish_folder

    return publish_folder(server.url, token, folder, version=version, **kw)
