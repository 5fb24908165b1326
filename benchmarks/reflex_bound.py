"""How much reflex coverage *any* confident rule can have where candidates are close.

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

A third observer, the *host observer*, sees what a host can: **one** outcome per task. It is still
given more than any host has: it is told which two candidates are the region's best two (not which of
them is better) and spends every task on them, alternately (for two rates this close, equal shares are
the most informative split), it keeps seeing them while it fires, and it knows the prior; it fires on
the more probable of the two when the exact posterior probability (a grid over both rates) reaches ``τ``.

If no observer has a threshold giving both ``wrong ≤ 5 %`` and ``coverage ≥ seed's``, no rule that
sees less can: the two targets then conflict in close regions on that horizon. Over 180 days they do
for every observer; over 365 days only the full-information Bayesian observer reaches both, and the
host observer does not (docs/benchmarks/learning.md).
"""

from __future__ import annotations

import argparse
import functools
import json
import multiprocessing
import os
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

Decide = Callable[[list[int], list[int]], dict[float, int]]
Sees = Callable[[int, int], bool]

sys.path.insert(0, str(Path(__file__).resolve().parent))
import learning  # noqa: E402  (the benchmark whose worlds are bounded here)
from nervous_plugins.ranking import wilson_bounds  # noqa: E402

ZS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.28, 1.645, 1.96, 2.33)
TAUS = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.975, 0.99)
GAP = 0.05  # learning._draw_ps: the best two candidates of a close region differ by at most this


def tally(world: learning.World, levels: tuple[float, ...],
          observer: Callable[[list[float]], tuple[Decide, Sees]]) -> dict[float, tuple[int, int, int]]:
    """Per threshold: (tasks, reflex tasks, wrong reflex tasks) of an observer.

    For each region ``observer(ps)`` (the region's true success rates, which an observer may use only to
    say what it is shown) gives ``decide`` and ``sees``. Before each task the observer knows ``wins`` and
    ``runs``, the successes and outcomes it has seen of each candidate; ``decide(wins, runs)`` names, per
    threshold, the candidate it would fire a reflex on (thresholds it would not fire at are left out).
    After the task it sees candidate ``i``'s outcome when ``sees(task, i)``. A pick is wrong when it is
    not the best."""
    out = {level: [0, 0, 0] for level in levels}
    for region in world.regions:
        ps = [s.p for s in region.skills]
        best = max(range(len(ps)), key=lambda i: ps[i])
        decide, sees = observer(ps)
        wins, runs = [0] * len(ps), [0] * len(ps)
        for k, draws in enumerate(region.draws):
            picks = decide(wins, runs) if k else {}
            for level in levels:
                out[level][0] += 1
                if level in picks:
                    out[level][1] += 1
                    out[level][2] += picks[level] != best
            for i, (u, _f, _o) in enumerate(draws):
                if sees(k, i):
                    wins[i] += u < ps[i]
                    runs[i] += 1
    return {level: (t, r, w) for level, (t, r, w) in out.items()}


def _sees_everything(_task: int, _candidate: int) -> bool:
    return True


def observer(world: learning.World) -> dict[float, tuple[int, int, int]]:
    """The interval observer: fires on the empirical best when its Wilson lower bound clears every rival's
    upper bound at ``z`` (``seed-confident``'s bounds, :func:`wilson_bounds`)."""

    def decide(wins: list[int], runs: list[int]) -> dict[float, int]:
        top = max(range(len(wins)), key=lambda i: (wins[i], -i))
        picks = {}
        for z in ZS:
            low = wilson_bounds(wins[top], runs[top] - wins[top], z)[0]
            if all(low > wilson_bounds(w, runs[i] - w, z)[1] for i, w in enumerate(wins) if i != top):
                picks[z] = top
        return picks

    return tally(world, ZS, lambda _ps: (decide, _sees_everything))


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

    def decide(wins: list[int], runs: list[int]) -> dict[float, int]:
        prob = best_probabilities(rng, np.array(wins, dtype=float), runs[0], samples)
        pick = int(prob.argmax())
        return {tau: pick for tau in TAUS if prob[pick] >= tau}

    return tally(world, TAUS, lambda _ps: (decide, _sees_everything))


PAIR_RATES = 1000  # grid points of the first candidate's rate in the host observer's posterior
PAIR_GAPS = 100  # grid points of the difference between the two, within ±GAP


@functools.cache
def _pair_grid(others: int) -> tuple[Any, ...]:
    """Log-likelihood terms and log prior of the host observer's grid over (a, b), |a - b| <= GAP.

    The benchmark draws every rate from Beta(1, 1) and keeps the region when the best two are within
    GAP; told which two those are, the prior density of their rates (a, b) is proportional to
    ``min(a, b) ** others`` (the other candidates all fall below both) on that band."""
    import numpy as np

    a = (np.arange(PAIR_RATES) + 0.5) / PAIR_RATES
    d = ((np.arange(PAIR_GAPS) + 0.5) / PAIR_GAPS * 2 - 1) * GAP
    ga, gd = np.meshgrid(a, d, indexing="ij")
    gb = ga + gd
    inside = (gb > 0) & (gb < 1)
    gb = np.clip(gb, 1e-12, 1 - 1e-12)
    prior = np.where(inside, others * np.log(np.minimum(ga, gb)), -np.inf)
    return np.log(ga), np.log1p(-ga), np.log(gb), np.log1p(-gb), prior, gd < 0


@functools.cache
def pair_probability(won_a: int, lost_a: int, won_b: int, lost_b: int, others: int) -> float:
    """P(a > b | the outcomes seen) for the best two candidates of a close region (exact on the grid)."""
    import numpy as np

    la, l1a, lb, l1b, prior, a_ahead = _pair_grid(others)
    log_post = prior + won_a * la + lost_a * l1a + won_b * lb + lost_b * l1b
    weight = np.exp(log_post - log_post.max())
    return float(weight[a_ahead].sum() / weight.sum())


def host_view(ps: list[float]) -> tuple[Decide, Sees]:
    """The best a host can hope for in one region: one outcome per task, all spent on the best two.

    A host runs one candidate per task, so it sees one outcome per task. This observer is *told* which
    two candidates are the region's best two (not which of them is better), sees their outcomes on
    alternate tasks (for two rates this close, equal shares are the most informative split), keeps
    seeing them while it would be firing, knows the benchmark's prior, and fires on the more probable
    best when its exact posterior probability reaches ``τ``. A host that does not know the best two,
    spends tasks on the others, or sees only its reflex pick while firing learns less."""
    pair = sorted(sorted(range(len(ps)), key=lambda i: -ps[i])[:2])
    a, b = pair

    def sees(task: int, i: int) -> bool:
        return i == pair[task % 2]

    def decide(wins: list[int], runs: list[int]) -> dict[float, int]:
        p = pair_probability(wins[a], runs[a] - wins[a], wins[b], runs[b] - wins[b], len(ps) - 2)
        pick, prob = (a, p) if p >= 0.5 else (b, 1 - p)
        return {tau: pick for tau in TAUS if prob >= tau}

    return decide, sees


def host_observer(world: learning.World) -> dict[float, tuple[int, int, int]]:
    """The host observer (:func:`host_view`) over every region of a world."""
    return tally(world, TAUS, host_view)


def job(args: tuple[int, int, int, float, int]) -> dict[str, Any]:
    seed, regions, days, rate, samples = args
    world = learning.build_world("stationary-close", seed, regions, days, rate)
    seed_run = learning.simulate(world, "seed")
    return {"seed": seed, "observer": observer(world), "bayes": bayes_observer(world, samples) if samples else {},
            "host": host_observer(world),
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
                    help="posterior draws of the Bayesian observer per task (0: leave that observer out)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.seeds < 1 or args.days < 1 or args.regions < 1 or args.rate <= 0 or args.jobs < 1 or args.samples < 0:
        ap.error("--seeds, --days, --regions, --rate and --jobs must be positive, --samples 0 or more")
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
    observers["host"] = frontier(runs, "host", TAUS, seed_cov)
    summary = {"seeds": args.seeds, "first_seed": args.first_seed, "days": args.days,
               "seed_coverage": seed_cov, "seed_wrong": statistics.fmean(seed_wrong) if seed_wrong else None,
               "observers": observers,
               "feasible": {key: any(r["both"] for r in rows) for key, rows in observers.items()}}
    if args.json:
        print(json.dumps(summary))
        return
    print(f"stationary-close, {args.seeds} seeds from {args.first_seed}, {args.days} days, {args.regions} regions, "
          f"{args.rate:g} tasks/day")
    print(f"seed policy (real engine): coverage {seed_cov:.2%}, wrong-reflex {summary['seed_wrong']:.1%}")
    titles = {"interval": "z (Wilson bounds)", "bayes": "posterior >= tau", "host": "host: posterior >= tau"}
    for key, rows in observers.items():
        print(f"{titles[key]:>18} {'observer coverage':>18} {'wrong':>7}  both targets")
        for r in rows:
            wrong = "-" if r["wrong"] is None else f"{r['wrong']:.1%}"
            print(f"{r['threshold']:18.4g} {r['coverage']:18.2%} {wrong:>7}  {'yes' if r['both'] else 'no'}")
    for key, feasible in summary["feasible"].items():
        print(f"{key} observer: " + ("a threshold meets both targets" if feasible else
                                     "no threshold gives wrong <= 5 % with coverage >= seed's"))


if __name__ == "__main__":
    main()
