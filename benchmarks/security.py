"""Security benchmark: the review policy on a labelled corpus of malicious and benign skills.

    python benchmarks/security.py --corpus ../shared/data/security/corpus.tar.gz \
        --labels ../shared/data/security/labels.jsonl

    python benchmarks/security.py --unlabelled --corpus ../shared/data/security/wild/wild.tar.gz

The corpus is hostile text: it is read from the archive in memory (never extracted, never
executed) and only aggregate figures and item ids are printed. Any archive of ``items/<id>/…``
with a ``labels.jsonl`` in the same format works; ``--unlabelled`` takes any such archive alone
and reports refuse and review rates, the rules behind them and, with ``--per-item``, each item's
decision with rule ids and line numbers (never content); ``--ids FILE`` rescans only the listed items
(for instance the refused ones of an earlier ``--per-item`` run). ``--loso-wild RECORD`` adds the
leave-one-source-out report of the review policy's second stage: its weights retrained without each
malicious source (benchmarks/train_second_stage.py, with the wild negatives of a scan record).

Printed: malicious recall, benign false-positive rate, precision and F1 at the ``refuse`` decision
and at ``review``-or-``refuse``, on all items and without the items whose notes start with
``label-doubt``; per-class precision and recall of side-effect classes on labelled items; median
and p95 milliseconds per skill, wall and CPU (the CPU time of the scan and its analysis worker,
which other load on the machine does not inflate). A naive keyword scanner is measured in the same
run as the baseline.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import sys
import tarfile
import time
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

CLASS_LABELS = {
    "read-only": "read_only",
    "write": "write",
    "destructive": "destructive",
    "sensitive-credentials": "sensitive_credentials",
    "shell": "shell",
    "network": "network",
}
#: The README's anchor (an established open-source scanner on the DEV corpus), for reference only.
ANCHOR = {"refuse": {"recall": 0.26, "fpr": 0.233, "precision": 0.426, "f1": 0.323},
          "review_or_refuse": {"recall": 0.30, "fpr": 0.30, "precision": 0.40, "f1": 0.343}}

#: Baseline: flags a skill when any of these strings occurs anywhere (what a grep-based check does).
BASELINE_TERMS = ("curl ", "wget ", "| bash", "| sh", "base64", "password", "ignore previous", "~/.ssh",
                  "eval(", "exec(", "rm -rf", "sudo ", "webhook", "/dev/tcp")
BASELINE_STRONG = ("| bash", "| sh", "/dev/tcp", "ignore previous", "base64 -d", "~/.ssh")


def load_items(archive: bytes) -> dict[str, list[tuple[str, bytes]]]:
    """``{item id: [(relative path, bytes)]}`` read from the archive in memory."""
    items: dict[str, list[tuple[str, bytes]]] = defaultdict(list)
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:*") as tf:
        for member in tf:
            if not member.isfile():
                continue
            parts = member.name.lstrip("./").split("/")
            if len(parts) < 3 or parts[0] != "items":
                continue
            fh = tf.extractfile(member)
            if fh is None:
                continue
            items[parts[1]].append(("/".join(parts[2:]), fh.read()))
    return items


def metrics(pred: dict[str, bool], labels: dict[str, dict[str, Any]], ids: Iterable[str]) -> dict[str, float]:
    tp = fp = fn = tn = 0
    for i in ids:
        mal = labels[i]["label"] == "malicious"
        p = pred[i]
        tp += mal and p
        fn += mal and not p
        fp += (not mal) and p
        tn += (not mal) and not p
    recall = tp / (tp + fn) if tp + fn else 0.0
    fpr = fp / (fp + tn) if fp + tn else 0.0
    precision = tp / (tp + fp) if tp + fp else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"recall": recall, "fpr": fpr, "precision": precision, "f1": f1, "tp": tp, "fp": fp, "fn": fn, "tn": tn}


def class_metrics(predicted: dict[str, set[str]], labels: dict[str, dict[str, Any]]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    labelled = [i for i, lab in labels.items() if lab.get("side_effects") is not None and i in predicted]
    for label, cls in CLASS_LABELS.items():
        tp = fp = fn = 0
        for i in labelled:
            truth = label in labels[i]["side_effects"]
            got = cls in predicted[i]
            tp += truth and got
            fp += got and not truth
            fn += truth and not got
        out[label] = {"precision": tp / (tp + fp) if tp + fp else 0.0, "recall": tp / (tp + fn) if tp + fn else 0.0,
                      "support": tp + fn, "tp": tp, "fp": fp, "fn": fn}
    return out


def baseline_scan(files: list[tuple[str, bytes]]) -> tuple[bool, bool]:
    """(refuse, review-or-refuse) of the naive keyword scanner."""
    text = b"\n".join(d for _, d in files).decode("utf-8", "replace").lower()
    return any(t in text for t in BASELINE_STRONG), any(t in text for t in BASELINE_TERMS)


def read_ids(path: Path | None) -> list[str] | None:
    """Item ids listed in a file, one a line (blank lines and ``#`` comments skipped; only the first
    whitespace-separated word of a line counts, so ``--per-item`` output can be fed back); ``None``
    keeps every item."""
    if path is None:
        return None
    out: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        word = line.split("#", 1)[0].split()
        if word:
            out.append(word[0])
    return out


def run(corpus: Path, labels_path: Path, *, verbose: bool = False,
        intent_command: list[str] | None = None, only: Iterable[str] | None = None,
        loso_wild: Path | None = None) -> dict[str, Any]:
    from nervous.engines.scan.engine import scan_bundle
    from nervous.kernel.config import Config
    from nervous.kernel.manager import PluginManager
    from nervous.kernel.records import ScanContext, SkillBundle, SkillFile, SkillRef

    only = None if only is None else set(only)
    labels = {}
    for line in labels_path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            rec = json.loads(line)
            if only is None or rec["id"] in only:
                labels[rec["id"]] = rec
    items = load_items(corpus.read_bytes())
    missing = sorted(set(labels) - set(items))
    if missing:
        raise SystemExit(f"labels name {len(missing)} items missing from the corpus (first: {missing[0]})")
    config = Config()
    if intent_command:  # a host's judge program (docs/security.md), asked about every item
        config.review.intent_command = list(intent_command)
    pm = PluginManager(config, autoload=False)
    verdicts: dict[str, int] = {}
    context = ScanContext(purpose="install")
    refuse: dict[str, bool] = {}
    review: dict[str, bool] = {}
    base_refuse: dict[str, bool] = {}
    base_review: dict[str, bool] = {}
    classes: dict[str, set[str]] = {}
    times: list[float] = []
    cpu_times: list[float] = []
    base_times: list[float] = []
    per_item: dict[str, dict[str, Any]] = {}
    for item_id in sorted(labels):
        files = items[item_id]
        bundle = SkillBundle(ref=SkillRef(item_id), files=tuple(SkillFile(p, d) for p, d in sorted(files)))
        t0 = time.perf_counter()
        report = scan_bundle(pm, bundle, context)
        times.append((time.perf_counter() - t0) * 1000)
        cpu_times.append(report.cpu_ms)
        t0 = time.perf_counter()
        b_ref, b_rev = baseline_scan(files)
        base_times.append((time.perf_counter() - t0) * 1000)
        refuse[item_id] = report.decision == "refuse"
        review[item_id] = report.decision in ("review", "refuse")
        base_refuse[item_id], base_review[item_id] = b_ref, b_rev
        classes[item_id] = set(report.report["capabilities"]["classes"])
        if report.intent is not None:
            verdicts[report.intent.verdict] = verdicts.get(report.intent.verdict, 0) + 1
        per_item[item_id] = {
            "label": labels[item_id]["label"], "decision": report.decision,
            "rules": sorted({f.rule_id for f in report.findings if f.action != "note"}),
            "refuse_rules": sorted({f.rule_id for f in report.findings if f.action == "refuse"}),
            "classes": sorted(classes[item_id]),
            "findings": sorted({f"{f.rule_id}:{f.action}" for f in report.findings}),
            "flags": sorted(report.report["capabilities"]["flags"]),
        }
    all_ids = sorted(labels)
    clean_ids = [i for i in all_ids if not str(labels[i].get("notes") or "").startswith("label-doubt")]
    result: dict[str, Any] = {
        "items": len(all_ids), "malicious": sum(labels[i]["label"] == "malicious" for i in all_ids),
        "label_doubt": len(all_ids) - len(clean_ids),
        "nervous": {
            "all": {"refuse": metrics(refuse, labels, all_ids), "review_or_refuse": metrics(review, labels, all_ids)},
            "without_label_doubt": {"refuse": metrics(refuse, labels, clean_ids),
                                    "review_or_refuse": metrics(review, labels, clean_ids)},
        },
        "baseline": {
            "all": {"refuse": metrics(base_refuse, labels, all_ids),
                    "review_or_refuse": metrics(base_review, labels, all_ids)},
            "without_label_doubt": {"refuse": metrics(base_refuse, labels, clean_ids),
                                    "review_or_refuse": metrics(base_review, labels, clean_ids)},
        },
        "side_effect_classes": class_metrics(classes, labels),
        "median_ms": statistics.median(times),
        "p95_ms": sorted(times)[int(0.95 * (len(times) - 1))],
        **cpu_figures(cpu_times),
        "baseline_median_ms": statistics.median(base_times),
        "anchor": ANCHOR,
        "intent_command": list(intent_command or []),
        "intent_verdicts": dict(sorted(verdicts.items())),
    }
    result["leave_one_source_out"] = leave_one_source_out(per_item, labels)
    if loso_wild is not None:
        result["second_stage_loso"] = second_stage_loso(per_item, labels, loso_wild)
    if verbose:
        result["per_item"] = per_item
    return result


def leave_one_source_out(per_item: dict[str, dict[str, Any]], labels: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Per malicious source: recall in sample, and recall counting only rules that also catch another
    source's items (what is left if the source is held out and every rule only it supports is dropped)."""
    sources = sorted({labels[i].get("source") for i in per_item if labels[i]["label"] == "malicious"} - {None})
    out: dict[str, Any] = {}
    for src in sources:
        mine = [i for i in per_item if labels[i]["label"] == "malicious" and labels[i].get("source") == src]
        others = [i for i in per_item if labels[i]["label"] == "malicious" and labels[i].get("source") != src]
        row: dict[str, Any] = {"items": len(mine)}
        for level, key, caught in (("refuse", "refuse_rules", lambda r: r["decision"] == "refuse"),
                                   ("review_or_refuse", "rules", lambda r: r["decision"] != "allow")):
            elsewhere = {rule for i in others if caught(per_item[i]) for rule in per_item[i][key]}
            inside = sum(caught(per_item[i]) for i in mine)
            held = sum(caught(per_item[i]) and bool(set(per_item[i][key]) & elsewhere) for i in mine)
            row[level] = {"in_sample": inside / len(mine), "held_out": held / len(mine),
                          "kept": held / inside if inside else 1.0,
                          "only_this_source": sorted({r for i in mine for r in per_item[i][key]} - elsewhere)}
        out[src] = row
    return out


def second_stage_loso(per_item: dict[str, dict[str, Any]], labels: dict[str, dict[str, Any]],
                      wild_record: Path) -> dict[str, Any]:
    """Leave one source out for the second stage: retrain its weights without each malicious source (the
    wild negatives from a ``scan_decisions.py record`` of the wild sample) and compare that source's recall
    with the shipped model's (benchmarks/train_second_stage.py)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import train_second_stage as trainer
    from nervous_plugins.review_policy.second_stage import MODEL_PATH

    dev = {i: trainer.from_record(r) for i, r in sorted(per_item.items())}
    wild = {i: trainer.from_record(r) for i, r in sorted(json.loads(wild_record.read_text()).items())}
    doc = json.loads(MODEL_PATH.read_text(encoding="utf-8"))
    return trainer.loso(doc, dev, labels, wild, steps=doc["steps"], l2=doc["l2"])


def run_unlabelled(corpus: Path, *, limit: int | None = None, max_seconds: float | None = None,
                   only: Iterable[str] | None = None) -> dict[str, Any]:
    """Refuse and review rates on unlabelled skills, with the rules that fired and per-item evidence.

    ``only``: scan just these item ids (ids missing from the corpus are an error)."""
    from collections import Counter

    from nervous.engines.scan.engine import DEFAULT_LIMITS, ScanLimits, scan_bundle
    from nervous.kernel.config import Config
    from nervous.kernel.manager import PluginManager
    from nervous.kernel.records import ScanContext, SkillBundle, SkillFile, SkillRef

    items = load_items(corpus.read_bytes())
    ids = sorted(items)
    if only is not None:
        wanted = set(only)
        missing = sorted(wanted - set(items))
        if missing:
            raise SystemExit(f"{len(missing)} listed ids are not in the corpus (first: {missing[0]})")
        ids = [i for i in ids if i in wanted]
    ids = ids[:limit] if limit else ids
    pm = PluginManager(Config(), autoload=False)
    limits = ScanLimits(max_seconds=max_seconds) if max_seconds else DEFAULT_LIMITS
    context = ScanContext(purpose="install")
    decisions: Counter[str] = Counter()
    refuse_rules: Counter[str] = Counter()
    review_rules: Counter[str] = Counter()
    second_stage: Counter[str] = Counter()
    times: list[float] = []
    cpu_times: list[float] = []
    per_item: dict[str, dict[str, Any]] = {}
    started = time.perf_counter()
    for item_id in ids:
        bundle = SkillBundle(ref=SkillRef(item_id), files=tuple(SkillFile(p, d) for p, d in sorted(items[item_id])))
        t0 = time.perf_counter()
        report = scan_bundle(pm, bundle, context, limits=limits)
        times.append((time.perf_counter() - t0) * 1000)
        cpu_times.append(report.cpu_ms)
        decisions[report.decision] += 1
        moved = [r for r in report.report["reasons"] if r.startswith("second stage:") and " -> " in r]
        if moved:
            second_stage[moved[0].split("): ", 1)[1].split(";")[0]] += 1
        fired = [f for f in report.findings if f.action in ("refuse", "review")]
        refusing = sorted({f.rule_id for f in fired if f.action == "refuse"})
        reviewing = sorted({f.rule_id for f in fired if f.action == "review"} - set(refusing))
        if report.decision == "refuse":
            refuse_rules.update(refusing)
        elif report.decision == "review":
            review_rules.update(reviewing)
        per_item[item_id] = {
            "decision": report.decision, "ms": round(times[-1], 1), "cpu_ms": round(cpu_times[-1], 1),
            "timed_out": "max_seconds" in (report.report["limits"]["exceeded"] or []),
            "findings": [f"{f.rule_id}:{f.action}:L{f.line or 0}" for f in fired],
        }
    wall = time.perf_counter() - started
    n = len(ids)
    ordered = sorted(times)
    return {
        "items": n, "decisions": dict(decisions),
        "refuse_rate": decisions["refuse"] / n if n else 0.0,
        "review_or_refuse_rate": (decisions["refuse"] + decisions["review"]) / n if n else 0.0,
        "refuse_rules": dict(refuse_rules.most_common()), "review_rules": dict(review_rules.most_common()),
        "second_stage_moves": dict(sorted(second_stage.items())),
        "timed_out": sorted(i for i, r in per_item.items() if r["timed_out"]),
        "wall_seconds": wall, "median_ms": statistics.median(times) if times else 0.0,
        "p95_ms": ordered[int(0.95 * (n - 1))] if n else 0.0, "max_ms": ordered[-1] if n else 0.0,
        **cpu_figures(cpu_times),
        "slowest": sorted(per_item, key=lambda i: -per_item[i]["ms"])[:5],
        "slowest_cpu": sorted(per_item, key=lambda i: -per_item[i]["cpu_ms"])[:5],
        "per_item": per_item,
    }


def cpu_figures(cpu_times: list[float]) -> dict[str, float]:
    """CPU milliseconds per skill (this process and the analysis worker): what the scan costs, whatever
    else runs on the machine, where wall time also counts waiting for a core."""
    ordered = sorted(cpu_times)
    n = len(ordered)
    return {"cpu_median_ms": statistics.median(ordered) if n else 0.0,
            "cpu_p95_ms": ordered[int(0.95 * (n - 1))] if n else 0.0,
            "cpu_max_ms": ordered[-1] if n else 0.0, "cpu_seconds": sum(ordered) / 1000}


def print_unlabelled(r: dict[str, Any], *, per_item: bool = False) -> None:
    print(f"items: {r['items']}  refuse {_pct(r['refuse_rate'])}  review-or-refuse {_pct(r['review_or_refuse_rate'])}"
          f"  ({', '.join(f'{k} {v}' for k, v in sorted(r['decisions'].items()))})")
    print("rules in refused items: " + (", ".join(f"{k} {v}" for k, v in r["refuse_rules"].items()) or "none"))
    print("rules in reviewed items: " + (", ".join(f"{k} {v}" for k, v in r["review_rules"].items()) or "none"))
    print("moved by the second stage: " + (", ".join(f"{k} {v}" for k, v in r["second_stage_moves"].items()) or "none"))
    print(f"stopped at the time limit: {len(r['timed_out'])} {' '.join(r['timed_out'])}")
    print(f"wall {r['wall_seconds']:.1f} s; median {r['median_ms']:.1f} ms, p95 {r['p95_ms']:.1f} ms, "
          f"max {r['max_ms']:.1f} ms per skill (slowest: {' '.join(r['slowest'])})")
    print(f"cpu {r['cpu_seconds']:.1f} s; median {r['cpu_median_ms']:.1f} ms, p95 {r['cpu_p95_ms']:.1f} ms, "
          f"max {r['cpu_max_ms']:.1f} ms per skill (slowest: {' '.join(r['slowest_cpu'])})")
    if per_item:
        print("\nper item: id decision rule:action:line …")
        for i, rec in r["per_item"].items():
            if rec["decision"] != "allow":
                print(f"{i} {rec['decision']:<7} {' '.join(rec['findings'])}")


def _short(source: str) -> str:
    """``MaliciousSkillBench/SRC004 (…)`` -> ``SRC004``."""
    return source.split("/")[-1].split(" ")[0]


def _pct(x: float) -> str:
    return f"{100 * x:5.1f}%"


def _ratio(a: float, b: float) -> str:
    return f"{a / b:5.2f}x" if b else "  n/a"


def print_report(r: dict[str, Any]) -> None:
    print(f"items: {r['items']} ({r['malicious']} malicious, {r['label_doubt']} with label-doubt)")
    for subset in ("all", "without_label_doubt"):
        print(f"\n[{subset.replace('_', ' ')}]")
        print(f"{'decision':<18}{'recall':>8}{'FPR':>8}{'prec.':>8}{'F1':>8}   baseline recall/FPR/F1   "
              "F1 vs baseline")
        for level in ("refuse", "review_or_refuse"):
            m = r["nervous"][subset][level]
            b = r["baseline"][subset][level]
            print(f"{level:<18}{_pct(m['recall'])}{_pct(m['fpr'])}{_pct(m['precision'])}{_pct(m['f1'])}   "
                  f"{_pct(b['recall'])} {_pct(b['fpr'])} {_pct(b['f1'])}   {_ratio(m['f1'], b['f1'])}")
    a = r["anchor"]
    print(f"\nREADME anchor scanner (same corpus): refuse recall {_pct(a['refuse']['recall'])} FPR "
          f"{_pct(a['refuse']['fpr'])} F1 {_pct(a['refuse']['f1'])}; review-or-refuse recall "
          f"{_pct(a['review_or_refuse']['recall'])} FPR {_pct(a['review_or_refuse']['fpr'])}")
    print("\nside-effect classes (labelled items)")
    print(f"{'class':<24}{'precision':>10}{'recall':>9}{'support':>9}")
    for label, m in r["side_effect_classes"].items():
        print(f"{label:<24}{_pct(m['precision']):>10}{_pct(m['recall']):>9}{m['support']:>9}")
    print("\nleave one source out (malicious recall; held out = only rules that also catch another source)")
    print(f"{'source':<10}{'items':>6}{'refuse in/held/kept':>26}{'review+ in/held/kept':>27}  rules only this source")
    for src, row in r["leave_one_source_out"].items():
        a, b = row["refuse"], row["review_or_refuse"]
        print(f"{src:<10}{row['items']:>6}    {_pct(a['in_sample'])} {_pct(a['held_out'])} {_pct(a['kept'])}"
              f"    {_pct(b['in_sample'])} {_pct(b['held_out'])} {_pct(b['kept'])}  "
              f"{','.join(sorted(set(a['only_this_source']) | set(b['only_this_source']))) or '-'}")
    if "second_stage_loso" in r:
        print("\nleave one source out, second stage retrained without the source (same thresholds)")
        print(f"{'source':<10}{'items':>6}{'refuse in/held/kept':>26}{'review+ in/held/kept':>27}")
        for src, row in r["second_stage_loso"].items():
            a, b = row["refuse"], row["review_or_refuse"]
            print(f"{_short(src):<10}{row['items']:>6}    {_pct(a['in_sample'])} {_pct(a['held_out'])} {_pct(a['kept'])}"
                  f"    {_pct(b['in_sample'])} {_pct(b['held_out'])} {_pct(b['kept'])}")
    if r["intent_command"]:
        counts = ", ".join(f"{k} {v}" for k, v in r["intent_verdicts"].items()) or "none"
        print(f"\nintent judge: {' '.join(r['intent_command'])} (verdicts: {counts}; abstained "
              f"{r['items'] - sum(r['intent_verdicts'].values())}); times below include it")
    print(f"\nmedian {r['median_ms']:.2f} ms per skill (p95 {r['p95_ms']:.2f} ms); baseline median "
          f"{r['baseline_median_ms']:.3f} ms")
    print(f"cpu median {r['cpu_median_ms']:.2f} ms per skill (p95 {r['cpu_p95_ms']:.2f} ms, max "
          f"{r['cpu_max_ms']:.1f} ms, {r['cpu_seconds']:.1f} s in all)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", required=True, type=Path, help="tar(.gz) of items/<id>/… (read in memory)")
    ap.add_argument("--labels", type=Path, help="labels.jsonl (required unless --unlabelled)")
    ap.add_argument("--unlabelled", action="store_true",
                    help="no labels: refuse and review rates, the rules behind them, timings")
    ap.add_argument("--limit", type=int, help="only the first N items (by id), for a bounded run")
    ap.add_argument("--ids", type=Path, metavar="FILE",
                    help="only the item ids listed in FILE (one a line; the first word of each line, so "
                         "--per-item output can be fed back)")
    ap.add_argument("--max-seconds", type=float, help="scan time limit per skill (default: the spec's)")
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    ap.add_argument("--per-item", action="store_true",
                    help="also print item ids with decision and rule ids (never content)")
    ap.add_argument("--intent-command", metavar="CMD",
                    help="also ask this intent judge program about every item (a command line; the protocol is "
                         "in docs/security.md); without it the figures are the static rules alone")
    ap.add_argument("--loso-wild", type=Path, metavar="RECORD",
                    help="also retrain the second stage with each malicious source held out, with the wild "
                         "negatives from this benchmarks/scan_decisions.py record of the wild sample")
    args = ap.parse_args(argv)
    import shlex

    if args.unlabelled:
        result = run_unlabelled(args.corpus, limit=args.limit, max_seconds=args.max_seconds,
                                only=read_ids(args.ids))
        if args.json:
            if not args.per_item:
                result.pop("per_item")
            print(json.dumps(result, indent=2))
        else:
            print_unlabelled(result, per_item=args.per_item)
        return 0
    if args.labels is None:
        ap.error("--labels is required (or --unlabelled)")
    command = shlex.split(args.intent_command) if args.intent_command else None
    result = run(args.corpus, args.labels, verbose=args.per_item, intent_command=command, only=read_ids(args.ids),
                 loso_wild=args.loso_wild)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print_report(result)
    if args.per_item:
        print("\nper item: id label decision refuse-rules | review-rules")
        for i, rec in result["per_item"].items():
            print(f"{i} {rec['label']:<9} {rec['decision']:<7} {','.join(rec['refuse_rules'])} | "
                  f"{','.join(r for r in rec['rules'] if r not in rec['refuse_rules'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
