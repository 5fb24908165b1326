"""A word the entity filter dropped, and the rule that dropped it (specs/skill-cortex.md §5).

Apart from :mod:`.entities` because ``perceive`` asks the filter for its kept words only: the
record class is built when a caller wants the rejections.
"""

from __future__ import annotations

from attrs import frozen


@frozen
class Rejection:
    word: str
    rule: str


__all__ = ["Rejection"]
