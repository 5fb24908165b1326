"""A small JSON-and-bytes HTTP client for registry plugins (standard library only).

Why not a third-party client: registries need only GET/POST with a bearer token, bounded retries
and size caps, and keeping the dependency list short keeps installs and start-up lean. This module
is imported lazily by the plugins that talk to the network, never at plugin load time.

Retry rule (specs/protocols.md §A3): at most ``retries`` extra attempts on 408, 429, any 5xx,
network errors and bodies mentioning a write conflict; the wait honours ``Retry-After`` (delta
seconds, an HTTP date, or an epoch second when larger than a year), then ``RateLimit-Reset``, then
``X-RateLimit-Reset``, else exponential back-off. A wait longer than ``max_wait`` is not slept: the
call fails at once with ``rate_limited`` and the time to retry. Non-finite header values (``nan``,
``inf``, ``1e400``) are ignored.

Bounds on a hostile or broken server: a JSON/metadata answer larger than :data:`MAX_JSON_BYTES` is
refused (``too_large``); each attempt must finish within its timeout × :data:`DEADLINE_FACTOR`
(60 s for the default 15 s timeout), status line and headers included
(:mod:`.http_deadline`), so a server that drips a byte at a time ends with ``unreachable``; redirects are followed only to http(s) URLs and never from https to http.
"""

from __future__ import annotations

import http.client
import json
import math
import random
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from email.utils import parsedate_to_datetime
from typing import Any

from attrs import field, frozen

from ..errors import BadInput, ConfigError, NervousError, RegistryError
from .http_deadline import DeadlinePassed, copy_deadline, handlers, set_deadline
from .numbers import text_number

#: statuses worth another attempt
RETRY_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
_YEAR_SECONDS = 31_536_000
_CONFLICT_WORDS = ("optimistic concurrency", "write conflict")
#: the largest JSON/metadata/text answer read (downloads pass their own ``max_bytes``)
MAX_JSON_BYTES = 16 * 1024 * 1024
#: the largest download when the caller sets no cap
MAX_DOWNLOAD_BYTES = 512 * 1024 * 1024
#: one attempt (connect, headers and whole body) must end within ``timeout * DEADLINE_FACTOR`` seconds
DEADLINE_FACTOR = 4.0
#: the largest error body kept for messages
_MAX_ERROR_BYTES = 1 << 20


@frozen
class Response:
    """A complete HTTP answer: status, headers (lower-case names) and body bytes."""

    url: str
    status: int
    headers: Mapping[str, str] = field(repr=False)
    body: bytes = field(repr=False)

    def header(self, name: str, default: str | None = None) -> str | None:
        return self.headers.get(name.lower(), default)

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")

    def json(self) -> Any:
        try:
            return json.loads(self.body)
        except ValueError:
            raise RegistryError(f"{self.url}: expected a JSON body, got {_snippet(self.text)!r}",
                                details={"url": self.url, "status": self.status}) from None


class HttpStatusError(RegistryError):
    """The server answered with a status the caller did not accept; ``response`` holds the answer."""

    def __init__(self, message: str, response: Response, **kw: Any) -> None:
        super().__init__(message, **kw)
        self.response = response

    @property
    def status(self) -> int:
        return self.response.status


#: the most of a server's error text a message carries (a page of HTML or a megabyte body is not a message)
ERROR_TEXT_CHARS = 2000


def clean_error_text(text: str) -> str:
    """Strip server-side noise (Convex request ids, error prefixes) before showing a message; at most
    :data:`ERROR_TEXT_CHARS` characters of it."""
    import re

    if len(text) > 4 * ERROR_TEXT_CHARS:
        text = text[: 4 * ERROR_TEXT_CHARS]  # the expressions below never read a megabyte

    text = re.sub(r"\[CONVEX [^\]]*\]", "", text)
    text = re.sub(r"\[Request ID: [^\]]*\]", "", text)
    text = text.replace("Server Error Called by client", "")
    text = text.strip()
    for prefix in ("Uncaught ConvexError:", "Error:"):
        if text.startswith(prefix):
            text = text[len(prefix):].strip()
    return text if len(text) <= ERROR_TEXT_CHARS else text[: ERROR_TEXT_CHARS - 1] + "\u2026"


def _snippet(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def retry_after_seconds(headers: Mapping[str, str], now: float) -> float | None:
    """Seconds to wait according to a response's rate-limit headers, or ``None`` when silent."""
    value = headers.get("retry-after")
    if value:
        value = value.strip()
        seconds = text_number(value)
        if seconds is None:
            try:
                when = parsedate_to_datetime(value).timestamp() - now
                if math.isfinite(when):
                    return max(when, 0.0)
            except (TypeError, ValueError, IndexError, OverflowError):
                pass
        else:
            return max(seconds - now, 0.0) if seconds > _YEAR_SECONDS else max(seconds, 0.0)
    value = headers.get("ratelimit-reset")
    if value:
        seconds = text_number(value)
        if seconds is not None:
            return max(seconds, 0.0)
    value = headers.get("x-ratelimit-reset")
    if value:
        seconds = text_number(value)
        if seconds is not None:
            return max(seconds - now, 0.0)
    return None




class RedirectRefused(RegistryError):
    """A redirect to another scheme than http(s), or from https down to http."""


class _Redirects(urllib.request.HTTPRedirectHandler):
    """Follow redirects; credentials are unredirected headers, so another host never receives them.

    Only http and https targets are followed (urllib alone also follows ``ftp://``), and never from
    https down to http.
    """

    def redirect_request(self, req: urllib.request.Request, fp: Any, code: int, msg: str, headers: Any,
                         newurl: str) -> urllib.request.Request | None:
        new = urllib.parse.urlsplit(urllib.parse.urljoin(req.full_url, newurl))
        old = urllib.parse.urlsplit(req.full_url)
        if new.scheme not in ("http", "https") or (old.scheme == "https" and new.scheme != "https"):
            if fp is not None:
                fp.close()
            raise RedirectRefused(
                f"{_redact(req.full_url)}: refused a redirect to {new.scheme or '(no scheme)'}://{new.hostname or ''} "
                "(only http(s) redirects are followed, never https to http)",
                code="registry_error", details={"url": _redact(req.full_url), "status": code})
        redirected = super().redirect_request(req, fp, code, msg, headers, newurl)
        copy_deadline(req, redirected)
        return redirected


class HttpClient:
    """JSON and bytes over HTTP(S) against one base URL, with a bearer token and bounded retries.

    ``sleep``, ``clock`` and ``rng`` are injectable so tests can run retries without waiting.
    """

    def __init__(
        self,
        base_url: str,
        *,
        token: str | None = None,
        timeout: float = 15.0,
        download_timeout: float = 60.0,
        retries: int = 2,
        max_wait: float = 60.0,
        user_agent: str | None = None,
        headers: Mapping[str, str] | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
        wait_policy: Callable[[Response | None, int, float], float | None] | None = None,
        should_retry: Callable[[Response], bool] | None = None,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise RegistryError(f"invalid registry URL {base_url!r}: expected http:// or https://")
        self.base_url = base_url.rstrip("/") + "/"
        self.token = _checked_token(token)
        self.timeout = timeout
        self.download_timeout = download_timeout
        self.retries = max(0, retries)
        self.max_wait = max_wait
        self.sleep = sleep
        self.clock = clock
        self.rng = rng or random.Random()
        self.wait_policy = wait_policy
        self.should_retry = should_retry
        if user_agent is None:
            from .. import __version__

            user_agent = f"nervous/{__version__}"
        self.default_headers = {"User-Agent": user_agent, **dict(headers or {})}
        self._opener = urllib.request.build_opener(_Redirects(), *handlers())
        #: number of HTTP requests sent (for tests and benchmarks)
        self.requests_sent = 0

    # ------------------------------------------------------------------ URLs

    def url(self, path: str, params: Mapping[str, Any] | None = None) -> str:
        """Join ``path`` relative to the base URL (a base with a path prefix keeps it)."""
        if path.startswith(("http://", "https://")):
            url = path
        else:
            url = urllib.parse.urljoin(self.base_url, path.lstrip("/"))
        clean = {k: v for k, v in (params or {}).items() if v is not None}
        if clean:
            sep = "&" if "?" in url else "?"
            url += sep + urllib.parse.urlencode(
                {k: ("true" if v is True else "false" if v is False else v) for k, v in clean.items()}
            )
        return url

    # ------------------------------------------------------------------ calls

    def get_json(self, path: str, params: Mapping[str, Any] | None = None, *,
                 accept_status: tuple[int, ...] = ()) -> Any:
        resp = self.request("GET", path, params, headers={"Accept": "application/json"},
                            accept_status=accept_status)
        return resp.json()

    def post_json(self, path: str, body: Any = None, params: Mapping[str, Any] | None = None) -> Any:
        data = json.dumps({} if body is None else body).encode()
        resp = self.request("POST", path, params, data=data,
                            headers={"Accept": "application/json", "Content-Type": "application/json"})
        return resp.json()

    def get_text(self, path: str, params: Mapping[str, Any] | None = None) -> str:
        return self.request("GET", path, params, headers={"Accept": "text/plain"}).text

    def get_bytes(self, path: str, params: Mapping[str, Any] | None = None, *, max_bytes: int | None = None,
                  progress: Callable[[int, int | None], None] | None = None,
                  headers: Mapping[str, str] | None = None) -> Response:
        """A download (no ``Accept``), refused once more than ``max_bytes`` arrive."""
        return self.request("GET", path, params, headers=headers, timeout=self.download_timeout,
                            max_bytes=max_bytes if max_bytes is not None else MAX_DOWNLOAD_BYTES, progress=progress)

    def request(
        self,
        method: str,
        path: str,
        params: Mapping[str, Any] | None = None,
        *,
        data: bytes | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
        max_bytes: int | None = None,
        progress: Callable[[int, int | None], None] | None = None,
        accept_status: tuple[int, ...] = (),
    ) -> Response:
        """Send a request with retries; 2xx (and ``accept_status``) return, others raise.

        Without ``max_bytes`` the answer is capped at :data:`MAX_JSON_BYTES` (``too_large``).
        """
        url = self.url(path, params)
        attempt = 0
        while True:
            attempt += 1
            try:
                resp = self._once(method, url, data, headers, timeout or self.timeout, max_bytes, progress)
            except _NetworkError as exc:
                if attempt > self.retries:
                    raise RegistryError(
                        f"{method} {_redact(url)}: {exc.reason} (after {attempt} attempt{'s' * (attempt > 1)})",
                        code="unreachable", details={"url": _redact(url), "attempts": attempt},
                    ) from None
                self._wait(None, attempt, url)
                continue
            if 200 <= resp.status < 300 or resp.status in accept_status:
                return resp
            if self._retriable(resp) and attempt <= self.retries:
                self._wait(resp, attempt, url)
                continue
            raise self._status_error(method, resp, attempt)

    # ------------------------------------------------------------------ internals

    def _retriable(self, resp: Response) -> bool:
        if self.should_retry is not None:
            return self.should_retry(resp)
        if resp.status in RETRY_STATUSES or resp.status >= 500:
            return True
        lowered = resp.text[:2000].lower()
        return any(w in lowered for w in _CONFLICT_WORDS)

    def _wait(self, resp: Response | None, attempt: int, url: str) -> None:
        now = self.clock()
        wait: float | None = None
        if self.wait_policy is not None:
            wait = self.wait_policy(resp, attempt, now)
        elif resp is not None:
            wait = retry_after_seconds(resp.headers, now)
            if wait is not None and "retry-after" in resp.headers:
                wait += self.rng.uniform(0, 0.25)
        if wait is None or not math.isfinite(wait):  # a nan/inf from a server never reaches sleep() or --json
            wait = min(0.3 * 2 ** (attempt - 1), 5.0) + self.rng.uniform(0, 0.3)
        if wait > self.max_wait:
            status = f"HTTP {resp.status}" if resp is not None else "unreachable"
            raise RegistryError(
                f"{_redact(url)}: rate limited ({status}); retry in {wait:.0f} s",
                code="rate_limited", details={"url": _redact(url), "retry_after": round(wait, 3),
                                              "retry_at": round(now + wait, 3)},
            )
        self.sleep(wait)

    def _status_error(self, method: str, resp: Response, attempts: int) -> HttpStatusError:
        text = clean_error_text(resp.text) if (resp.header("content-type") or "").startswith("text/") \
            else _json_message(resp) or clean_error_text(resp.text)
        code = "rate_limited" if resp.status == 429 else "registry_error"
        extra = ""
        if attempts > 1:
            extra = f" after {attempts} attempts"
        details: dict[str, Any] = {"url": _redact(resp.url), "status": resp.status}
        if resp.status == 429:
            wait = retry_after_seconds(resp.headers, self.clock())
            if wait is not None:
                details["retry_after"] = wait
        return HttpStatusError(
            f"{method} {_redact(resp.url)} answered HTTP {resp.status}{extra}: {_snippet(text) or '(empty body)'}",
            resp, code=code, details=details,
        )

    def _once(self, method: str, url: str, data: bytes | None, headers: Mapping[str, str] | None,
              timeout: float, max_bytes: int | None,
              progress: Callable[[int, int | None], None] | None) -> Response:
        deadline = time.monotonic() + timeout * DEADLINE_FACTOR
        late = (f"timed out: the answer did not complete within {timeout * DEADLINE_FACTOR:.0f} s "
                f"(timeout × {DEADLINE_FACTOR:g})")
        cap = _Cap(max_bytes, download=True) if max_bytes is not None else _Cap(MAX_JSON_BYTES, download=False)
        req = urllib.request.Request(url, data=data, method=method)
        set_deadline(req, deadline, late)
        for k, v in {**self.default_headers, **dict(headers or {})}.items():
            req.add_header(k, v)
        if self.token:
            req.add_unredirected_header("Authorization", f"Bearer {self.token}")
        self.requests_sent += 1
        try:
            raw = self._opener.open(req, timeout=timeout)
        except urllib.error.HTTPError as err:
            try:
                body = _read_limited(err, _Cap(_MAX_ERROR_BYTES, download=False, truncate=True), url, None)
            except (TimeoutError, OSError, _NetworkError, NervousError):
                body = b""
            finally:
                err.close()
            return Response(url=err.geturl() or url, status=err.code, headers=_lower(err.headers), body=body)
        except (TimeoutError, urllib.error.URLError, OSError, ValueError) as exc:
            raise _NetworkError(_network_reason(getattr(exc, "reason", exc))) from None
        with raw:
            try:
                body = _read_limited(raw, cap, url, progress, _length(raw.headers))
            except DeadlinePassed as exc:
                raise _NetworkError(str(exc)) from None
            except (TimeoutError, OSError, http.client.HTTPException) as exc:  # (a chunked body cut short)
                raise _NetworkError(f"{type(exc).__name__}: {exc}") from None
            return Response(url=raw.geturl() or url, status=raw.status, headers=_lower(raw.headers), body=body)


def _network_reason(reason: Any) -> str:
    """Say what went wrong on the network in words a person can act on."""
    import socket
    import ssl

    if isinstance(reason, str):
        return reason
    if isinstance(reason, DeadlinePassed):
        return str(reason)
    if isinstance(reason, ValueError) and "header" in str(reason).lower():  # it may quote a credential
        return "a request header value is not valid HTTP (a control character in a configured header?)"
    if isinstance(reason, socket.gaierror):
        return "host name not resolved (offline, or a wrong registry URL?)"
    if isinstance(reason, ConnectionRefusedError):
        return "connection refused (is the server running?)"
    if isinstance(reason, (TimeoutError, socket.timeout)):
        return "timed out"
    if isinstance(reason, ssl.SSLError):
        return f"TLS error: {reason}"
    return f"{type(reason).__name__}: {reason}"


def _checked_token(token: str | None) -> str | None:
    """The token as sent: surrounding white space (a line end copied from a file) dropped; a control or
    non-Latin-1 character inside refused before any request — never echoed, since it is a secret."""
    token = (token or "").strip()
    if not token:
        return None
    bad = next((i for i, c in enumerate(token) if ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or ord(c) > 0xFF), None)
    if bad is not None:
        raise ConfigError(f"the registry token has a character no HTTP header may carry at position {bad + 1} of "
                          f"{len(token)} (a control character or one outside Latin-1); the token is not shown")
    return token


class _NetworkError(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason or "network error"


def _lower(headers: Any) -> dict[str, str]:
    return {k.lower(): v for k, v in headers.items()} if headers is not None else {}


def _length(headers: Any) -> int | None:
    try:
        return int(headers.get("Content-Length"))
    except (TypeError, ValueError):
        return None


class _Cap:
    """How many body bytes to accept, and what exceeding them means."""

    def __init__(self, limit: int, *, download: bool, truncate: bool = False) -> None:
        self.limit = limit
        self.download = download
        self.truncate = truncate

    def error(self, url: str, total: int | None) -> NervousError:
        if self.download:
            size = f"of {total} bytes " if total is not None else ""
            return BadInput(f"{_redact(url)}: download {size}exceeds the limit of {self.limit} bytes",
                            code="limit_exceeded")
        return RegistryError(f"{_redact(url)}: the answer exceeds the limit of {self.limit} bytes for a registry "
                             "answer (MAX_JSON_BYTES)", code="too_large",
                             details={"url": _redact(url), "limit": self.limit})


def _read_limited(stream: Any, cap: _Cap, url: str, progress: Callable[[int, int | None], None] | None,
                  total: int | None = None) -> bytes:
    max_bytes = cap.limit
    if total is not None and total > max_bytes and not cap.truncate:
        raise cap.error(url, total)
    # read1 returns whatever arrived (one socket read): each is bounded by the attempt's deadline
    read = getattr(stream, "read1", None) or stream.read
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = read(65536)
        if not chunk:
            break
        size += len(chunk)
        if size > max_bytes:
            if cap.truncate:
                chunks.append(chunk[: max(0, max_bytes - (size - len(chunk)))])
                break
            raise cap.error(url, None)
        chunks.append(chunk)
        if progress is not None:
            progress(size, total)
    if total is not None and size < total and not cap.truncate:  # the connection closed early
        raise _NetworkError(f"the answer ended after {size} of the {total} bytes it announced")
    return b"".join(chunks)


def _json_message(resp: Response) -> str | None:
    try:
        data = json.loads(resp.body)
    except ValueError:
        return None
    if isinstance(data, dict):
        msg = data.get("message") or data.get("error")
        return str(msg) if msg else None
    return None


def _redact(url: str) -> str:
    """URLs in messages never carry credentials (user:password@ or token= parameters)."""
    parts = urllib.parse.urlsplit(url)
    netloc = parts.hostname or ""
    if parts.port:
        netloc += f":{parts.port}"
    query = urllib.parse.urlencode(
        [(k, "***" if "token" in k.lower() else v) for k, v in urllib.parse.parse_qsl(parts.query, True)]
    )
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, query, ""))


__all__ = ["HttpClient", "HttpStatusError", "Response", "retry_after_seconds", "clean_error_text",
           "RETRY_STATUSES", "MAX_JSON_BYTES", "MAX_DOWNLOAD_BYTES", "DEADLINE_FACTOR", "RedirectRefused"]
