"""Record every scan decision of a corpus, and compare two records item by item.

    python benchmarks/scan_decisions.py record --corpus ../shared/data/security/wild/wild.tar.gz --out wild.json
    python benchmarks/scan_decisions.py compare before.json after.json
    python benchmarks/scan_decisions.py classify --corpus … --ids ids.txt --out cpu.json
    python benchmarks/scan_decisions.py band wild.json --from 0.90 --to 0.99 --every 3 --out band.txt
    python benchmarks/scan_decisions.py record --corpus … --ids band.txt --out band.json
    python benchmarks/scan_decisions.py pair --other ../before --corpus ../shared/data/security/wild/wild.tar.gz
    python benchmarks/scan_decisions.py pair --processes --other ../before --corpus …
    python benchmarks/scan_decisions.py pair --processes --this site --other . --corpus …   # a wheel against the source
    PYTHONPATH=../old/plugins:../old python benchmarks/scan_decisions.py record --corpus … --limit 300 --out old.json

A change to the scan machinery (speed, bounds) must not change what the scan decides. ``record``
scans each item of a ``items/<id>/…`` archive (read in memory, never extracted or executed) and
writes, per item: the decision, every finding as rule id, action, line and column with a digest of
its file name, the side-effect classes, tags and flags, and a digest of the whole report (findings
with their snippets and evidence, reasons, risk); plus wall and CPU milliseconds. ``compare``
prints how many items changed and, for each changed item, its id and the rule ids that differ —
never content (the archives are hostile text).

``pair`` times two versions of the review policy in one process, item by item: the other checkout's
``review_policy`` package is copied beside this one under another name, and each item is classified by
both in turn (which goes first alternates), so that the load of the machine, which moves whole-sample
records by a third from one run to the next, falls on both alike. The figure is this code's CPU over the
other's (the same code against itself reads 1.00 ± 0.02), with each side's p50 and p95. With ``--processes``
each version runs as a whole installation in a process of its own (the kernel's SKILL.md reader and the report
included, which the in-process pair shares between the two sides), the items handed to the two in turn.

``record`` also times a fixed standard-library workload (``machine_speed.py``) before the first item,
after every hundredth and after the last, and prints the CPU percentiles over its median beside the
milliseconds: on a shared machine the milliseconds of the same code move by half from one hour to the next.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from machine_speed import Sampler  # noqa: E402
from security import load_items, read_ids  # noqa: E402


def _digest(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _scan_api() -> tuple[Any, ...]:
    """``scan_bundle`` and the records it takes, from the nervous first on the path: this layout, or the one
    before the kernel and engines were regrouped (so that ``PYTHONPATH=<older checkout>/plugins:<older
    checkout>`` records an older version, such as the one an issue's figures were measured on)."""
    import importlib
    import importlib.util

    # (this layout's names are the only ones the project imports; the older tree's are looked up by name)
    new = importlib.util.find_spec("nervous.engines") is not None
    engine, config, manager, records = (
        ("nervous.engines.scan.engine", "nervous.kernel.config", "nervous.kernel.manager", "nervous.kernel.records")
        if new else tuple("nervous." + m for m in ("scan", "config", "manager", "records")))
    rec = importlib.import_module(records)
    return (importlib.import_module(engine).scan_bundle, importlib.import_module(config).Config,
            importlib.import_module(manager).PluginManager, rec.ScanContext, rec.SkillBundle, rec.SkillFile,
            rec.SkillRef)


def _scanner(corpus: Path, *, warm: bool) -> tuple[list[str], Callable[[str], tuple[Any, float, float]]]:
    """The corpus's item ids, sorted, and a function scanning one item through ``scan_bundle`` that returns the
    report, its wall and its CPU milliseconds (the analysis worker's CPU included, where reported). With
    ``warm``, one unrecorded scan first, so that the first item does not pay the analysis worker's start."""
    scan_bundle, Config, PluginManager, ScanContext, SkillBundle, SkillFile, SkillRef = _scan_api()
    items = load_items(corpus.read_bytes())
    pm = PluginManager(Config(), autoload=False)
    context = ScanContext(purpose="install")
    if warm:
        scan_bundle(pm, SkillBundle(ref=SkillRef("warm-up"), files=(SkillFile("SKILL.md", b"# warm-up\n"),)), context)

    def scan(item_id: str) -> tuple[Any, float, float]:
        bundle = SkillBundle(ref=SkillRef(item_id), files=tuple(SkillFile(p, d) for p, d in sorted(items[item_id])))
        t0, c0 = time.perf_counter(), time.process_time()
        report = scan_bundle(pm, bundle, context)
        wall, cpu = (time.perf_counter() - t0) * 1000, (time.process_time() - c0) * 1000
        return report, wall, getattr(report, "cpu_ms", cpu)

    return sorted(items), scan


def record(corpus: Path, *, limit: int | None = None, ids: list[str] | None = None,
           sampler: Sampler | None = None) -> dict[str, Any]:
    """Every item's decision and findings; with ``ids``, those items only, after one unrecorded warm-up
    scan (so that the first of a short list does not pay the analysis worker's start). With ``sampler``,
    the machine's speed is sampled before the first item and after every hundredth (outside the timings)."""
    every, scan = _scanner(corpus, warm=ids is not None)
    if ids is None:
        ids = every[:limit] if limit else every
    out: dict[str, Any] = {}
    for n, item_id in enumerate(ids):
        if sampler is not None and n % 100 == 0:
            sampler.sample()
        report, wall, cpu = scan(item_id)
        rep = report.report
        stable = {k: rep[k] for k in ("capabilities", "findings", "decision", "reasons", "intent")}
        out[item_id] = {
            "decision": report.decision,
            "findings": sorted(f"{f['rule_id']}:{f['action']}:L{f['line'] or 0}:C{f['column'] or 0}:"
                               f"{_digest(f['file'])[:8]}" for f in rep["findings"]),
            "classes": rep["capabilities"]["classes"],
            "tags": sorted(rep["capabilities"]["tags"]),
            "flags": sorted(rep["capabilities"]["flags"]),
            "report_digest": _digest(stable),
            "ms": round(wall, 2), "cpu_ms": round(cpu, 2),
        }
    return out


def classify_cpu(corpus: Path, ids: list[str] | None = None) -> dict[str, float]:
    """CPU milliseconds of classification alone per item, in this process (no worker, no report)."""
    from nervous.kernel.config import Config
    from nervous.kernel.manager import PluginManager
    from nervous.kernel.records import ScanContext, SkillBundle, SkillFile, SkillRef

    items = load_items(corpus.read_bytes())
    pm = PluginManager(Config(), autoload=False)
    context = ScanContext(purpose="install")
    pm.classify(SkillBundle(ref=SkillRef("warm-up"), files=(SkillFile("SKILL.md", b"# warm-up\n"),)), context)
    out: dict[str, float] = {}
    for item_id in ids or sorted(items):
        bundle = SkillBundle(ref=SkillRef(item_id), files=tuple(SkillFile(p, d) for p, d in sorted(items[item_id])))
        c0 = time.process_time()
        pm.classify(bundle, context)
        out[item_id] = round((time.process_time() - c0) * 1000, 2)
    return out


def compare(before: dict[str, Any], after: dict[str, Any]) -> int:
    changed = 0
    for item_id in sorted(set(before) | set(after)):
        a, b = before.get(item_id), after.get(item_id)
        if a is None or b is None:
            print(f"{item_id}: only in {'after' if a is None else 'before'}")
            changed += 1
            continue
        diffs = [k for k in ("decision", "findings", "classes", "tags", "flags", "report_digest") if a[k] != b[k]]
        if diffs:
            changed += 1
            rules_a = {f.split(":")[0] for f in a["findings"]}
            rules_b = {f.split(":")[0] for f in b["findings"]}
            print(f"{item_id}: {a['decision']} -> {b['decision']}; differs in {', '.join(diffs)}; rules "
                  f"-{sorted(rules_a - rules_b)} +{sorted(rules_b - rules_a)}")
    decisions = sum(before[i]["decision"] != after[i]["decision"] for i in set(before) & set(after))
    print(f"{len(set(before) | set(after))} items: {changed} changed in any recorded field, "
          f"{decisions} decisions changed")
    return 1 if changed else 0


def summary(rec: dict[str, Any]) -> dict[str, float]:
    def pct(xs: list[float], q: float) -> float:
        xs = sorted(xs)
        return xs[int(q * (len(xs) - 1))] if xs else 0.0

    ms = [r["ms"] for r in rec.values()]
    cpu = [r["cpu_ms"] for r in rec.values()]
    return {"items": len(rec), "wall_total_s": round(sum(ms) / 1000, 1), "cpu_total_s": round(sum(cpu) / 1000, 1),
            "p50_ms": pct(ms, 0.5), "p95_ms": pct(ms, 0.95), "max_ms": max(ms, default=0.0),
            "cpu_p50_ms": pct(cpu, 0.5), "cpu_p95_ms": pct(cpu, 0.95), "cpu_max_ms": max(cpu, default=0.0),
            "slowest_cpu": sorted(rec, key=lambda i: -rec[i]["cpu_ms"])[:8]}


def band(rec: dict[str, Any], lo: float, hi: float, every: int = 1) -> list[str]:
    """Ids of the items between two quantiles of a record by CPU (the p95 band: 0.90 to 0.99), every n-th."""
    ids = sorted(rec, key=lambda i: rec[i]["cpu_ms"])
    return ids[int(lo * len(ids)):int(hi * len(ids))][::every]


def pair_cpu(other: Path, corpus: Path, ids: list[str] | None = None) -> dict[str, Any]:
    """CPU of classification per item by this code and by ``other`` (a checkout), alternated in one process."""
    import importlib
    import shutil
    import tempfile

    from nervous.kernel.records import ScanContext, SkillBundle, SkillFile, SkillRef

    source = other / "plugins" / "nervous_plugins" / "review_policy"
    if not (source / "classifier.py").is_file():
        raise SystemExit(f"pair: {other} holds no plugins/nervous_plugins/review_policy/classifier.py")
    items = _pair_items(corpus, ids)
    context = ScanContext(purpose="install")
    warm = SkillBundle(ref=SkillRef("warm-up"), files=(SkillFile("SKILL.md", "# warm-up \u2713\n".encode()),))
    cpu: dict[str, dict[str, float]] = {"this": {}, "other": {}}
    with tempfile.TemporaryDirectory() as tmp:  # the copy stays importable while it runs (detectors load lazily)
        shutil.copytree(source, Path(tmp) / "review_policy_other")
        sys.path.insert(0, tmp)
        try:
            sides = {"other": importlib.import_module("review_policy_other.classifier").Classifier(),
                     "this": importlib.import_module("nervous_plugins.review_policy.classifier").Classifier()}
            for classifier in sides.values():
                classifier.classify(warm, context)
            for n, item_id in enumerate(ids or sorted(items)):
                files = tuple(SkillFile(p, d) for p, d in sorted(items[item_id]))
                bundle = SkillBundle(ref=SkillRef(item_id), files=files)
                for side in ("this", "other") if n % 2 == 0 else ("other", "this"):
                    c0 = time.process_time()
                    sides[side].classify(bundle, context)
                    cpu[side][item_id] = (time.process_time() - c0) * 1000
        finally:
            sys.path.remove(tmp)
            for name in [m for m in sys.modules if m.partition(".")[0] == "review_policy_other"]:
                del sys.modules[name]

    return _pair_figures(cpu)


def serve(corpus: Path) -> int:
    """Scan the items whose ids arrive one a line on stdin, answering each with its CPU milliseconds (the whole
    scan: the analysis worker's and this process's), for :func:`pair_processes`."""
    _ids, scan = _scanner(corpus, warm=True)
    print("ready", flush=True)
    for line in sys.stdin:
        print(scan(line.strip())[2], flush=True)
    return 0


def pair_processes(other: Path, corpus: Path, ids: list[str] | None = None, this: Path | None = None) -> dict[str, Any]:
    """As :func:`pair_cpu`, but each version is a whole installation in its own process (``PYTHONPATH=<checkout>/
    plugins:<checkout>``, or an unpacked wheel's folder), kernel and report included: the two processes are
    handed the items in turn. ``this`` is this checkout unless given (an unpacked wheel, say)."""
    import os
    import subprocess

    this = (this or Path(__file__).resolve().parent.parent).resolve()
    for root in (this, other):
        if not (root / "nervous").is_dir():
            raise SystemExit(f"pair: {root} holds no nervous/ package")
    every = _pair_items(corpus, ids)
    items = ids if ids is not None else sorted(every)
    procs: dict[str, Any] = {}
    for side, root in (("this", this), ("other", other.resolve())):
        # a checkout (its built-in plugins under plugins/), or an unpacked wheel (everything at its top)
        path = f"{root / 'plugins'}{os.pathsep}{root}" if (root / "plugins").is_dir() else str(root)
        env = dict(os.environ, PYTHONPATH=path)
        procs[side] = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "serve", "--corpus", str(corpus)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd=root)
    try:
        for proc in procs.values():
            if proc.stdout.readline().strip() != "ready":
                raise SystemExit("pair: a scanning process did not start")
        cpu: dict[str, dict[str, float]] = {"this": {}, "other": {}}
        for n, item_id in enumerate(items):
            for side in ("this", "other") if n % 2 == 0 else ("other", "this"):
                procs[side].stdin.write(item_id + "\n")
                procs[side].stdin.flush()
                cpu[side][item_id] = float(procs[side].stdout.readline())
    finally:
        for proc in procs.values():
            proc.stdin.close()
            proc.wait()
            proc.stdout.close()
    return _pair_figures(cpu)


def _pair_items(corpus: Path, ids: list[str] | None) -> dict[str, Any]:
    """The corpus's items, once ``corpus`` is a file holding every one of ``ids``."""
    if not corpus.is_file():
        raise SystemExit(f"pair: --corpus {corpus}: no such file")
    items = load_items(corpus.read_bytes())
    unknown = [i for i in ids or () if i not in items]
    if unknown:
        raise SystemExit(f"pair: {len(unknown)} ids not in {corpus}, first {unknown[0]!r}")
    return items


def _pair_figures(cpu: dict[str, dict[str, float]]) -> dict[str, Any]:
    def pct(xs: list[float], q: float) -> float:
        return round(sorted(xs)[min(len(xs) - 1, int(q * len(xs)))], 2)

    out: dict[str, Any] = {"items": len(cpu["this"]),
                           "ratio": round(sum(cpu["this"].values()) / max(sum(cpu["other"].values()), 1e-9), 3)}
    for side, per in cpu.items():
        out[side] = {"cpu_total_s": round(sum(per.values()) / 1000, 1), "cpu_p50_ms": pct(list(per.values()), 0.5),
                     "cpu_p95_ms": pct(list(per.values()), 0.95)}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record", help="scan a corpus and write every item's decision and findings")
    r.add_argument("--corpus", required=True, type=Path)
    r.add_argument("--out", required=True, type=Path)
    r.add_argument("--limit", type=int)
    r.add_argument("--ids", type=Path, help="file of item ids (as classify --ids); a warm-up scan runs first")
    c = sub.add_parser("compare", help="compare two records item by item")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    k = sub.add_parser("classify", help="CPU time of classification alone per item, in this process (run it "
                                         "with PYTHONPATH=<other checkout>/plugins to time another version)")
    k.add_argument("--corpus", required=True, type=Path)
    k.add_argument("--ids", type=Path, help="file of item ids, as security.py --ids reads it (first word a line, # comments); default: every item")
    k.add_argument("--out", required=True, type=Path)
    q = sub.add_parser("pair", help="CPU of this code over another checkout's, items alternated in one process")
    q.add_argument("--other", required=True, type=Path, help="the other checkout (its plugins/ is read)")
    q.add_argument("--corpus", required=True, type=Path)
    q.add_argument("--ids", type=Path, help="file of item ids (as classify --ids); default: every item")
    q.add_argument("--processes", action="store_true", help="each version a whole installation in its own "
                                                             "process (kernel and report included)")
    q.add_argument("--this", type=Path, help="with --processes: this side's installation, a checkout or an "
                                             "unpacked wheel (default: this checkout)")
    v = sub.add_parser("serve", help="(for pair --processes) scan the ids read from stdin, print each one's CPU ms")
    v.add_argument("--corpus", required=True, type=Path)
    s = sub.add_parser("summary", help="timing summary of a record")
    s.add_argument("record", type=Path)
    b = sub.add_parser("band", help="ids of a record's items between two CPU quantiles")
    b.add_argument("record", type=Path)
    b.add_argument("--from", dest="lo", type=float, default=0.90)
    b.add_argument("--to", dest="hi", type=float, default=0.99)
    b.add_argument("--every", type=int, default=1)
    b.add_argument("--out", required=True, type=Path)
    args = ap.parse_args(argv)
    if args.cmd == "band":
        ids = band(json.loads(args.record.read_text()), args.lo, args.hi, args.every)
        args.out.write_text("".join(f"{i}\n" for i in ids))
        print(len(ids))
        return 0
    if args.cmd == "record":
        sampler = Sampler()
        rec = record(args.corpus, limit=args.limit, ids=read_ids(args.ids), sampler=sampler)
        sampler.sample()
        args.out.write_text(json.dumps(rec, indent=1, sort_keys=True))
        figures: dict[str, Any] = summary(rec)
        reference = sampler.median()
        figures.update(reference_cpu_ms=reference, reference_range_ms=[min(sampler.samples), max(sampler.samples)],
                       cpu_p50_per_reference=round(figures["cpu_p50_ms"] / reference, 3),
                       cpu_p95_per_reference=round(figures["cpu_p95_ms"] / reference, 3))
        print(json.dumps(figures))
        return 0
    if args.cmd == "classify":
        cpu = classify_cpu(args.corpus, read_ids(args.ids))
        args.out.write_text(json.dumps(cpu, indent=1, sort_keys=True))
        print(json.dumps(summary({i: {"ms": v, "cpu_ms": v} for i, v in cpu.items()})))
        return 0
    if args.cmd == "serve":
        return serve(args.corpus)
    if args.cmd == "pair":
        if args.processes:
            print(json.dumps(pair_processes(args.other, args.corpus, read_ids(args.ids), args.this)))
        else:
            print(json.dumps(pair_cpu(args.other, args.corpus, read_ids(args.ids))))
        return 0
    if args.cmd == "compare":
        return compare(json.loads(args.before.read_text()), json.loads(args.after.read_text()))
    print(json.dumps(summary(json.loads(args.record.read_text()))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
