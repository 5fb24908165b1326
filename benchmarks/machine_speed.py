"""How fast this machine runs Python right now: a fixed workload's CPU time, to read other figures against.

    python benchmarks/machine_speed.py            # prints {"reference_cpu_ms": …, "runs": [...]}

The machines these benchmarks run on are shared: the same code's scan figures move by half from one hour
to the next while the code stands still. A figure in milliseconds is only comparable with another taken at
the same machine speed, so the benchmarks that print milliseconds also time this workload in the same run
and print their figures over it too. The workload never changes and uses the standard library only (so a
change to nervous cannot move it): parsing Python source, regular expressions over text lines, string,
list, dict and set work, in about the proportions a scan spends on them. Its minimum over fifteen runs
(about half a second) is the reference (the minimum is what the machine can do; the other runs only add noise).
"""

from __future__ import annotations

import ast
import gc
import json
import random
import re
import sys
import time

_WORDS = ("install", "the", "skill", "curl", "token", "read", "file", "agent", "request", "config", "data",
          "user", "http", "json", "output", "command", "path", "write", "send", "value", "list", "run")
_EXPRS = [re.compile(p) for p in (r"(?i)\b(?:curl|wget)\b[^|]*\|\s*(?:ba)?sh\b", r"\$\{?([A-Z][A-Z0-9_]+)",
                                  r"(?i)\b(?:token|secret|password)s?\b", r"https?://[^\s)]+", r"`([^`\n]+)`")]


def _corpus(seed: int = 7) -> tuple[str, list[str]]:
    """A Python module and prose lines, the same on every machine and run."""
    rnd = random.Random(seed)
    funcs = []
    for n in range(60):
        body = "\n".join(f"    x{k} = {{'{rnd.choice(_WORDS)}': [{k}, {n}, '{rnd.choice(_WORDS)}']}}"
                         for k in range(12))
        funcs.append(f"def f{n}(a, b={n}):\n{body}\n    return sorted(x0) + [a, b]\n")
    lines = [" ".join(rnd.choice(_WORDS) for _ in range(rnd.randint(4, 18))) for _ in range(3000)]
    return "\n".join(funcs), lines


def _workload(source: str, lines: list[str]) -> int:
    """The work itself, with the cyclic collector paused: what the calling process holds (a benchmark's
    corpus and results) would otherwise make the collections the workload triggers slower as it grows."""
    paused = gc.isenabled()
    gc.disable()
    try:
        return _work(source, lines)
    finally:
        if paused:
            gc.enable()


def _work(source: str, lines: list[str]) -> int:
    tree = ast.parse(source)
    count = sum(isinstance(node, ast.Constant) for node in ast.walk(tree))
    seen: dict[str, int] = {}
    for line in lines:
        low = line.lower()
        for expr in _EXPRS:
            if expr.search(line):
                count += 1
        for word in low.split():
            seen[word] = seen.get(word, 0) + 1
        count += len({w[:3] for w in low.split()})
    return count + len(seen)


class Sampler:
    """The workload run now and then during a long benchmark: the machine's speed over the whole run.

    One reading before and one after say little when the machine's speed moves within minutes; a run of
    the workload every hundred items (about 30 ms each) follows it, and their median is the run's speed."""

    def __init__(self) -> None:
        self._source, self._lines = _corpus()
        _workload(self._source, self._lines)  # warm: regular expressions compiled, allocator primed
        self.samples: list[float] = []

    def sample(self) -> None:
        c0 = time.process_time()
        _workload(self._source, self._lines)
        self.samples.append(round((time.process_time() - c0) * 1000, 2))

    def median(self) -> float:
        xs = sorted(self.samples)
        return xs[len(xs) // 2] if xs else 0.0


def reference_cpu_ms(runs: int = 15) -> tuple[float, list[float]]:
    """The workload's least CPU time over ``runs`` runs, in milliseconds, and every run's time."""
    sampler = Sampler()
    for _ in range(runs):
        sampler.sample()
    return min(sampler.samples), sampler.samples


def main() -> int:
    best, runs = reference_cpu_ms()
    print(json.dumps({"reference_cpu_ms": best, "runs": runs}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
