"""How much reflex coverage *any* confident rule can have where candidates are close (issue: decision quality).

    python benchmarks/reflex_bound.py [--seeds 200] [--first-seed 100] [--days 180] [--jobs N] [--json]

The learning benchmark (``benchmarks/learning.py``) asks a reflex rule for two things at once in every
scenario: at most 5 % of its reflex picks may be a candidate that is not the best, and it must fire on
at least as many tasks as the ``seed`` policy. In ``stationary-close`` the best and second-best
candidates of a region differ by at most 0.05 in success probability, and the busiest of 20 Zipf
regions sees about 0.8 tasks a day.

This program bounds what any rule could do there, with information no real policy has. It builds the
same worlds (``learning.build_world``, same seeds) and lets an *omniscient observer* see the outcome
of **every** candidate on **every** earlier task of the region (a real host tries one candidate per
task, so it sees a fraction of this). Before each task the observer fires a reflex on the empirical
best when its Wilson lower bound clears every rival's Wilson upper bound at ``z``, for a range of
``z``; it is wrong when that candidate is not the true best. For each ``z`` it prints the coverage
(reflex tasks over all tasks, mean over seeds, as ``learning.py`` counts it) and the wrong-reflex
rate, and, for comparison, the ``seed`` policy's coverage on the same worlds through the real cortex
engine (``learning.simulate``).

A second observer sees the same outcomes and also knows how the benchmark draws success rates (Beta(1, 1)
for each candidate, kept only when the best two are within 0.05): it computes the exact posterior
probability that each candidate is the best (rejection sampling of ``--samples`` posterior draws,
numpy) and fires on the most probable one when that probability reaches ``τ``. Firing on the
tasks where the posterior is highest is the most coverage any rule can buy for a given expected number
of wrong picks, so its frontier bounds every rule, the shipped ones included.

If neither observer has a threshold giving both ``wrong ≤ 5 %`` and ``coverage ≥ seed's``, no rule that
sees less can: the two targets then conflict in close regions on that horizon (over 180 days they do;
over 365 the Bayesian observer just reaches both, see docs/benchmarks/learning.md).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import learning  # noqa: E402  (the benchmark whose worlds are bounded here)
from nervous_plugins.ranking import wilson_bounds  # noqa: E402

ZS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.28, 1.645, 1.96, 2.33)
TAUS = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.975, 0.99)
GAP = 0.05  # learning._draw_ps: the best two candidates of a close region differ by at most this


def tally(world: learning.World, levels: tuple[float, ...],
          decide: Callable[[list[int], int], dict[float, int]]) -> dict[float, tuple[int, int, int]]:
    """Per threshold: (tasks, reflex tasks, wrong reflex tasks) of a full-information observer.

    Before each task of a region the observer knows ``wins``, every candidate's successes on every earlier
    task (``runs`` of them); ``decide(wins, runs)`` names, per threshold, the candidate it would fire a
    reflex on (thresholds it would not fire at are left out). A pick is wrong when it is not the best."""
    out = {level: [0, 0, 0] for level in levels}
    for region in world.regions:
        ps = [s.p for s in region.skills]
        best = max(range(len(ps)), key=lambda i: ps[i])
        wins = [0] * len(ps)
        for k, draws in enumerate(region.draws):
            picks = decide(wins, k) if k else {}
            for level in levels:
                out[level][0] += 1
                if level in picks:
                    out[level][1] += 1
                    out[level][2] += picks[level] != best
            for i, (u, _f, _o) in enumerate(draws):
                wins[i] += u < ps[i]
    return {level: (t, r, w) for level, (t, r, w) in out.items()}


def observer(world: learning.World) -> dict[float, tuple[int, int, int]]:
    """The interval observer: fires on the empirical best when its Wilson lower bound clears every rival's
    upper bound at ``z`` (``seed-confident``'s bounds, :func:`wilson_bounds`)."""

    def decide(wins: list[int], runs: int) -> dict[float, int]:
        top = max(range(len(wins)), key=lambda i: (wins[i], -i))
        picks = {}
        for z in ZS:
            low = wilson_bounds(wins[top], runs - wins[top], z)[0]
            if all(low > wilson_bounds(w, runs - w, z)[1] for i, w in enumerate(wins) if i != top):
                picks[z] = top
        return picks

    return tally(world, ZS, decide)


def best_probabilities(rng: Any, wins: Any, runs: int, samples: int) -> Any:
    """P(each candidate is the best | every candidate's ``wins`` in ``runs``) under the close regions' prior.

    The prior is uniform on the success rates restricted to "the best two within :data:`GAP`", so the
    posterior is independent Beta(1 + wins, 1 + losses) draws restricted the same way: exact rejection
    sampling. Evidence the prior rules out (no draw kept) gives every candidate the same probability,
    so the observer never fires on it.
    """
    import numpy as np

    a, b = 1 + wins, 1 + (runs - wins)
    kept, tries = [], 0
    while sum(len(k) for k in kept) < samples and tries < 20:
        draw = rng.beta(a, b, size=(samples, len(wins)))
        top2 = np.sort(draw, axis=1)[:, -2:]
        kept.append(draw[top2[:, 1] - top2[:, 0] <= GAP])
        tries += 1
    rows = np.concatenate(kept)
    if not len(rows):
        return np.full(len(wins), 1 / len(wins))
    return np.bincount(rows.argmax(axis=1), minlength=len(wins)) / len(rows)


def bayes_observer(world: learning.World, samples: int) -> dict[float, tuple[int, int, int]]:
    """The Bayesian observer: fires on the most probable best candidate when that probability reaches ``τ``."""
    import numpy as np

    rng = np.random.default_rng(world.seed)

    def decide(wins: list[int], runs: int) -> dict[float, int]:
        prob = best_probabilities(rng, np.array(wins, dtype=float), runs, samples)
        pick = int(prob.argmax())
        return {tau: pick for tau in TAUS if prob[pick] >= tau}

    return tally(world, TAUS, decide)


def job(args: tuple[int, int, int, float, int]) -> dict[str, Any]:
    seed, regions, days, rate, samples = args
    world = learning.build_world("stationary-close", seed, regions, days, rate)
    seed_run = learning.simulate(world, "seed")
    return {"seed": seed, "observer": observer(world), "bayes": bayes_observer(world, samples) if samples else {},
            "seed_coverage": seed_run["coverage"], "seed_wrong": seed_run["wrong_reflex"]}


def frontier(runs: list[dict[str, Any]], key: str, levels: tuple[float, ...], seed_cov: float) -> list[dict[str, Any]]:
    """Coverage (mean over seeds) and wrong-reflex rate (pooled) of one observer at each threshold."""
    rows = []
    for level in levels:
        cov = statistics.fmean(r[key][level][1] / r[key][level][0] for r in runs)
        fired = sum(r[key][level][1] for r in runs)
        wrong = sum(r[key][level][2] for r in runs) / fired if fired else None
        rows.append({"threshold": level, "coverage": cov, "wrong": wrong,
                     "both": wrong is not None and wrong <= 0.05 and cov >= seed_cov})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=200)
    ap.add_argument("--first-seed", type=int, default=100)
    ap.add_argument("--days", type=int, default=180)
    ap.add_argument("--regions", type=int, default=20)
    ap.add_argument("--rate", type=float, default=3.0)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--samples", type=int, default=2000,
                    help="posterior draws of the Bayesian observer per task (0: leave it out; it needs numpy)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    jobs = [(s, args.regions, args.days, args.rate, args.samples)
            for s in range(args.first_seed, args.first_seed + args.seeds)]
    if args.jobs > 1:
        with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
            runs = pool.map(job, jobs, chunksize=1)
    else:
        runs = [job(j) for j in jobs]
    seed_cov = statistics.fmean(r["seed_coverage"] or 0.0 for r in runs)
    seed_wrong = [r["seed_wrong"] for r in runs if r["seed_wrong"] is not None]
    observers = {"interval": frontier(runs, "observer", ZS, seed_cov)}
    if args.samples:
        observers["bayes"] = frontier(runs, "bayes", TAUS, seed_cov)
    summary = {"seeds": args.seeds, "first_seed": args.first_seed, "days": args.days,
               "seed_coverage": seed_cov, "seed_wrong": statistics.fmean(seed_wrong) if seed_wrong else None,
               "observers": observers, "feasible": any(r["both"] for rows in observers.values() for r in rows)}
    if args.json:
        print(json.dumps(summary))
        return
    print(f"stationary-close, {args.seeds} seeds from {args.first_seed}, {args.days} days, {args.regions} regions, "
          f"{args.rate:g} tasks/day")
    print(f"seed policy (real engine): coverage {seed_cov:.2%}, wrong-reflex {summary['seed_wrong']:.1%}")
    titles = {"interval": "z (Wilson bounds)", "bayes": "posterior >= tau"}
    for key, rows in observers.items():
        print(f"{titles[key]:>18} {'observer coverage':>18} {'wrong':>7}  both targets")
        for r in rows:
            wrong = "-" if r["wrong"] is None else f"{r['wrong']:.1%}"
            print(f"{r['threshold']:18.4g} {r['coverage']:18.2%} {wrong:>7}  {'yes' if r['both'] else 'no'}")
    print("a threshold meeting both exists for a full-information observer" if summary["feasible"] else
          "no threshold gives a full-information observer wrong <= 5 % with coverage >= seed's")


if __name__ == "__main__":
    main()
