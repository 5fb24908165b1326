"""AppendOnce: each message once, in order, whoever else writes the list."""

from __future__ import annotations

from nervous.kernel.messages import AppendOnce
from nervous.testing.growth import linear_run


def test_keeps_the_first_of_each_message_in_order() -> None:
    warnings = ["a"]
    warn = AppendOnce(warnings)
    for message in ["b", "a", "c", "b"]:
        warn(message)
    assert warnings == ["a", "b", "c"]


def test_a_list_changed_from_outside_is_read_again() -> None:
    warnings: list[str] = []
    warn = AppendOnce(warnings)
    warn("a")
    warnings.append("b")  # appended by someone else
    warn("b")
    assert warnings == ["a", "b"]
    warnings.clear()
    warn("a")
    assert warnings == ["a"]


def test_many_messages_are_gathered_in_linear_time() -> None:
    def run(n: int) -> None:
        messages = [f"entry {i}: not a number" for i in range(n)]
        out: list[str] = []
        AppendOnce(out).extend(messages + messages)
        assert len(out) == n

    linear_run(run, 2000)
