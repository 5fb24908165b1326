"""The learning formulas of spec §4.2, each a small pure function over config constants."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from typing import Any

from ...kernel.clock import utc_timestamp
from ...kernel.cortex.policy import at_least, has_writing_tag
from .memory import BUILTIN_SOURCES, Candidate, days_between

#: threshold comparisons are made on values rounded to 10 decimals (spec §1)
_DECIMALS = 10


def below(value: float, threshold: float) -> bool:
    return round(value, _DECIMALS) < round(threshold, _DECIMALS)


def effective_weight(weight: float, last_used: date, today: date, cfg: Any) -> float:
    """Stored weight times the idle decay ``max(floor, 1 - days / horizon)`` (§4.2.1)."""
    days = days_between(last_used, today)
    decay = max(cfg.decay_floor, 1 - days / cfg.decay_horizon_days)
    return float(weight * decay)


def success_weight(weight: float, recent: int, cfg: Any) -> float:
    """``weight + (1 - weight) * rate / (1 + recent)`` (§4.2.2)."""
    return float(weight + (1 - weight) * (cfg.learning_rate / (1 + recent)))


def failure_weight(weight: float, failure: str, cfg: Any) -> float:
    """``weight * factor[failure]``; an unknown type uses the ``runtime_error`` factor."""
    factors = cfg.failure_factors
    return float(weight * factors.get(failure, factors.get("runtime_error", 0.6)))


def apply_success(cand: Candidate, now: float, cfg: Any) -> None:
    # only the latest ``recent_times_cap`` times are kept, so only they are read
    recent, times = cand.recent_successes(now - cfg.recent_window, cfg.recent_times_cap)
    cand.weight = success_weight(cand.weight, recent, cfg)
    times.append(now)
    times = sorted(times)[-cfg.recent_times_cap:]
    successes, consecutive = cand.successes + 1, cand.consecutive + 1
    cand.set_runs(success=successes, fail=cand.failures, recent_successes_7d=len(times),
                  consecutive_successes=consecutive,
                  recent_success_times=[utc_timestamp(t) for t in times])


def apply_failure(cand: Candidate, failure: str, detail: str, now: float, cfg: Any) -> None:
    _recent, times = cand.recent_successes(now - cfg.recent_window, cfg.recent_times_cap)
    cand.weight = failure_weight(cand.weight, failure, cfg)
    cand.set_runs(success=cand.successes, fail=cand.failures + 1, recent_successes_7d=len(times),
                  consecutive_successes=0, recent_success_times=[utc_timestamp(t) for t in times])
    cand.set("reflex", False)
    cand.set("last_fail", {"type": failure, "detail": detail, "date": cand.today.isoformat()})


def promotion_blockers(cand: Candidate, blacklisted: bool, cfg: Any, *, seed_evidence: bool = True) -> list[str]:
    """Why the candidate may not be promoted to reflex (§4.2.4); empty when every condition holds.

    ``seed_evidence=False`` leaves out the weight and streak gates, for a ranking policy whose own
    evidence rule replaces them; the content, source and blacklist conditions always apply.
    """
    out = []
    if seed_evidence:
        if not at_least(cand.weight, cfg.reflex_min_weight):
            out.append(f"stored weight {cand.weight:.4f} < {cfg.reflex_min_weight}")
        if cand.consecutive < cfg.reflex_min_consecutive:
            out.append(f"{cand.consecutive} consecutive successes < {cfg.reflex_min_consecutive}")
        if cand.successes < cfg.reflex_min_successes:
            out.append(f"{cand.successes} successes < {cfg.reflex_min_successes}")
    out.extend(_content_blockers(cand.tags, cand.fingerprint, cand.side_effects_for, cand.scan_decision,
                                 cand.source))
    if blacklisted:
        out.append("blacklisted")
    return out


def _content_blockers(tags: Iterable[str], fingerprint: str | None, side_effects_for: str | None,
                      scan_decision: str | None, source: str) -> list[str]:
    out = []
    if has_writing_tag(tags):
        out.append("has a write:/delete:/shell: side effect")
    if fingerprint is None or side_effects_for != fingerprint:
        out.append("side effects not classified for this content (treated as writing)")
    if scan_decision != "allow":
        out.append(f"local scan decision is {scan_decision or 'unknown'}, not allow")
    if source not in BUILTIN_SOURCES:
        out.append(f"source {source!r} is not reflex-eligible")
    return out


def fast_path_reasons(cand: Candidate, effective: float, cfg: Any, *, seed_evidence: bool = True) -> list[str]:
    """The locally checkable fast-path conditions that fail (§4.2.5); empty = eligible.

    Registry checks (latest version, scan status, fingerprint of the published files) are made by
    the acquisition loop before installing. ``seed_evidence=False`` as in :func:`promotion_blockers`.
    """
    out = []
    if not cand.reflex:
        out.append("reflex flag not set")
    if seed_evidence:
        if below(effective, cfg.reflex_min_effective):
            out.append(f"effective weight {effective:.4f} < {cfg.reflex_min_effective}")
        if cand.consecutive < cfg.reflex_min_consecutive:
            out.append(f"{cand.consecutive} consecutive successes < {cfg.reflex_min_consecutive}")
    out.extend(_content_blockers(cand.tags, cand.fingerprint, cand.side_effects_for, cand.scan_decision,
                                 cand.source))
    return out


def retention_suggested(cand: Candidate, cfg: Any) -> bool:
    """Suggest keeping the skill installed (§4.3.4 step 4)."""
    chars = cand.skill_md_chars
    return (cand.successes >= cfg.retention_min_successes
            and at_least(cand.weight, cfg.retention_min_weight)
            and chars is not None and chars < cfg.retention_max_chars)
