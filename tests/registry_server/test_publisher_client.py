"""The publishing client against a registry that answers badly: the token never leaves the registry's origin, an
answer of the wrong shape is a registry error (exit 3, never an internal error), a folder over the limits is refused
before anything is uploaded."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from nervous.errors import BadInput, RegistryError
from nervous.frontends.registry_server.publisher import publish_folder


class _Registry:
    """A loopback stand-in answering the publish calls from ``answers`` (path -> JSON value), recording each call."""

    def __init__(self, answers: dict[str, Any]) -> None:
        self.answers = answers
        self.calls: list[tuple[str, str, str | None]] = []
        registry = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                path = self.path.split("?")[0]
                registry.calls.append((self.command, path, self.headers.get("Authorization")))
                if path not in registry.answers:
                    self.send_response(404)
                    self.end_headers()
                    return
                body = json.dumps(registry.answers[path]).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = _answer

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def registries() -> Iterator[list[_Registry]]:
    made: list[_Registry] = []
    yield made
    for r in made:
        r.server.shutdown()
        r.server.server_close()


def _open(registries: list[_Registry], answers: dict[str, Any]) -> _Registry:
    registries.append(_Registry(answers))
    return registries[-1]


def _folder(tmp_path: Path, files: int = 1, size: int = 10) -> Path:
    folder = tmp_path / "demo"
    folder.mkdir()
    (folder / "SKILL.md").write_text("---\nname: demo\ndescription: Formats text.\n---\n# demo\n")
    for i in range(files - 1):
        (folder / f"f{i}.txt").write_bytes(b"x" * size)
    return folder


_WHOAMI = {"/api/v1/whoami": {"user": {"handle": "alice"}}}


def test_an_upload_address_on_another_host_never_gets_the_token(registries: list[_Registry], tmp_path: Path) -> None:
    thief = _open(registries, {"/steal": {"storageId": "x"}})
    registry = _open(registries, {**_WHOAMI, "/api/v1/skills/-/upload-url": {"uploadUrl": f"{thief.url}/steal",
                                                                              "uploadTicket": "t"}})
    with pytest.raises(RegistryError, match="another host"):
        publish_folder(registry.url, "clh_secret", _folder(tmp_path))
    assert thief.calls == []


def test_an_upload_address_with_another_scheme_is_refused(registries: list[_Registry], tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("private")
    registry = _open(registries, {**_WHOAMI, "/api/v1/skills/-/upload-url": {"uploadUrl": f"file://{secret}",
                                                                              "uploadTicket": "t"}})
    with pytest.raises(RegistryError, match="another host or scheme"):
        publish_folder(registry.url, "clh_secret", _folder(tmp_path))


@pytest.mark.parametrize("answers", [
    {"/api/v1/whoami": None},
    {"/api/v1/whoami": ["alice"]},
    {**_WHOAMI, "/api/v1/skills/-/upload-url": "ticket"},
    {**_WHOAMI, "/api/v1/skills/-/upload-url": {"uploadTicket": "t"}},
    {**_WHOAMI, "/api/v1/skills/-/upload-url": {"uploadUrl": "/up", "uploadTicket": "t"}, "/up": ["id"]},
    {**_WHOAMI, "/api/v1/skills/-/upload-url": {"uploadUrl": "/up", "uploadTicket": "t"}, "/up": {"storageId": "s"},
     "/api/v1/skills": ["ok"]},
    {**_WHOAMI, "/api/v1/skills/-/upload-url": {"uploadUrl": "/up", "uploadTicket": "t"}, "/up": {"storageId": "s"},
     "/api/v1/skills": {"slug": "demo", "ruleIds": "NV-EXEC-001"}},
], ids=["whoami-null", "whoami-list", "ticket-string", "ticket-without-url", "upload-list", "publish-list",
        "rules-a-string"])
def test_an_answer_of_the_wrong_shape_is_a_registry_error(registries: list[_Registry], tmp_path: Path,
                                                          answers: dict[str, Any]) -> None:
    registry = _open(registries, answers)
    with pytest.raises(RegistryError, match="shape|not a JSON object|not a list"):
        publish_folder(registry.url, "clh_secret", _folder(tmp_path))


def test_a_folder_over_the_limits_is_refused_before_any_upload(registries: list[_Registry], tmp_path: Path) -> None:
    registry = _open(registries, _WHOAMI)
    with pytest.raises(BadInput, match="at most 500 files") as caught:
        publish_folder(registry.url, "clh_secret", _folder(tmp_path, files=501))
    assert caught.value.code == "too_large" and registry.calls == []
