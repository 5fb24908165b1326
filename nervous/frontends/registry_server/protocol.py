"""uvicorn's HTTP/1.1 protocol with deadlines on what a client sends.

uvicorn closes a keep-alive connection left idle, but sets no time limit on reading a request: a client that
opened a connection and sent nothing, or dripped its headers or its body a byte at a time, held one of the
server's connections for as long as it liked, and ``max_connections`` such clients locked everyone else out
(503). Here a request's head (its line and headers) must arrive whole within ``head_timeout`` seconds of
the connection opening, or of the request's first byte on a kept-alive connection; its body then has the
same time again, moved on by one second for every :data:`MIN_BODY_RATE` bytes received (the rule of
Apache's ``mod_reqtimeout``: a client sending at that rate or faster is never cut off). A client that misses
its deadline is disconnected.
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

#: seconds a client has to send a request line and headers (the ones of a browser or CLI take milliseconds)
DEFAULT_HEAD_TIMEOUT = 20.0
#: bytes a second at which a request body keeps its deadline moving
MIN_BODY_RATE = 500


class RequestDeadlineProtocol(H11Protocol):
    """:class:`H11Protocol` that disconnects a client late with its request (see the module)."""

    head_timeout = DEFAULT_HEAD_TIMEOUT
    _timer: asyncio.TimerHandle | None = None
    #: the loop time by which the client must have sent the head, or more of the body
    _due = 0.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._start()

    def data_received(self, data: bytes) -> None:
        state = self.conn.their_state
        if state is h11.IDLE and self._timer is None:
            self._start()  # the first bytes of a request on a kept-alive connection (later ones do not extend it)
        elif state is h11.SEND_BODY and self._timer is not None:
            self._due += len(data) / MIN_BODY_RATE
        super().data_received(data)

    def handle_events(self) -> None:
        before = self.conn.their_state
        super().handle_events()
        state = self.conn.their_state
        if state is h11.SEND_BODY:
            if before is not h11.SEND_BODY:
                self._start()  # the head is in: the body's time starts here
        elif state is not h11.IDLE:
            self._stop()  # the request is in, or the connection is done with
        # (IDLE: a head still arriving keeps its deadline; a kept-alive connection waiting for the next
        # request is uvicorn's to time out, and has no deadline until a byte of it arrives)

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop()
        super().connection_lost(exc)

    def _start(self) -> None:
        self._stop()
        self._due = self.loop.time() + self.head_timeout
        self._timer = self.loop.call_at(self._due, self._check)

    def _stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _check(self) -> None:
        self._timer = None
        state = self.conn.their_state
        if state is not h11.IDLE and state is not h11.SEND_BODY or self.transport.is_closing():
            return
        now = self.loop.time()
        if state is h11.SEND_BODY and self.flow.read_paused:
            self._due = now + self.head_timeout  # the application is not reading: the client is not late
        if self._due > now:
            self._timer = self.loop.call_at(self._due, self._check)
            return
        self.transport.close()


def protocol_with(seconds: float) -> Any:
    """The protocol class for a server whose clients have ``seconds`` for a request's head (and its body)."""
    return type("RequestDeadlineProtocol", (RequestDeadlineProtocol,), {"head_timeout": seconds})
