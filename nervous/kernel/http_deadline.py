"""Connections whose every read ends by one deadline: the status line and headers included.

A socket timeout bounds each read, not the answer: a server that sends one header byte every few
seconds stays under any timeout for ever (``http.client`` reads up to 100 header lines of 64 KiB).
Here each read of a response waits at most until the attempt's deadline, so the whole answer —
status line, headers and body — ends within it. urllib opens these connections through
:func:`handlers`; the deadline travels on the request (:func:`set_deadline`), redirects included.
"""

from __future__ import annotations

import functools
import http.client
import io
import time
import urllib.request
from typing import Any

_ATTRIBUTE = "_nervous_deadline"


class DeadlinePassed(TimeoutError):
    """The answer did not complete by the attempt's deadline."""


def set_deadline(req: urllib.request.Request, deadline: float | None, message: str) -> None:
    """Bound every read of ``req``'s answer (and of its redirects) by ``deadline`` (``time.monotonic``)."""
    setattr(req, _ATTRIBUTE, (deadline, message) if deadline is not None else None)


def copy_deadline(old: urllib.request.Request, new: urllib.request.Request | None) -> None:
    """A redirect keeps the deadline of the request it replaces."""
    if new is not None:
        setattr(new, _ATTRIBUTE, getattr(old, _ATTRIBUTE, None))


class _DeadlineReader(io.RawIOBase):
    """The socket's raw reader, each read waiting no longer than the time left."""

    def __init__(self, raw: Any, sock: Any, deadline: float, timeout: float | None, message: str) -> None:
        self._raw = raw
        self._sock = sock
        self._deadline = deadline
        self._timeout = timeout
        self._message = message

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int | None:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise DeadlinePassed(self._message)
        by_deadline = self._timeout is None or left <= self._timeout
        self._sock.settimeout(left if by_deadline else self._timeout)
        try:
            return self._raw.readinto(buffer)  # type: ignore[no-any-return]
        except TimeoutError:
            if by_deadline:
                raise DeadlinePassed(self._message) from None
            raise

    def close(self) -> None:
        if not self.closed:
            self._raw.close()
        super().close()


class _DeadlineResponse(http.client.HTTPResponse):
    def __init__(self, sock: Any, *args: Any, deadline: float, timeout: float | None, message: str,
                 **kwargs: Any) -> None:
        super().__init__(sock, *args, **kwargs)
        # detach, not close: the socket stays open for as long as the response reads from it
        self.fp = io.BufferedReader(_DeadlineReader(self.fp.detach(), sock, deadline, timeout, message))


def _connection(plain: type[http.client.HTTPConnection], req: urllib.request.Request) -> Any:
    """The connection class urllib opens ``req`` with: ``plain``, its responses read under the deadline."""
    bound = getattr(req, _ATTRIBUTE, None)
    if bound is None:
        return plain
    deadline, message = bound

    def connect(*args: Any, **kwargs: Any) -> http.client.HTTPConnection:
        conn = plain(*args, **kwargs)
        conn.response_class = functools.partial(  # type: ignore[assignment]
            _DeadlineResponse, deadline=deadline, timeout=conn.timeout, message=message)
        return conn

    return connect


class _HTTPHandler(urllib.request.HTTPHandler):
    def http_open(self, req: urllib.request.Request) -> Any:
        return self.do_open(_connection(http.client.HTTPConnection, req), req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def https_open(self, req: urllib.request.Request) -> Any:
        return self.do_open(_connection(http.client.HTTPSConnection, req), req,
                            context=self._context)  # type: ignore[attr-defined]


def handlers() -> list[urllib.request.BaseHandler]:
    """The http and https handlers to build an opener with (they replace urllib's own)."""
    return [_HTTPHandler(), _HTTPSHandler()]


__all__ = ["DeadlinePassed", "copy_deadline", "handlers", "set_deadline"]
