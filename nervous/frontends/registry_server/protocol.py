"""uvicorn's HTTP/1.1 protocol with a deadline on each request's head.

uvicorn closes a keep-alive connection left idle, but sets no time limit on reading a request line and
its headers, nor on a new connection that sends nothing: a client that drips its headers a byte at a time
held one of the server's connections for as long as it liked, and ``max_connections`` such clients locked
everyone else out (503). Here a request's head must arrive whole within ``head_timeout`` seconds of the
connection opening, or of the first byte of a request on a kept-alive connection; otherwise the
connection is closed. The body is read by the application, within its size limit.
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

#: seconds a client has to send a request line and headers (the ones of a browser or CLI take milliseconds)
DEFAULT_HEAD_TIMEOUT = 20.0


class HeadDeadlineProtocol(H11Protocol):
    """:class:`H11Protocol` that closes a connection whose request head is late (see the module)."""

    head_timeout = DEFAULT_HEAD_TIMEOUT
    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._head_timer is None and self.conn.their_state is h11.IDLE:
            self._arm()  # the first bytes of a request on a kept-alive connection (not re-armed by later ones)
        super().data_received(data)

    def handle_events(self) -> None:
        super().handle_events()
        if self.conn.their_state is not h11.IDLE:
            self._disarm()  # the head has arrived (or the connection is done with)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._head_timer = self.loop.call_later(self.head_timeout, self._late)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _late(self) -> None:
        self._head_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()


def protocol_with(seconds: float) -> Any:
    """The protocol class for a server whose heads are due within ``seconds``."""
    return type("HeadDeadlineProtocol", (HeadDeadlineProtocol,), {"head_timeout": seconds})
