"""Routing benchmark for cortex perception (issue 4 item 6).

Teaches every region of a regions file through the real learning path (``Cortex.record_outcome``
with the task text, as a search-solved success, so signals go through extraction and entity
filtering), optionally adds each region's description as a cold-start signal, then routes every
``test`` task of a split file one at a time and reports Hit@1 / Hit@3 on known-region tasks, miss
precision / recall on novel tasks, routing accuracy, and per-task latency. The baseline measured in
the same run is the spec's simplest acceptable matcher (§4.3.1: distinct signals present, hit when
at least min(2, signals in the pattern)) over the same learned memory.

    python benchmarks/perception.py --regions ../shared/data/perception/regions.jsonl \
        --split ../shared/data/perception/dev.jsonl

``--cv N`` adds a robustness check that never looks at the test rows: N rounds that each hold out a
quarter of the regions as novel tools and two train tasks of every other region as known-region
queries, teach the rest the same way, and route the held-out tasks with the same settings.

``--region-cv K`` groups the test rows by tool into K folds and judges each fold with a miss
threshold calibrated on the other folds only (the held-out split is built from other tools, so a
tool-disjoint estimate of the miss decision is the honest one).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from nervous.engines.cortex import Cortex
from nervous.engines.cortex.entities import stem, tokenize
from nervous.kernel.config import Config
from nervous.kernel.manager import PluginManager
from nervous.kernel.storage import MemoryStore


def region_name(tool_id: str) -> str:
    """A region name for a tool id: ``AusSurfReport`` → ``aus-surf-report``."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1-\2", tool_id)
    spaced = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1-\2", spaced)
    name = re.sub(r"[^A-Za-z0-9]+", "-", spaced).strip("-").lower()
    return name[:64] or "region"


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    rows = []
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise SystemExit(f"{path}:{n}: not JSON ({exc})") from None
    return rows


def seed_rule(task: str, signals: dict[str, tuple[str, ...]], last_used: dict[str, str]) -> list[tuple[str, float]]:
    """The spec's simplest acceptable matcher: count distinct signals (and name words) present."""
    words = {stem(t.lower) for t in tokenize(task)} | {t.lower for t in tokenize(task)}
    scored = []
    for region, sigs in signals.items():
        vocab = {stem(s) for s in sigs} | {stem(p) for p in region.split("-") if len(p) >= 2}
        score = len(vocab & words)
        if score and score >= min(2, len(sigs) or 1):
            scored.append((region, float(score)))
    return sorted(scored, key=lambda kv: (-kv[1], _neg(last_used.get(kv[0], "")), kv[0]))


def _neg(day: str) -> tuple[int, ...]:
    return tuple(-ord(c) for c in day)


def metrics(results: list[tuple[str | None, list[str], str | None]]) -> dict[str, float]:
    """``results``: (gold region or None, ranked regions, decision or None for miss)."""
    known = [r for r in results if r[0] is not None]
    novel = [r for r in results if r[0] is None]
    misses = [r for r in results if r[2] is None]
    return {
        "hit_at_1": sum(1 for g, ranked, _d in known if ranked[:1] == [g]) / max(len(known), 1),
        "hit_at_3": sum(1 for g, ranked, _d in known if g in ranked[:3]) / max(len(known), 1),
        "miss_precision": sum(1 for g, _r, _d in misses if g is None) / max(len(misses), 1),
        "miss_recall": sum(1 for _g, _r, d in novel if d is None) / max(len(novel), 1),
        "routing_accuracy": sum(1 for g, _r, d in results if g == d) / max(len(results), 1),
        "known_accuracy": sum(1 for g, _r, d in known if g == d) / max(len(known), 1),
    }


def encoder_latency(matcher: Any, tasks: list[str]) -> list[float]:
    """CPU milliseconds to embed each task, tokenising included, for a matcher with an encoder
    (the perceive path's share that the encoder takes; empty for the lexical matcher)."""
    encoder = getattr(matcher, "encoder", None)
    if encoder is None:
        return []
    cap = getattr(matcher, "max_tokens", None)
    out: list[float] = []
    for task in tasks:
        c = time.process_time()
        encoder.encode([task], cap) if cap else encoder.encode([task])
        out.append((time.process_time() - c) * 1000)
    return out


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def teach(cortex: Cortex, train: list[dict[str, Any]], regions: list[dict[str, Any]], names: dict[str, str],
          describe: bool, now: float) -> None:
    """The real learning path: every train row is a search-solved success with its task text."""
    for row in train:
        region = names[row["region"]]
        cortex.record_outcome(region, f"{region}-skill", "success", task=row["task"], now=now)
    if describe:
        taught = {names[row["region"]] for row in train}
        for r in regions:
            if names.get(r["id"]) in taught and r.get("description"):
                cortex.describe_region(names[r["id"]], r["description"], now=now)


def cross_validate(rounds: int, seed: int, train: list[dict[str, Any]], regions: list[dict[str, Any]],
                   names: dict[str, str], cfg: Config, describe: bool, now: float) -> dict[str, Any]:
    """Held-out regions and tasks from the train rows only (see the module docstring)."""
    rng = random.Random(seed)
    by_region: dict[str, list[dict[str, Any]]] = {}
    for row in train:
        by_region.setdefault(row["region"], []).append(row)
    ids = sorted(by_region)
    per_round: list[dict[str, float]] = []
    for _ in range(rounds):
        order = ids[:]
        rng.shuffle(order)
        novel_ids, known_ids = order[: len(order) // 4], order[len(order) // 4:]
        teach_rows: list[dict[str, Any]] = []
        queries: list[tuple[str | None, str]] = []
        for rid in known_ids:
            rows = by_region[rid][:]
            rng.shuffle(rows)
            teach_rows += rows[2:]
            queries += [(names[rid], r["task"]) for r in rows[:2]]
        novel = [(None, r["task"]) for rid in novel_ids for r in by_region[rid]]
        rng.shuffle(novel)
        queries += novel[: len(queries) // 3]  # a quarter of all queries are novel, as in the split
        pm = PluginManager(cfg, autoload=False)
        cortex = Cortex(pm, MemoryStore())
        kept = {id(r) for r in teach_rows}
        teach(cortex, [r for r in train if id(r) in kept], regions, names, describe, now)  # file order
        matcher = pm.matcher()
        doc = cortex.store.read("skill-cortex", "cortex").value or {}
        memory = cortex.matcher_memory(doc)
        results = []
        for gold, task in queries:
            ranked = matcher.scores(task, memory) if hasattr(matcher, "scores") else matcher.match(task, memory, 3)
            decision = matcher.match(task, memory, 3)
            results.append((gold, [r for r, _s in ranked[:3]], decision[0][0] if decision else None))
        per_round.append(metrics(results))
    keys = per_round[0].keys() if per_round else ()
    return {
        "rounds": rounds, "seed": seed,
        "mean": {k: round(statistics.mean(m[k] for m in per_round), 4) for k in keys},
        "stdev": {k: round(statistics.stdev(m[k] for m in per_round), 4) if rounds > 1 else 0.0 for k in keys},
    }


def best_threshold(scored: list[tuple[str | None, list[tuple[str, float]]]]) -> float:
    """The miss threshold with the best routing accuracy on ``scored`` (ties: the lowest)."""
    candidates = sorted({0.0, *(rk[0][1] for _g, rk in scored if rk)})
    best, best_acc = 0.0, -1.0
    for thr in candidates:
        acc = metrics(decide(scored, thr))["routing_accuracy"]
        if acc > best_acc:
            best, best_acc = thr, acc
    return best


def decide(scored: list[tuple[str | None, list[tuple[str, float]]]],
           threshold: float) -> list[tuple[str | None, list[str], str | None]]:
    return [(g, [r for r, _s in rk[:3]], rk[0][0] if rk and rk[0][1] >= threshold else None) for g, rk in scored]


def region_cross_validation(folds: int, seed: int, scored: list[tuple[str | None, list[tuple[str, float]]]],
                            threshold: float) -> dict[str, Any]:
    """Test rows grouped by their tool: each fold's regions (and a share of the novel rows) are judged
    with a miss threshold calibrated on the other folds only, so no tool is scored with a decision
    tuned on its own rows. The novel rows carry no tool id, so they are cut into contiguous chunks
    in file order. Also reports the shipped threshold on each fold, to show the spread over tools.
    """
    rng = random.Random(seed)
    known_ids = sorted({g for g, _rk in scored if g is not None})
    rng.shuffle(known_ids)
    fold_of = {rid: i % folds for i, rid in enumerate(known_ids)}
    novel_idx = [i for i, (g, _rk) in enumerate(scored) if g is None]
    chunk = -(-len(novel_idx) // folds) if novel_idx else 1
    row_fold = [fold_of[g] if g is not None else novel_idx.index(i) // chunk for i, (g, _rk) in enumerate(scored)]
    calibrated: list[dict[str, float]] = []
    shipped: list[dict[str, float]] = []
    thresholds: list[float] = []
    for f in range(folds):
        held = [row for row, rf in zip(scored, row_fold, strict=True) if rf == f]
        rest = [row for row, rf in zip(scored, row_fold, strict=True) if rf != f]
        if not held:
            continue
        thr = best_threshold(rest)
        thresholds.append(round(thr, 4))
        calibrated.append(metrics(decide(held, thr)))
        shipped.append(metrics(decide(held, threshold)))

    def summary(per: list[dict[str, float]]) -> dict[str, dict[str, float]]:
        keys = per[0].keys() if per else ()
        return {"mean": {k: round(statistics.mean(m[k] for m in per), 4) for k in keys},
                "stdev": {k: round(statistics.stdev(m[k] for m in per), 4) if len(per) > 1 else 0.0 for k in keys}}

    return {"folds": len(calibrated), "seed": seed, "thresholds": thresholds,
            "calibrated": summary(calibrated), "shipped_threshold": summary(shipped)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--regions", type=Path, required=True, help="regions.jsonl (id, name, description)")
    parser.add_argument("--split", type=Path, required=True, help="split file (phase, task, region)")
    parser.add_argument("--no-descriptions", action="store_true", help="do not use descriptions as cold start")
    parser.add_argument("--matcher", default="lexical", help="matcher provider name (default lexical)")
    parser.add_argument("--set", dest="settings", action="append", default=[], metavar="KEY=VALUE",
                        help="matcher setting override (repeatable), e.g. threshold=0.15")
    parser.add_argument("--sweep", action="store_true", help="also print routing accuracy per threshold")
    parser.add_argument("--cv", type=int, default=0, metavar="N",
                        help="also run N cross-validation rounds on the train rows (robustness check)")
    parser.add_argument("--cv-seed", type=int, default=1, help="seed of the cross-validation rounds")
    parser.add_argument("--region-cv", type=int, default=0, metavar="K",
                        help="also report K-fold cross-validation over the test rows' tools: each fold's "
                             "regions are judged with a miss threshold calibrated on the other folds")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)

    regions = read_jsonl(args.regions)
    rows = read_jsonl(args.split)
    names = {r["id"]: region_name(r["id"]) for r in regions}
    if len(set(names.values())) != len(names):
        raise SystemExit("two region ids map to the same region name")
    train = [r for r in rows if r.get("phase") == "train"]
    test = [r for r in rows if r.get("phase") == "test"]

    cfg = Config()
    cfg.cortex.matcher = args.matcher
    settings: dict[str, Any] = {}
    for item in args.settings:
        key, _, value = item.partition("=")
        try:
            settings[key] = float(value)
        except ValueError:
            settings[key] = value
    if settings:
        cfg.plugins.settings[args.matcher] = settings
    pm = PluginManager(cfg, autoload=False)
    cortex = Cortex(pm, MemoryStore())
    now = 1_772_649_611.0

    t0 = time.perf_counter()
    teach(cortex, train, regions, names, not args.no_descriptions, now)
    teach_s = time.perf_counter() - t0

    matcher = pm.matcher()
    doc = cortex.store.read("skill-cortex", "cortex").value or {}
    memory = cortex.matcher_memory(doc)
    gold = [names.get(r["region"]) if r.get("region") is not None else None for r in test]

    ours: list[tuple[str | None, list[str], str | None]] = []
    base: list[tuple[str | None, list[str], str | None]] = []
    full_ms: list[float] = []
    full_cpu_ms: list[float] = []
    decide_ms: list[float] = []
    base_ms: list[float] = []
    raw_scores: list[tuple[str | None, list[tuple[str, float]]]] = []
    for row, g in zip(test, gold, strict=True):
        task = row["task"]
        c, t = time.process_time(), time.perf_counter()
        perception = cortex.perceive(task, now=now)
        full_ms.append((time.perf_counter() - t) * 1000)
        full_cpu_ms.append((time.process_time() - c) * 1000)
        t = time.perf_counter()
        decision = matcher.match(task, memory, 3)
        decide_ms.append((time.perf_counter() - t) * 1000)
        ranked = matcher.scores(task, memory) if hasattr(matcher, "scores") else decision
        raw_scores.append((g, ranked[:3]))
        answer = perception.region if perception.hit else None
        ours.append((g, [r for r, _s in ranked[:3]], answer))
        t = time.perf_counter()
        seed_ranked = seed_rule(task, memory.signals, memory.last_used)
        base_ms.append((time.perf_counter() - t) * 1000)
        base.append((g, [r for r, _s in seed_ranked[:3]], seed_ranked[0][0] if seed_ranked else None))

    encoder_cpu_ms = encoder_latency(matcher, [r["task"] for r in test])
    m, b = metrics(ours), metrics(base)
    report = {
        "regions": len(regions), "train": len(train), "test": len(test),
        "known_test": sum(1 for g in gold if g), "novel_test": sum(1 for g in gold if not g),
        "matcher": args.matcher, "settings": settings, "descriptions": not args.no_descriptions,
        "teach_seconds": round(teach_s, 3),
        "ours": {k: round(v, 4) for k, v in m.items()},
        "baseline_seed_rule": {k: round(v, 4) for k, v in b.items()},
        "ratio_vs_baseline": {k: (round(m[k] / b[k], 3) if b[k] else None) for k in m},
        "latency_ms": {
            "perceive_p50": round(statistics.median(full_ms), 4), "perceive_p95": round(percentile(full_ms, 0.95), 4),
            "perceive_cpu_p50": round(statistics.median(full_cpu_ms), 4),
            "perceive_cpu_p95": round(percentile(full_cpu_ms, 0.95), 4),
            **({"encode_cpu_p50": round(statistics.median(encoder_cpu_ms), 4),
                "encode_cpu_p95": round(percentile(encoder_cpu_ms, 0.95), 4)} if encoder_cpu_ms else {}),
            "match_p50": round(statistics.median(decide_ms), 4), "match_p95": round(percentile(decide_ms, 0.95), 4),
            "baseline_p50": round(statistics.median(base_ms), 4),
        },
        "stored_words": {
            "signals_per_region_max": max((len(s) for s in memory.signals.values()), default=0),
            "index_words_per_region_max": max((len(str(v).split()) for v in (memory.state.get("regions") or {}).values()),
                                              default=0),
        },
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, one thread",
        **({"encoder_backend": matcher.encoder.backend} if hasattr(matcher, "encoder") else {}),
    }
    if args.sweep:
        sweep = {}
        for step in range(0, 41):
            thr = step / 200
            sweep[f"{thr:.3f}"] = round(metrics(decide(raw_scores, thr))["routing_accuracy"], 4)
        report["threshold_sweep"] = sweep
    if args.region_cv:
        if args.region_cv < 2:
            raise SystemExit("--region-cv needs at least 2 folds")
        report["region_cross_validation"] = region_cross_validation(
            args.region_cv, args.cv_seed, raw_scores, getattr(matcher, "threshold", 0.0))
    if args.cv:
        report["cross_validation"] = cross_validate(args.cv, args.cv_seed, train, regions, names, cfg,
                                                    not args.no_descriptions, now)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"perception routing: {report['regions']} regions, {report['train']} train tasks, "
          f"{report['known_test']} known + {report['novel_test']} novel test tasks")
    print(f"{'metric':<18}{'ours':>9}{'seed rule':>11}{'ratio':>8}")
    for key in ("hit_at_1", "hit_at_3", "miss_precision", "miss_recall", "routing_accuracy", "known_accuracy"):
        ratio = report["ratio_vs_baseline"][key]
        print(f"{key:<18}{m[key] * 100:>8.1f}%{b[key] * 100:>10.1f}%{(ratio or 0):>8.2f}")
    lat = report["latency_ms"]
    print(f"latency per task: perceive p50 {lat['perceive_p50']:.3f} ms, p95 {lat['perceive_p95']:.3f} ms; "
          f"match only p50 {lat['match_p50']:.3f} ms, p95 {lat['match_p95']:.3f} ms "
          f"(seed rule p50 {lat['baseline_p50']:.3f} ms)")
    print(f"CPU time per task: perceive p50 {lat['perceive_cpu_p50']:.3f} ms, p95 {lat['perceive_cpu_p95']:.3f} ms"
          + (f"; encoder alone p50 {lat['encode_cpu_p50']:.3f} ms, p95 {lat['encode_cpu_p95']:.3f} ms "
             f"({report['encoder_backend']})" if "encode_cpu_p50" in lat else ""))
    print(f"stored per region: ≤ {report['stored_words']['signals_per_region_max']} signals, "
          f"≤ {report['stored_words']['index_words_per_region_max']} index words; {report['machine']}")
    if args.sweep:
        print("threshold sweep (routing accuracy):",
              ", ".join(f"{k}:{v * 100:.1f}" for k, v in report["threshold_sweep"].items()))
    if args.cv:
        cv = report["cross_validation"]
        print(f"cross-validation on the train rows ({cv['rounds']} rounds, mean ± sd): " + ", ".join(
            f"{k} {cv['mean'][k] * 100:.1f} ± {cv['stdev'][k] * 100:.1f}"
            for k in ("hit_at_1", "hit_at_3", "miss_precision", "miss_recall", "routing_accuracy")))
    if args.region_cv:
        rcv = report["region_cross_validation"]
        for label, key in (("calibrated on the other folds", "calibrated"), ("shipped threshold", "shipped_threshold")):
            part = rcv[key]
            print(f"region-held-out {rcv['folds']}-fold, {label} (mean ± sd): " + ", ".join(
                f"{k} {part['mean'][k] * 100:.1f} ± {part['stdev'][k] * 100:.1f}"
                for k in ("hit_at_1", "hit_at_3", "miss_recall", "routing_accuracy")))
        print("thresholds calibrated per fold:", ", ".join(f"{t:.3f}" for t in rcv["thresholds"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
