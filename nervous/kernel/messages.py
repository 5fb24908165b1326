"""Messages gathered once each, in order: the warnings of a long document or of many calls.

A list searched for every new message costs time quadratic in how many there are (a cortex with thousands
of coerced entries warns once per entry). :class:`AppendOnce` keeps a set of what the list holds beside it.
"""

from __future__ import annotations

from collections.abc import Iterable


class AppendOnce:
    """A ``warn(message)`` that appends to ``messages`` each message it does not hold yet.

    The list stays the caller's to read and to return. When something else appends to it or clears it,
    the set is rebuilt from the list at the next call, so the answer never depends on who wrote what.
    """

    __slots__ = ("messages", "_seen", "_size")

    def __init__(self, messages: list[str]) -> None:
        self.messages = messages
        self._seen = set(messages)
        self._size = len(messages)

    def __call__(self, message: str) -> None:
        if len(self.messages) != self._size:  # changed from outside since the last call
            self._seen = set(self.messages)
        if message not in self._seen:
            self._seen.add(message)
            self.messages.append(message)
        self._size = len(self.messages)

    def extend(self, new: Iterable[str]) -> None:
        for message in new:
            self(message)


__all__ = ["AppendOnce"]
