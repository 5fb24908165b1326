"""Search fan-out: every configured registry at once, each bounded by its own time-out.

Why threads and not a pool: a registry that hangs must not hold the answer (nor the process exit)
hostage, so each query runs in a daemon thread and the caller stops waiting at the deadline. A
registry that fails or times out is reported in the result while the others still answer.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from attrs import frozen

from ..errors import BadInput, NervousError
from ..kernel.records import SearchHit

if TYPE_CHECKING:
    from ..kernel.manager import PluginManager


@frozen
class RegistryStatus:
    """How one registry answered: ``ok``, ``error`` or ``timeout``."""

    registry: str
    status: str
    message: str = ""
    hits: int = 0
    elapsed: float = 0.0


@frozen
class SearchResult:
    query: str
    hits: tuple[SearchHit, ...]
    registries: tuple[RegistryStatus, ...]

    @property
    def ok(self) -> bool:
        return any(r.status == "ok" for r in self.registries)


def identity(hit: SearchHit) -> tuple[str, str, str]:
    """What makes two hits the same skill: the source and its owner-qualified name."""
    return (hit.registry, (hit.ref.owner or "").lower(), hit.ref.name.lower() if hit.ref.path is None
            else f"{hit.ref.path}".lower())


def merge(per_registry: Iterable[list[SearchHit]]) -> list[SearchHit]:
    """Registry order first (the configured order), each registry's own order kept; duplicates dropped."""
    seen: set[tuple[str, str, str]] = set()
    out: list[SearchHit] = []
    for hits in per_registry:
        for hit in hits:
            key = identity(hit)
            if key in seen:
                continue
            seen.add(key)
            out.append(hit)
    return out


#: the longest query sent to registries: a query names what a skill does; longer text is refused, not cut (each
#: registry would be sent it, and some answer a long address with an error of their own or not at all)
MAX_QUERY_CHARS = 1_000


def check_query(query: str) -> None:
    """Refuse a query longer than :data:`MAX_QUERY_CHARS`."""
    if len(query) > MAX_QUERY_CHARS:
        raise BadInput(f"the search query is {len(query):,} characters long; at most {MAX_QUERY_CHARS:,} are "
                       "accepted (name what the skill should do)", code="too_large",
                       details={"length": len(query), "limit": MAX_QUERY_CHARS})


def search(
    pm: PluginManager,
    query: str,
    *,
    registries: Iterable[str] | None = None,
    limit: int = 10,
    timeout: float | None = None,
) -> SearchResult:
    """Query the registries concurrently; per-registry status plus merged, de-duplicated hits."""
    check_query(query)
    names = list(registries or pm.config.registries.use)
    timeout = float(timeout if timeout is not None else pm.config.registries.timeout)
    statuses: dict[str, RegistryStatus] = {}
    answers: queue.Queue[tuple[str, str, Any, float]] = queue.Queue()
    started = time.monotonic()
    pending: set[str] = set()
    for name in dict.fromkeys(names):
        try:
            registry = pm.registry(name)
        except NervousError as exc:
            statuses[name] = RegistryStatus(name, "error", exc.message)
            continue
        pending.add(name)
        thread = threading.Thread(target=_run, args=(registry, name, query, limit, answers),
                                  name=f"nervous-search-{name}", daemon=True)
        thread.start()
    results: dict[str, list[SearchHit]] = {}
    deadline = started + timeout
    while pending:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        try:
            name, kind, value, elapsed = answers.get(timeout=remaining)
        except queue.Empty:
            break
        pending.discard(name)
        if kind == "ok":
            # a registry that ignores the limit is held to it (its other hits would only cost time and memory)
            note = f"answered {len(value)} hits for a limit of {limit}; the first {limit} kept" if len(value) > limit else ""
            results[name] = list(value[:limit])
            statuses[name] = RegistryStatus(name, "ok", note, len(results[name]), round(elapsed, 4))
        else:
            statuses[name] = RegistryStatus(name, "error", str(value), 0, round(elapsed, 4))
    for name in pending:
        statuses[name] = RegistryStatus(name, "timeout", f"no answer within {timeout:g} s", 0, round(timeout, 4))
    hits = merge(results.get(n, []) for n in names)
    ordered = tuple(statuses[n] for n in dict.fromkeys(names) if n in statuses)
    pm.emit("search", {"query": query, "hits": len(hits),
                       "registries": {s.registry: s.status for s in ordered}})
    return SearchResult(query=query, hits=tuple(hits), registries=ordered)


def _run(registry: Any, name: str, query: str, limit: int,
         answers: queue.Queue[tuple[str, str, Any, float]]) -> None:
    t0 = time.monotonic()
    try:
        hits = registry.search(query, limit=limit)
        answers.put((name, "ok", hits, time.monotonic() - t0))
    except NervousError as exc:
        answers.put((name, "error", exc.message, time.monotonic() - t0))
    except Exception as exc:  # a plugin bug must not break the other registries
        answers.put((name, "error", f"{type(exc).__name__}: {exc}", time.monotonic() - t0))


__all__ = ["search", "SearchResult", "RegistryStatus", "merge"]
