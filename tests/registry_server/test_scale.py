"""Several servers on one registry: concurrent publishes, a crash mid-publish, PostgreSQL sharing."""

from __future__ import annotations

import hashlib
import http.client
import io
import os
import secrets
import threading
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from nervous.kernel.fingerprint import skill_fingerprint
from nervous.testing.registry_process import RegistryProcess, registry_env

from .conftest import call, publish, skill_folder


def _upload_all(url: str, token: str, files: dict[str, bytes]) -> list[dict[str, Any]]:
    rows = []
    for path, data in files.items():
        sha = hashlib.sha256(data).hexdigest()
        t = call("POST", f"{url}/api/v1/skills/-/upload-url", token=token,
                 body={"path": path, "size": len(data), "sha256": sha})
        up = call("POST", t.json()["uploadUrl"], token=token, data=data)
        assert up.status == 200, up.text
        rows.append({"path": path, "size": len(data), "sha256": sha, "storageId": sha})
    return rows


def _files(tag: str, n: int = 3) -> dict[str, bytes]:
    files = {"SKILL.md": f"---\nname: race\ndescription: Race {tag}.\n---\n# Race\n".encode()}
    files.update({f"notes/{i}.md": f"{tag} {i}\n".encode() for i in range(n)})
    return files


def _race(servers: list[RegistryProcess], token: str, version: str) -> list[tuple[int, str, bytes]]:
    """Both servers publish ``race@version`` with different content at the same moment."""
    contents = [_files(f"{s.url}-{version}") for s in servers]
    bodies = [{"slug": "race", "version": version, "ownerHandle": "alice",
               "files": _upload_all(s.url, token, c)} for s, c in zip(servers, contents, strict=True)]
    barrier = threading.Barrier(len(servers))
    results: list[tuple[int, str, bytes]] = [(0, "", b"")] * len(servers)

    def go(i: int) -> None:
        barrier.wait()
        a = call("POST", f"{servers[i].url}/api/v1/skills", token=token, body=bodies[i])
        results[i] = (a.status, a.text, contents[i]["SKILL.md"])

    threads = [threading.Thread(target=go, args=(i,)) for i in range(len(servers))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def _check_race(servers: list[RegistryProcess], token: str, versions: list[str]) -> None:
    for version in versions:
        results = _race(servers, token, version)
        statuses = sorted(r[0] for r in results)
        assert statuses == [200, 409], results
        loser = next(r for r in results if r[0] == 409)
        assert "already exists" in loser[1]
        winner = next(r for r in results if r[0] == 200)
        for s in servers:  # every server serves the winner's bytes, whole
            got = call("GET", f"{s.url}/api/v1/skills/race/file?path=SKILL.md&version={version}&ownerHandle=alice")
            assert got.body == winner[2]


@pytest.mark.slow
def test_concurrent_publish_of_one_version_exactly_one_wins(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = registry_env(home, db=tmp_path / "shared.db")
    with RegistryProcess(env, tmp_path / "shared") as a, RegistryProcess(env, tmp_path / "shared") as b:
        token = a.token("alice")
        _check_race([a, b], token, ["1.0.0", "1.0.1", "1.0.2", "2.0.0"])


def _zip_fingerprint(data: bytes) -> str:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return skill_fingerprint([(n, hashlib.sha256(zf.read(n)).hexdigest()) for n in zf.namelist()
                                  if n != "_meta.json"])


@pytest.mark.slow
def test_killed_server_mid_publish_leaves_whole_versions_or_nothing(server_env: dict[str, str], tmp_path: Path) -> None:
    data = tmp_path / "data"
    proc = RegistryProcess(server_env, data).start()
    token = proc.token("alice")
    files = {"SKILL.md": b"---\nname: crash\ndescription: Crash test.\n---\n# Crash\n"}
    files.update({f"docs/{i:02d}.md": f"page {i}\n".encode() * 50 for i in range(50)})
    rows = _upload_all(proc.url, token, files)
    acknowledged: list[str] = []
    attempted: list[str] = []
    stop = threading.Event()

    def publisher() -> None:
        i = 0
        while not stop.is_set():
            version = f"1.0.{i}"
            attempted.append(version)
            try:
                a = call("POST", f"{proc.url}/api/v1/skills", token=token,
                         body={"slug": "crash", "version": version, "ownerHandle": "alice", "files": rows})
            except (OSError, http.client.HTTPException):
                # killed before the answer was whole (refused, reset, or cut mid-body): not acknowledged
                return
            if a.status == 200:
                acknowledged.append(version)
            i += 1

    thread = threading.Thread(target=publisher)
    thread.start()
    deadline = time.monotonic() + 30
    while len(acknowledged) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(secrets.randbelow(200) / 1000)  # somewhere inside a later publish
    proc.kill()
    stop.set()
    thread.join(timeout=30)
    assert len(acknowledged) >= 3

    with RegistryProcess(server_env, data) as again:
        versions = [v["version"] for v in call("GET", f"{again.url}/api/v1/skills/crash/versions?limit=50").json()["items"]]
        # every acknowledged publish survived; anything else is either whole or absent
        assert set(acknowledged) <= set(versions) <= set(attempted)
        expected = skill_fingerprint((p, hashlib.sha256(b).hexdigest()) for p, b in files.items())
        for version in versions:
            z = call("GET", f"{again.url}/api/v1/download?slug=crash&version={version}")
            assert z.status == 200 and _zip_fingerprint(z.body) == expected
            assert call("GET", f"{again.url}/api/v1/resolve?slug=crash&hash={expected}").json()["match"]
        # the registry still accepts the next version
        nxt = call("POST", f"{again.url}/api/v1/skills", token=token,
                   body={"slug": "crash", "version": "9.0.0", "ownerHandle": "alice", "files": rows})
        assert nxt.status == 200


# ---------------------------------------------------------------------------------------- PostgreSQL

def _postgres_dsn() -> str:
    dsn = os.environ.get("NERVOUS_TEST_POSTGRES_DSN", "postgresql://postgres@127.0.0.1:5432/test")
    try:
        import psycopg

        psycopg.connect(dsn, connect_timeout=3).close()
    except Exception as exc:  # noqa: BLE001
        if os.environ.get("NERVOUS_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"NERVOUS_REQUIRE_POSTGRES=1 but PostgreSQL is unreachable: {exc}")
        pytest.skip(f"PostgreSQL is unreachable: {exc}")
    return dsn


@pytest.fixture
def pg_servers(tmp_path: Path) -> Iterator[list[RegistryProcess]]:
    dsn = _postgres_dsn()
    schema = f"nervous_registry_test_{os.getpid()}_{secrets.token_hex(4)}"
    home = tmp_path / "home"
    home.mkdir()
    env = registry_env(home, backend="postgres", dsn=dsn)
    overrides = [f'plugins.postgres.schema="{schema}"']
    shared = tmp_path / "shared-blobs"
    a = RegistryProcess(env, shared, overrides=overrides).start()
    b = RegistryProcess(env, shared, overrides=overrides).start()
    try:
        yield [a, b]
    finally:
        a.stop()
        b.stop()
        import psycopg

        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@pytest.mark.postgres
@pytest.mark.slow
def test_two_servers_on_postgres_share_one_registry(pg_servers: list[RegistryProcess], tmp_path: Path) -> None:
    a, b = pg_servers
    token = a.token("alice")
    publish(a, token, skill_folder(tmp_path, "shared-skill", "Shared between servers."), "1.0.0")
    assert call("GET", f"{b.url}/api/v1/skills/shared-skill").json()["latestVersion"]["version"] == "1.0.0"
    assert call("GET", f"{b.url}/api/v1/download?slug=shared-skill").status == 200
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        hits = call("GET", f"{b.url}/api/v1/search?q=shared").json()["results"]
        if hits:
            break
        time.sleep(0.1)
    assert [h["slug"] for h in hits] == ["shared-skill"]
    _check_race([a, b], token, ["1.0.0", "1.0.1", "1.0.2"])
