"""Run the registry with uvicorn on a socket we bind ourselves (so port 0 reports the real port)."""

from __future__ import annotations

import socket
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from .blobs import BlobStore
from .catalog import Catalog
from .ratelimit import RateLimits
from .rules import Limits
from .service import Registry

#: open connections (idle keep-alive ones and slow senders included) a server holds before it answers
#: 503 to further requests; each costs a socket and memory, and the process's descriptors are limited
DEFAULT_MAX_CONNECTIONS = 512
#: the environment variable that changes it (1 to 100000)
MAX_CONNECTIONS_ENV = "NERVOUS_REGISTRY_MAX_CONNECTIONS"


#: the environment variable that changes the seconds a client has to send a request's head (0.1 to 3600)
HEAD_TIMEOUT_ENV = "NERVOUS_REGISTRY_HEAD_TIMEOUT"


def max_connections(value: object = None) -> int:
    """The connection cap: ``value``, else ``$NERVOUS_REGISTRY_MAX_CONNECTIONS``, else the default; a usage
    error (exit 2) for anything but a whole number from 1 to 100000."""
    def read(text: str) -> int | None:
        return int(text) if text.isdigit() and 1 <= int(text) <= 100_000 else None

    return _setting(value, "max_connections", MAX_CONNECTIONS_ENV, DEFAULT_MAX_CONNECTIONS, read,
                    "a whole number from 1 to 100000")


def head_timeout(value: object = None) -> float:
    """The seconds a client has to send a request's head (:mod:`.protocol`): ``value``, else
    ``$NERVOUS_REGISTRY_HEAD_TIMEOUT``, else the default; a usage error (exit 2) for anything but a number of
    seconds from 0.1 to 3600."""
    from .protocol import DEFAULT_HEAD_TIMEOUT

    def read(text: str) -> float | None:
        try:
            seconds = float(text)
        except ValueError:
            return None
        return seconds if 0.1 <= seconds <= 3600 else None  # (NaN is in no range)

    return _setting(value, "head_timeout", HEAD_TIMEOUT_ENV, DEFAULT_HEAD_TIMEOUT, read,
                    "a number of seconds from 0.1 to 3600")


T = TypeVar("T")


def _setting(value: object, name: str, env: str, default: T, read: Callable[[str], T | None], expected: str) -> T:
    """A server setting: ``value``, else the environment variable ``env``, else ``default``; a usage error
    naming where the value came from when ``read`` refuses its text (ASCII only)."""
    import os

    from ...errors import UsageError

    where = name
    if value is None:
        value = os.environ.get(env) or None
        where = env
    if value is None:
        return default
    text = str(value).strip()
    got = read(text) if text.isascii() and not isinstance(value, bool) else None
    if got is None:
        raise UsageError(f"{where} must be {expected}, not {text[:40]!r}")
    return got


def build_registry(pm: Any, data_dir: str | Path, *, site_url: str | None = None,
                   limits: Limits | None = None, refresh_interval: float = 1.0) -> Registry:
    """The registry over the plugin manager's storage backend and a blob directory."""
    catalog = Catalog(pm.storage(), refresh_interval=refresh_interval)
    return Registry(catalog, BlobStore(Path(data_dir) / "blobs"), pm, limits=limits, site_url=site_url)


def serve(registry: Registry, host: str = "127.0.0.1", port: int = 8080, *, rate_limits: RateLimits | None = None,
          ready: Any = None, connections: int | None = None, head_seconds: float | None = None) -> None:
    """Bind, announce ``listening on http://host:port`` on stdout, and serve until interrupted.

    At most ``connections`` (see :func:`max_connections`) connections are held at once: a request
    beyond that is answered 503 at once, so slow or idle clients cannot exhaust the process; a client that
    has not sent a request's head within ``head_seconds`` (see :func:`head_timeout`), or whose body then stops
    arriving (:mod:`.protocol`), is disconnected.
    """
    import uvicorn

    from .api import create_app
    from .protocol import protocol_with

    limit = max_connections(connections)
    head = head_timeout(head_seconds)

    app = create_app(registry, rate_limits=rate_limits)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)  # asyncio sets TCP_NODELAY only then
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        from ...errors import UsageError

        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}", code="address_in_use"
                         if exc.errno == 98 else "cannot_listen") from None
    sock.listen(1024)
    sock.set_inheritable(True)
    bound = sock.getsockname()[1]
    url = f"http://{host if family == socket.AF_INET else '[' + host + ']'}:{bound}"
    if registry.site_url is None:
        registry.site_url = url
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off", timeout_keep_alive=30,
                            limit_concurrency=limit, http=protocol_with(head),
                            ws="none")  # (no WebSocket endpoint: an upgrade request is answered as plain HTTP)
    server = uvicorn.Server(config)
    registry.catalog.refresh(force=True)
    print(f"listening on {url}", flush=True)
    if ready is not None:
        ready(url)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
        sys.stdout.flush()
