"""Long-input benchmark: perception time against task length, and the MCP server's memory on a huge request.

Perception (entity filtering and signal extraction) must be linear in the task text: the figure is
the time per 1,000 characters at each length, and its ratio to the 2,000-character time measured in
the same run (linear stays near 1.0; the former quadratic filter grew with the length). The
baseline measured in the same run is the direct reading of the F5 rule (every proposed word
checked against every token), run only at the shorter lengths because it is quadratic.

Texts: natural prose (the dev split's task sentences joined, ``--tasks``), one repeated phrase
("count words …", the case that ran for minutes), all-capitals text, and unique capitalised words.
Also: a full ``Cortex.perceive`` at 20,000 characters (the cap), and the MCP server's peak memory
after a 10 MiB request against a small one.

    python benchmarks/long_input.py --tasks ../shared/data/perception/dev.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import string
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

LENGTHS = (2_000, 5_000, 10_000, 20_000)
REFERENCE_LENGTHS = (2_000, 5_000)


def texts(tasks_file: Path | None) -> dict[str, str]:
    rng = random.Random(7)
    if tasks_file is not None and tasks_file.exists():
        rows = [json.loads(line) for line in tasks_file.read_text(encoding="utf-8").splitlines() if line.strip()]
        sentences = [r["task"] for r in rows if isinstance(r.get("task"), str)]
    else:
        sentences = ["Convert the PDF report into text and send it to Alice before Monday."]
    prose = " ".join(rng.choice(sentences) for _ in range(2_000))

    def word() -> str:
        return "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(3, 9)))

    return {
        "prose": prose,
        "repeated phrase": "count words " * 5_000,
        "all capitals": " ".join(word().upper() for _ in range(6_000)),
        "unique Capitalised": " ".join(word().capitalize() for _ in range(6_000)),
    }


def best_of(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


def reference_filter(text: str) -> None:
    """The direct reading of spec §5 (quadratic): every word's F5 check scans every token."""
    from nervous.engines.cortex.entities import TaskText, stem_equal

    task = TaskText(text)
    for word in (t.lower for t in task.plain):
        for tok in task.plain:
            if stem_equal(tok.lower, word) and tok.text[:1].isupper() and not tok.sentence_start:
                break
        for compound in task.compounds:
            if word in compound:
                break


def perception(args: argparse.Namespace) -> None:
    from nervous.engines.cortex.entities import extract_signals

    extract_signals("warm the word lists up", 5)
    print(f"{'text':20} {'chars':>7} {'ms':>8} {'ms/1k chars':>12} {'vs 2k':>7} {'direct F5 ms':>13}")
    for name, full in texts(args.tasks).items():
        base = None
        for n in LENGTHS:
            text = full[:n]
            t = best_of(lambda text=text: extract_signals(text, 5), args.runs)
            per_k = t * 1000 / (n / 1000)
            base = base or per_k
            ref = ""
            if n in REFERENCE_LENGTHS:
                ref = f"{best_of(lambda text=text: reference_filter(text), 1) * 1000:13.1f}"
            print(f"{name:20} {n:7d} {t * 1000:8.2f} {per_k:12.3f} {per_k / base:6.2f}x {ref}")


def full_perceive(args: argparse.Namespace) -> None:
    from nervous import Nervous

    with tempfile.TemporaryDirectory() as tmp, Nervous(home=Path(tmp) / "home", autoload=False) as nv:
        for i in range(20):
            nv.cortex.record_outcome(f"region{i}", f"skill{i}", "success", task=f"convert pdf report {i} to text")
        for name, full in texts(args.tasks).items():
            text = full[:20_000]
            nv.perceive(text)  # word lists and caches warm, as in a long-running host
            samples, cpu = [], []
            for _ in range(args.runs):
                c0, t0 = time.process_time(), time.perf_counter()
                nv.perceive(text)
                samples.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)
            print(f"full perceive, {name:20} 20,000 chars: median {statistics.median(samples) * 1000:7.2f} ms, "
                  f"CPU median {statistics.median(cpu) * 1000:7.2f} ms (target <= 50 ms of CPU)")


def mcp_memory() -> None:
    def peak(request_bytes: int) -> int:
        env = {k: v for k, v in os.environ.items() if not k.startswith("NERVOUS_")}
        with tempfile.TemporaryDirectory() as tmp:
            env.update(NERVOUS_HOME=tmp, NERVOUS_DISABLE_PLUGIN_AUTOLOAD="1", NERVOUS_REGISTRIES="local")
            proc = subprocess.Popen([sys.executable, "-m", "nervous", "mcp"], stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=tmp)
            assert proc.stdin is not None and proc.stdout is not None

            def send(msg: dict[str, object]) -> None:
                proc.stdin.write(json.dumps(msg).encode() + b"\n")  # type: ignore[union-attr]
                proc.stdin.flush()  # type: ignore[union-attr]

            send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "b", "version": "1"}}})
            proc.stdout.readline()
            send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                  "params": {"name": "perceive", "arguments": {"task": "x" * request_bytes}}})
            proc.stdout.readline()
            with open(f"/proc/{proc.pid}/status") as fh:
                kb = next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:"))
            proc.stdin.close()
            proc.wait(timeout=30)
            proc.stdout.close()
            return kb

    small, huge = peak(100), peak(10 << 20)
    print(f"MCP server peak memory: 100-byte request {small / 1024:.1f} MB, 10 MiB request {huge / 1024:.1f} MB "
          f"({huge / small:.2f}x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=Path, default=None, help="a JSON-lines file with 'task' fields")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs")
    perception(args)
    full_perceive(args)
    mcp_memory()


if __name__ == "__main__":
    main()
