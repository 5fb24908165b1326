"""What a perception matcher sees of the memory, and its optional learning interface.

A matcher (``nervous_matchers`` hook, :class:`nervous.plugin.protocols.Matcher`) receives a
:class:`MatcherMemory` and returns ``(region, score)`` pairs, best first; an empty list is a miss.
A matcher may also keep its own bounded state inside the cortex document (the extension key
``matcher_state[<matcher name>]``); the engine then calls, inside its transactions:

* ``observe(state, region, words)`` with entity-filtered words of a solved task (never raw text);
* ``describe(state, region, words)`` with entity-filtered words of a region's description (cold
  start; without it the engine calls ``observe``);
* ``forget(state, region)`` when a region is pruned or forgotten.

Both are optional; a matcher without them sees only the signal words and region names.
"""

from __future__ import annotations

from typing import Any

from attrs import field, frozen


@frozen
class MatcherMemory:
    """The routing-relevant part of the cortex: regions, their signals and the matcher's own state."""

    #: region name -> signal words (union of the region's patterns, oldest first)
    signals: dict[str, tuple[str, ...]]
    #: region name -> ``YYYY-MM-DD`` of the region's last use (tie-break: most recent first)
    last_used: dict[str, str] = field(factory=dict)
    #: the matcher's own state from the document (read-only here)
    state: dict[str, Any] = field(factory=dict)
    #: changes with every committed mutation; ``None`` for a document never written by nervous
    revision: str | None = None

    @property
    def regions(self) -> list[str]:
        return sorted(self.signals)
