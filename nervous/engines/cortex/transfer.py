"""Import and export of original skill-cortex ``cortex.json`` v1 files (spec §3.1, §9.2)."""

from __future__ import annotations

import copy
import json
from datetime import date
from pathlib import Path
from typing import Any

from ...errors import BadInput
from ...kernel.messages import AppendOnce
from . import lessons as lessons_mod
from . import memory
from .entities import stem

DEFAULT_ORIGINAL_PATH = "~/.openclaw/skill-cortex/cortex.json"


def load_file(path: str | Path) -> dict[str, Any]:
    from ...kernel.durable import read_user_file

    p = Path(path).expanduser()
    try:
        raw = read_user_file(p)
    except FileNotFoundError:
        raise BadInput(f"{p}: no such file") from None
    except OSError as exc:
        raise BadInput(f"{p}: cannot read ({exc.strerror or exc})") from None
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadInput(f"{p}: not a JSON document ({exc})") from None
    if not isinstance(doc, dict):
        raise BadInput(f"{p}: the top level must be a JSON object, got {type(doc).__name__}")
    return doc


def dumps(doc: dict[str, Any]) -> str:
    """The native file format: 2-space indent, UTF-8, trailing newline."""
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def strict_v1(doc: dict[str, Any]) -> dict[str, Any]:
    """Exactly the v1 schema: extension and unknown keys removed, v1 values unchanged."""
    out: dict[str, Any] = {"version": 1}
    cortex = doc.get("cortex") if isinstance(doc.get("cortex"), dict) else None
    if cortex is not None:
        out_cortex: dict[str, Any] = {}
        if isinstance(cortex.get("sensory"), dict):
            sensory: dict[str, Any] = {}
            if "patterns" in cortex["sensory"]:
                sensory["patterns"] = [
                    {k: copy.deepcopy(p[k]) for k in ("signal", "region") if k in p}
                    for p in memory.patterns(doc) if isinstance(p, dict)]
            out_cortex["sensory"] = sensory
        if isinstance(cortex.get("motor"), dict):
            motor_out: dict[str, Any] = {}
            for name, region in memory.motor(doc).items():
                if not isinstance(region, dict):
                    continue
                r: dict[str, Any] = {}
                if "candidates" in region:
                    r["candidates"] = [_strict_candidate(c) for c in memory.region_candidates(region)
                                       if isinstance(c, dict)]
                if "last_used" in region:
                    r["last_used"] = region["last_used"]
                motor_out[name] = r
            out_cortex["motor"] = motor_out
        if isinstance(cortex.get("prefrontal"), dict):
            pre: dict[str, Any] = {}
            if "lessons" in cortex["prefrontal"]:
                pre["lessons"] = [
                    {k: copy.deepcopy(lesson[k]) for k in memory.V1_LESSON_KEYS[lesson["type"]] if k in lesson}
                    for lesson in memory.lessons(doc)
                    if isinstance(lesson, dict) and lesson.get("type") in memory.V1_LESSON_KEYS]
            out_cortex["prefrontal"] = pre
        out["cortex"] = out_cortex
    if "blacklist" in doc:
        out["blacklist"] = copy.deepcopy(doc["blacklist"])
    if isinstance(doc.get("stats"), dict):
        out["stats"] = {k: doc["stats"][k] for k in memory.STATS_KEYS if k in doc["stats"]}
    return out


def _strict_candidate(raw: dict[str, Any]) -> dict[str, Any]:
    out = {k: copy.deepcopy(raw[k]) for k in memory.V1_CANDIDATE_KEYS if k in raw}
    if isinstance(out.get("runs"), dict):
        out["runs"] = {k: out["runs"][k] for k in memory.V1_RUNS_KEYS if k in out["runs"]}
    return out


def merge_into(target: dict[str, Any], incoming: dict[str, Any], cfg: Any, today: date) -> dict[str, int]:
    """Merge an imported document into a non-empty memory (§9.2); pruning runs afterwards."""
    memory.ensure_v1(target)
    counts = {"patterns": 0, "candidates": 0, "lessons": 0, "blacklist": 0}
    # patterns: unite per region
    # every lookup below goes through an index built once, so a merge is linear in both documents
    pats = target["cortex"]["sensory"]["patterns"]
    first_pattern: dict[str, dict[str, Any]] = {}
    for p in pats:
        if isinstance(p, dict) and isinstance(p.get("region"), str):
            first_pattern.setdefault(p["region"], p)
    for pattern in memory.patterns(incoming):
        if not isinstance(pattern, dict) or not isinstance(pattern.get("region"), str):
            continue
        region = pattern["region"]
        mine = first_pattern.get(region)
        if mine is None:
            first_pattern[region] = copy.deepcopy(pattern)
            pats.append(first_pattern[region])
            counts["patterns"] += 1
            continue
        signals = mine.setdefault("signal", [])
        have = {stem(s) for s in signals if isinstance(s, str)}
        for s in pattern.get("signal") or []:
            if isinstance(s, str) and stem(s) not in have:
                signals.append(s)
                have.add(stem(s))
        if len(signals) > cfg.max_signals_per_pattern:
            mine["signal"] = signals[len(signals) - cfg.max_signals_per_pattern:]
    # candidates: the record with the later last_used wins
    motor = target["cortex"]["motor"]
    for name, region in memory.motor(incoming).items():
        if not isinstance(region, dict):
            continue
        mine = motor.get(name)
        if not isinstance(mine, dict):
            motor[name] = copy.deepcopy(region)
            counts["candidates"] += len(memory.region_candidates(region))
            continue
        mine_cands = mine.setdefault("candidates", [])
        position: dict[str, int] = {}
        for i, c in enumerate(mine_cands):
            if memory.is_valid_candidate(c):
                position.setdefault(memory.Candidate(c, mine, today, "", lambda _m: None).identity, i)
        for raw in memory.region_candidates(region):
            if not memory.is_valid_candidate(raw):
                continue
            theirs = memory.Candidate(raw, region, today, "", lambda _m: None)
            index = position.get(theirs.identity)
            if index is None:
                position[theirs.identity] = len(mine_cands)
                mine_cands.append(copy.deepcopy(raw))
                counts["candidates"] += 1
            else:
                ours = memory.Candidate(mine_cands[index], mine, today, "", lambda _m: None)
                if theirs.last_used > ours.last_used:
                    mine_cands[index] = copy.deepcopy(raw)
                    counts["candidates"] += 1
        their_day = memory.parse_date(region.get("last_used"))
        our_day = memory.parse_date(mine.get("last_used"))
        if their_day and (our_day is None or their_day > our_day):
            mine["last_used"] = region["last_used"]
    # lessons: dedupe by identity, keep the higher confidence
    all_lessons = target["cortex"]["prefrontal"]["lessons"]
    lesson_at: dict[Any, int] = {}
    for i, x in enumerate(all_lessons):
        if isinstance(x, dict):
            lesson_at.setdefault(_lesson_identity(x), i)
    for lesson in memory.lessons(incoming):
        if not isinstance(lesson, dict):
            continue
        identity = _lesson_identity(lesson)
        index = lesson_at.get(identity)
        if index is None:
            lesson_at[identity] = len(all_lessons)
            all_lessons.append(copy.deepcopy(lesson))
            counts["lessons"] += 1
        elif lessons_mod.confidence(lesson) > lessons_mod.confidence(all_lessons[index]):
            all_lessons[index] = copy.deepcopy(lesson)
    # blacklist: unite; stats: add up
    listed = {e for e in target["blacklist"] if isinstance(e, str)}
    for entry in memory.blacklist(incoming):
        if entry not in listed:
            listed.add(entry)
            target["blacklist"].append(entry)
            counts["blacklist"] += 1
    info = incoming.get("blacklist_info")
    if isinstance(info, dict):
        mine_info = memory.ext(target, "blacklist_info")
        for k, v in info.items():
            mine_info.setdefault(k, copy.deepcopy(v))
    for key, value in memory.stats(incoming).items():
        if isinstance(value, int) and not isinstance(value, bool):
            current = target["stats"].get(key, 0)
            target["stats"][key] = (current if isinstance(current, int) else 0) + value
    return counts


def document_digest(doc: dict[str, Any]) -> str:
    """A stable digest of an imported document, to recognise the same file imported again."""
    import hashlib

    return hashlib.sha256(json.dumps(doc, sort_keys=True, ensure_ascii=False).encode("utf-8", "surrogatepass")
                          ).hexdigest()


def import_warnings(incoming: dict[str, Any], today: date) -> list[str]:
    """What an import will coerce, quarantine or ignore, said at import time rather than at the next read.

    Out-of-range numbers (clamped), candidates without a slug (quarantined), lessons of an unknown
    type (ignored), an unknown ``last_fail.type`` (read as a generic failure) and dates that do not
    parse (read as 180 days ago) each get one warning naming their JSON path.
    """
    from ...kernel.cortex.policy import FAILURE_OUTCOMES

    out: list[str] = []
    warn = AppendOnce(out)  # a document with many coerced entries stays linear

    for name, region in memory.motor(incoming).items():
        where = f"cortex.motor.{name}"
        if not isinstance(region, dict):
            warn(f"{where}: not an object; it will be quarantined")
            continue
        if "last_used" in region and memory.parse_date(region["last_used"]) is None:
            warn(f"{where}.last_used: {region['last_used']!r} is not a date; read as 180 days ago")
        cands = region.get("candidates")
        if cands is not None and not isinstance(cands, list):
            warn(f"{where}.candidates: not a list; it will be quarantined")
            continue
        for i, raw in enumerate(cands or []):
            path = f"{where}.candidates[{i}]"
            if not memory.is_valid_candidate(raw):
                warn(f"{path}: no string slug; it will be quarantined")
                continue
            cand = memory.Candidate(raw, region, today, path, warn)
            _ = (cand.weight, cand.successes, cand.failures, cand.consecutive, cand.last_used,
                 cand.recent_successes(0.0, 0))
            last_fail = raw.get("last_fail")
            if isinstance(last_fail, dict):
                kind = last_fail.get("type")
                if kind not in FAILURE_OUTCOMES:
                    warn(f"{path}.last_fail.type: {kind!r} is not a known failure type; read as a generic failure")
                if "date" in last_fail and memory.parse_date(last_fail["date"]) is None:
                    warn(f"{path}.last_fail.date: {last_fail['date']!r} is not a date")
            elif last_fail is not None:
                warn(f"{path}.last_fail: {last_fail!r} is not an object; ignored")
    for i, lesson in enumerate(memory.lessons(incoming)):
        path = f"cortex.prefrontal.lessons[{i}]"
        if not isinstance(lesson, dict) or lesson.get("type") not in memory.V1_LESSON_KEYS:
            kind = lesson.get("type") if isinstance(lesson, dict) else type(lesson).__name__
            warn(f"{path}: lesson of unknown type {kind!r}; ignored")
            continue
        if "confidence" in lesson:
            memory.as_unit(lesson["confidence"], 0.5, f"{path}.confidence", warn)
        if "created" in lesson and memory.parse_date(lesson["created"]) is None:
            warn(f"{path}.created: {lesson['created']!r} is not a date")
    return out


def _lesson_identity(lesson: dict[str, Any]) -> tuple[Any, ...]:
    """What makes two lessons the same, hashable (JSON arrays and objects frozen; equal exactly when ``==``)."""
    if lesson.get("type") == "skill_quality_warning":
        return ("skill_quality_warning", _frozen(lesson.get("slug")))
    return (_frozen(lesson.get("type")), _frozen(lesson.get("region")), _frozen(lesson.get("key")))


def _frozen(value: Any) -> Any:
    if isinstance(value, list):
        return ("[]", tuple(_frozen(v) for v in value))
    if isinstance(value, dict):
        return ("{}", frozenset((k, _frozen(v)) for k, v in value.items()))
    return value
