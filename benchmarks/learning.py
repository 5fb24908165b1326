"""Learning-quality benchmark of the cortex ranking policies (specs/skill-cortex.md §10.4).

    python benchmarks/learning.py [--seeds 200] [--days 365] [--regions 20] [--rate 3]
                                  [--scenarios a,b] [--policies a,b] [--jobs N] [--json]

A policy may carry ``[plugins.<name>]`` settings: ``--policies seed,seed-probe+rival_prior=5``.

A simulated agent uses the real cortex engine (``nervous.engines.cortex.Cortex`` on an in-memory
``MemoryStore``): every task is routed through ``rank_region`` and every attempt is learned through
``record_outcome``, so the weights, counters, reflex rules, pruning and policy state measured are
the shipped ones. Only the environment is simulated:

* regions with Zipf task frequency and Poisson arrivals per day (so idle decay happens);
* 2–5 candidates per region with hidden success probabilities p ~ Beta(1, 1);
* typed failures (each failure type with its own probability, so every factor is used);
* version bumps that redraw p and change the version and fingerprint the cortex sees;
* the host's loop: the first-ranked candidate is tried, then up to two switches on failure; an
  empty ranking is a miss, answered by a search whose result order is unrelated to quality; a
  region's candidates are all tried once when it is first met (the same for every policy);
* the reflex fast path through the engine's own check (``Cortex.fast_path_check``: the seed gates
  and the active policy's veto), plus the registry checks of the loop (a reflex pick counts like
  any other pick).

All random draws of a run come from its seed and are shared by every policy (common random
numbers): the same task arrives at the same time and a candidate tried on the k-th task of a region
gives the same outcome whichever policy chose it.

Metrics (mean ± standard error over seeds): cumulative regret (Σ best current p − p of the first
choice), regret as a ratio to the ``seed`` policy of the same run, best-skill rate over the last 50
tasks of each region, wrong-reflex rate (reflex picks that were not the current best) and reflex
failure rate (and the wrong picks made when the cortex no longer held the best candidate, i.e. it
was pruned), reflex coverage and the part of it that picked the current best, and — in the
scenarios with a change in the busiest region — the share of runs that recover (a 20-task window
picks the new best ≥ 80 % of the time) with the median delay in tasks.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import multiprocessing
import os
import random
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

from attrs import define, field

import nervous
from nervous.kernel.cortex.policy import CandidateView, RankingPolicy

DAY = 86_400
START = 1_767_225_600  # 2026-01-01T00:00:00Z
FAILURE_MIX = (  # (type, probability): every factor of the failure table is exercised
    ("task_mismatch", 0.20),
    ("runtime_error", 0.30),
    ("auth_error", 0.10),
    ("dependency_missing", 0.15),
    ("api_error", 0.25),
)
SCENARIOS = ("stationary-easy", "stationary-close", "incumbent-regresses", "neglected-improves", "version-churn")
POLICIES = ("seed", "seed-probe", "seed-confident", "thompson", "ucb1", "discounted-thompson", "random", "oracle", "seed-no-idle-decay")
BASELINE = "seed"
VERSION_COUNTS = ((1, 0.78), (2, 0.13), (3, 0.045), (4, 0.045))  # versions per skill (spec §10.4)
MAX_ATTEMPTS = 3  # first choice plus two switches
WINDOW, WINDOW_HITS, LAST_TASKS = 20, 16, 50


# ============================================================================================
# The simulated world
# ============================================================================================


@define
class Skill:
    slug: str
    p: float
    tags: tuple[str, ...]
    version: int = 1

    @property
    def version_str(self) -> str:
        return f"1.{self.version - 1}.0"

    @property
    def fingerprint(self) -> str:
        return hashlib.sha256(f"{self.slug}@{self.version}".encode()).hexdigest()


@define
class Region:
    name: str
    skills: list[Skill]
    #: task times (epoch seconds), ascending
    times: list[float] = field(factory=list)
    #: per task, per skill: outcome uniform, failure-type uniform, search-order key
    draws: list[list[tuple[float, float, float]]] = field(factory=list)


@define
class Change:
    at: float
    region: int
    skill: int
    p: float


@define
class World:
    scenario: str
    seed: int
    regions: list[Region]
    changes: list[Change]
    #: (time, region index, task index) for every task, ascending
    schedule: list[tuple[float, int, int]]
    #: the region whose change defines recovery, if any
    tracked: int | None = None


def _poisson(rng: random.Random, lam: float) -> int:
    limit, k, prod = math.exp(-lam), 0, rng.random()
    while prod > limit:
        k += 1
        prod *= rng.random()
    return k


def _draw_ps(rng: random.Random, n: int, kind: str) -> list[float]:
    """Hidden success probabilities from Beta(1, 1), conditioned on the scenario's gap."""
    while True:
        ps = [rng.betavariate(1, 1) for _ in range(n)]
        best, second = sorted(ps, reverse=True)[:2]
        if kind == "easy" and best - second >= 0.2:
            return ps
        if kind == "close" and best - second <= 0.05:
            return ps
        if kind == "any":
            return ps


def build_world(scenario: str, seed: int, n_regions: int, days: int, rate: float) -> World:
    rng = random.Random(f"world:{scenario}:{seed}")
    zipf = [1 / (i + 1) for i in range(n_regions)]
    total = sum(zipf)
    regions: list[Region] = []
    changes: list[Change] = []
    tracked: int | None = None
    for r in range(n_regions):
        n = rng.randint(2, 5)
        kind = {"stationary-close": "close", "version-churn": "any"}.get(scenario, "easy")
        ps = _draw_ps(rng, n, kind)
        if scenario == "neglected-improves" and r == 0:
            # a mediocre incumbent and a clearly worse candidate that will be neglected
            ps = [rng.uniform(0.8, 0.9)] + [rng.uniform(0.3, 0.5) for _ in range(n - 1)]
        skills = [
            Skill(f"r{r}-s{i}", p, ("write:file:~",) if rng.random() < 0.25 else ("network:api.example.com",))
            for i, p in enumerate(ps)
        ]
        region = Region(f"region-{r}", skills)
        lam = rate * zipf[r] / total
        for day in range(days):
            for _ in range(_poisson(rng, lam)):
                region.times.append(START + day * DAY + rng.uniform(0, DAY - 1))
        region.times.sort()
        region.draws = [[(rng.random(), rng.random(), rng.random()) for _ in skills] for _ in region.times]
        regions.append(region)
        when = START + rng.uniform(0.3, 0.6) * days * DAY
        if scenario == "incumbent-regresses" and r == 0:
            best = max(range(n), key=lambda i: ps[i])
            second = sorted(ps, reverse=True)[1]
            changes.append(Change(when, r, best, max(0.02, second - rng.uniform(0.2, 0.4))))
            tracked = 0
        elif scenario == "neglected-improves" and r == 0:
            worst = min(range(n), key=lambda i: ps[i])
            changes.append(Change(when, r, worst, min(0.995, max(ps) + rng.uniform(0.1, 0.2))))
            tracked = 0
        elif scenario == "version-churn":
            for i in range(n):
                u, versions = rng.random(), 1
                for count, share in VERSION_COUNTS:
                    versions = count
                    if u < share:
                        break
                    u -= share
                for _ in range(versions - 1):
                    changes.append(Change(START + rng.uniform(0, days * DAY), r, i, rng.betavariate(1, 1)))
    changes.sort(key=lambda c: c.at)
    schedule = sorted((t, r, k) for r, reg in enumerate(regions) for k, t in enumerate(reg.times))
    return World(scenario, seed, regions, changes, schedule, tracked)


# ============================================================================================
# Benchmark-only policies (scale and ablation), offered to the engine as a plugin
# ============================================================================================


class RandomPolicy(RankingPolicy):
    """A uniformly random order: the regret ceiling."""

    name = "random"
    description = "uniformly random order (benchmark scale)"

    def rank(self, region: str, candidates: Sequence[CandidateView], now: float,
             rng: random.Random) -> list[CandidateView]:
        order = sorted(candidates, key=lambda c: c.identity)
        rng.shuffle(order)
        return order


class OraclePolicy(RankingPolicy):
    """Knows the hidden success probabilities: zero regret among the candidates it is shown."""

    name = "oracle"
    description = "ranks by the hidden success probability (benchmark scale)"

    def __init__(self, truth: dict[str, float]) -> None:
        super().__init__()
        self.truth = truth

    def rank(self, region: str, candidates: Sequence[CandidateView], now: float,
             rng: random.Random) -> list[CandidateView]:
        return sorted(candidates, key=lambda c: (-self.truth.get(c.slug, 0.0), c.slug))


class SeedNoIdleDecayPolicy(RankingPolicy):
    """Ablation: the seed rule on the stored weight, i.e. without idle decay of unchosen candidates."""

    name = "seed-no-idle-decay"
    description = "seed order on stored weights (ablation)"

    def rank(self, region: str, candidates: Sequence[CandidateView], now: float,
             rng: random.Random) -> list[CandidateView]:
        kept = [c for c in candidates if round(c.weight, 10) >= self.min_effective]
        return sorted(kept, key=lambda c: (-round(c.weight, 10), -c.successes, c.slug))


class BenchmarkPolicies:
    """A plugin object offering the benchmark-only policies to a real plugin manager."""

    def __init__(self, truth: dict[str, float]) -> None:
        self.truth = truth

    @nervous.hookimpl
    def nervous_ranking_policies(self) -> list[Any]:
        return [
            nervous.Provider(RandomPolicy.name, RandomPolicy.description, lambda ctx: RandomPolicy()),
            nervous.Provider(OraclePolicy.name, OraclePolicy.description, lambda ctx: OraclePolicy(self.truth)),
            nervous.Provider(SeedNoIdleDecayPolicy.name, SeedNoIdleDecayPolicy.description,
                             lambda ctx: SeedNoIdleDecayPolicy()),
        ]


# ============================================================================================
# The engine under test
# ============================================================================================


def parse_policy_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``name`` or ``name+key=value+...`` (a policy with ``[plugins.<name>]`` settings; JSON values)."""
    name, *pairs = spec.split("+")
    settings: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"policy {spec!r}: expected name+key=value, got {pair!r}")
        try:
            settings[key] = json.loads(raw)
        except json.JSONDecodeError:
            settings[key] = raw
    return name, settings


class EngineUnderTest:
    """The shipped cortex engine on an in-memory store, driven the way the acquisition loop drives it."""

    def __init__(self, policy_name: str, truth: dict[str, float], seed: int) -> None:
        from nervous.engines.cortex import Cortex
        from nervous.kernel.config import Config
        from nervous.kernel.manager import PluginManager
        from nervous.kernel.storage import MemoryStore

        config = Config()
        name, settings = parse_policy_spec(policy_name)
        config.cortex.ranking_policy = name
        if settings:
            config.plugins.settings[name] = settings
        pm = PluginManager(config, autoload=False)
        pm.register(BenchmarkPolicies(truth), "learning-benchmark")
        self.cfg = config.cortex
        self.rng = random.Random(f"policy:{seed}")
        # No formula couples regions (the cap of 80 regions is never reached here), so each region
        # gets its own store: the same learning, without re-reading one large document per task.
        self.cortexes: dict[str, Any] = {}
        self._new = lambda: Cortex(pm, MemoryStore())

    def _cortex(self, region: str) -> Any:
        if region not in self.cortexes:
            self.cortexes[region] = self._new()
        return self.cortexes[region]

    def rank(self, region: str, now: float) -> list[CandidateView]:
        return self._cortex(region).rank_region(region, now=now, rng=self.rng)

    def fast_path(self, region: str, ranked: list[CandidateView], latest_version: str, latest_fingerprint: str,
                  now: float) -> bool:
        """The engine's fast-path check (local gates and the policy's veto) plus the loop's registry
        checks (same version and content)."""
        top = ranked[0]
        if not top.reflex or top.version != latest_version or top.fingerprint != latest_fingerprint:
            return False
        return not self._cortex(region).fast_path_check(region, ranked, now=now)

    def record(self, region: str, slug: str, outcome: str, version: str, fingerprint: str,
               tags: tuple[str, ...], now: float) -> None:
        self._cortex(region).record_outcome(region, slug, outcome, source="clawhub", version=version,
                                   fingerprint=fingerprint, tags=tags, scan_decision="allow", now=now)


# ============================================================================================
# One run
# ============================================================================================


@define
class Pick:
    region: int
    slug: str
    best: str
    regret: float
    reflex: bool
    success: bool
    #: the current best was among the candidates the cortex ranked (not pruned or never kept)
    best_known: bool = True


def _failure_type(u: float) -> str:
    for name, share in FAILURE_MIX:
        if u < share:
            return name
        u -= share
    return FAILURE_MIX[-1][0]


def simulate(world: World, policy_name: str) -> dict[str, Any]:
    """Run one policy over one world; returns the run's metrics."""
    truth: dict[str, float] = {s.slug: s.p for reg in world.regions for s in reg.skills}
    skills = [[Skill(s.slug, s.p, s.tags, s.version) for s in reg.skills] for reg in world.regions]
    cortex = EngineUnderTest(policy_name, truth, world.seed)
    introduced: set[str] = set()
    picks: list[Pick] = []
    pending = list(world.changes)
    change_task: int | None = None
    for now, r, k in world.schedule:
        while pending and pending[0].at <= now:
            ch = pending.pop(0)
            sk = skills[ch.region][ch.skill]
            sk.p, sk.version = ch.p, sk.version + 1
            truth[sk.slug] = ch.p
            if ch.region == world.tracked and change_task is None:
                change_task = sum(1 for p in picks if p.region == ch.region)
        region = world.regions[r]
        name = region.name
        regskills = skills[r]
        by_slug = {s.slug: (i, s) for i, s in enumerate(regskills)}
        draws = region.draws[k]
        ranked = cortex.rank(name, now)
        fresh = sorted((s for s in regskills if s.slug not in introduced), key=lambda s: draws[by_slug[s.slug][0]][2])
        if fresh:  # first meeting: every candidate is tried once, the same for every policy
            order = [s.slug for s in fresh] + [v.slug for v in ranked]
        elif ranked:
            order = [v.slug for v in ranked]
        else:  # a miss: search results come back in an order unrelated to quality
            order = [s.slug for s in sorted(regskills, key=lambda s: draws[by_slug[s.slug][0]][2])]
        order = list(dict.fromkeys(o for o in order if o in by_slug))[:MAX_ATTEMPTS]
        if not order:
            continue
        best = max(regskills, key=lambda s: s.p)
        first_i, first = by_slug[order[0]]
        reflex = bool(ranked) and not fresh and ranked[0].slug == first.slug and cortex.fast_path(
            name, ranked, first.version_str, first.fingerprint, now)
        first_ok = draws[first_i][0] < first.p
        picks.append(Pick(r, first.slug, best.slug, best.p - first.p, reflex, first_ok,
                          any(v.slug == best.slug for v in ranked)))
        for slug in order:
            i, sk = by_slug[slug]
            ok = draws[i][0] < sk.p
            introduced.add(slug)
            cortex.record(name, slug, "success" if ok else _failure_type(draws[i][1]), sk.version_str,
                          sk.fingerprint, sk.tags, now)
            if ok:
                break
    return metrics(picks, world, change_task)


def metrics(picks: list[Pick], world: World, change_task: int | None) -> dict[str, Any]:
    by_region: dict[int, list[Pick]] = {}
    for p in picks:
        by_region.setdefault(p.region, []).append(p)
    last = [p for ps in by_region.values() for p in ps[-LAST_TASKS:]]
    reflex = [p for p in picks if p.reflex]
    out: dict[str, Any] = {
        "tasks": len(picks),
        "regret": sum(p.regret for p in picks),
        "best_rate": sum(p.slug == p.best for p in last) / len(last) if last else None,
        "wrong_reflex": sum(p.slug != p.best for p in reflex) / len(reflex) if reflex else None,
        "reflex_fail": sum(not p.success for p in reflex) / len(reflex) if reflex else None,
        # wrong reflex picks made while the cortex no longer held the best candidate at all
        "wrong_unknown": (sum(p.slug != p.best and not p.best_known for p in reflex) / len(reflex)
                          if reflex else None),
        "coverage": len(reflex) / len(picks) if picks else None,
        "coverage_best": sum(p.slug == p.best for p in reflex) / len(picks) if picks else None,
        "recovered": None,
        "delay": None,
    }
    if world.tracked is not None and change_task is not None:
        seq = by_region.get(world.tracked, [])[change_task:]
        out["recovered"] = False
        for end in range(WINDOW, len(seq) + 1):
            window = seq[end - WINDOW:end]
            if window[0].best != window[-1].best:
                continue
            if sum(p.slug == p.best for p in window) >= WINDOW_HITS:
                out["recovered"], out["delay"] = True, end
                break
    return out


def run_job(job: tuple[str, int, int, int, float, tuple[str, ...]]) -> tuple[str, int, dict[str, dict[str, Any]]]:
    scenario, seed, n_regions, days, rate, policies = job
    world = build_world(scenario, seed, n_regions, days, rate)
    return scenario, seed, {name: simulate(world, name) for name in policies}


# ============================================================================================
# Aggregation and report
# ============================================================================================


def mean_se(values: list[float]) -> tuple[float, float, int]:
    vals = [v for v in values if v is not None]
    if not vals:
        return math.nan, math.nan, 0
    m = statistics.fmean(vals)
    se = statistics.stdev(vals) / math.sqrt(len(vals)) if len(vals) > 1 else 0.0
    return m, se, len(vals)


def summarise(results: dict[str, dict[int, dict[str, dict[str, Any]]]], policies: Sequence[str]) -> dict[str, Any]:
    summary: dict[str, Any] = {}
    for scenario, by_seed in results.items():
        rows: dict[str, Any] = {}
        seeds = sorted(by_seed)
        for name in policies:
            runs = [by_seed[s][name] for s in seeds]
            row: dict[str, Any] = {}
            for key in ("regret", "best_rate", "wrong_reflex", "wrong_unknown", "reflex_fail", "coverage",
                        "coverage_best", "tasks"):
                row[key] = mean_se([r[key] for r in runs])
            if BASELINE in by_seed[seeds[0]]:
                ratios = [r["regret"] / by_seed[s][BASELINE]["regret"] for s, r in zip(seeds, runs, strict=True)
                          if by_seed[s][BASELINE]["regret"] > 0]
                row["regret_ratio"] = mean_se(ratios)
            tracked = [r for r in runs if r["recovered"] is not None]
            if tracked:
                share = sum(r["recovered"] for r in tracked) / len(tracked)
                row["recovery"] = (share, math.sqrt(share * (1 - share) / len(tracked)), len(tracked))
                delays = [r["delay"] for r in tracked if r["recovered"]]
                row["delay"] = statistics.median(delays) if delays else None
                row["never"] = sum(not r["recovered"] for r in tracked)
            rows[name] = row
        summary[scenario] = rows
    return summary


def _fmt(triple: Any, pct: bool = False, digits: int = 1) -> str:
    if not triple or triple[2] == 0 or math.isnan(triple[0]):
        return "—"
    m, se, _n = triple
    if pct:
        return f"{100 * m:.{digits}f} ± {100 * se:.{digits}f} %"
    return f"{m:.{digits}f} ± {se:.{digits}f}"


def render(summary: dict[str, Any], args: argparse.Namespace) -> str:
    lines = []
    for scenario, rows in summary.items():
        lines.append(f"\n## {scenario}\n")
        head = ["policy", "regret", f"regret / {BASELINE}", "best-skill (last 50)", "wrong-reflex",
                "of it, best not held", "reflex fails", "reflex coverage", "of it on the best", "recovered", "median delay (never)"]
        lines.append("| " + " | ".join(head) + " |")
        lines.append("|" + "|".join("---" for _ in head) + "|")
        for name, row in rows.items():
            rec = _fmt(row.get("recovery"), pct=True, digits=0) if "recovery" in row else "—"
            delay = (f"{row['delay']:.0f} ({row['never']})" if row.get("delay") is not None
                     else (f"— ({row['never']})" if "never" in row else "—"))
            wr = row["wrong_reflex"]
            wr_text = _fmt(wr, pct=True) + (f" (n={wr[2]})" if wr[2] else "")
            lines.append("| " + " | ".join([
                name, _fmt(row["regret"]), _fmt(row.get("regret_ratio"), digits=3), _fmt(row["best_rate"], pct=True),
                wr_text, _fmt(row["wrong_unknown"], pct=True), _fmt(row["reflex_fail"], pct=True), _fmt(row["coverage"], pct=True),
                _fmt(row["coverage_best"], pct=True), rec, delay,
            ]) + " |")
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=200, help="runs per scenario (default 200)")
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--days", type=int, default=365, help="simulated days per run (default 365)")
    ap.add_argument("--regions", type=int, default=20, help="regions per run (default 20)")
    ap.add_argument("--rate", type=float, default=3.0, help="tasks per day over all regions (default 3)")
    ap.add_argument("--scenarios", default=",".join(SCENARIOS), help="comma-separated scenario names")
    ap.add_argument("--policies", default=",".join(POLICIES),
                    help="comma-separated policy names; name+key=value+... applies [plugins.<name>] settings")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes")
    ap.add_argument("--json", action="store_true", help="print the summary as JSON")
    ap.add_argument("--progress", action="store_true", help="report progress on stderr")
    args = ap.parse_args(argv)
    args.scenarios = [s for s in args.scenarios.split(",") if s]
    args.policies = [p for p in args.policies.split(",") if p]
    for spec in args.policies:
        try:
            parse_policy_spec(spec)
        except ValueError as exc:
            ap.error(str(exc))
    unknown = [s for s in args.scenarios if s not in SCENARIOS]
    if unknown:
        ap.error(f"unknown scenario(s) {', '.join(unknown)}; available: {', '.join(SCENARIOS)}")
    if args.seeds < 1 or args.days < 1 or args.regions < 1 or args.rate <= 0:
        ap.error("--seeds, --days, --regions and --rate must be positive")
    return args


def run(args: argparse.Namespace) -> dict[str, Any]:
    if BASELINE not in args.policies:
        args.policies = [BASELINE, *args.policies]
    jobs = [(s, seed, args.regions, args.days, args.rate, tuple(args.policies))
            for s in args.scenarios for seed in range(args.first_seed, args.first_seed + args.seeds)]
    results: dict[str, dict[int, dict[str, dict[str, Any]]]] = {s: {} for s in args.scenarios}
    if args.jobs > 1 and len(jobs) > 1:
        methods = multiprocessing.get_all_start_methods()
        ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
        with ctx.Pool(args.jobs) as pool:
            for done, (scenario, seed, res) in enumerate(pool.imap_unordered(run_job, jobs, chunksize=1), 1):
                results[scenario][seed] = res
                if args.progress and done % max(1, len(jobs) // 20) == 0:
                    print(f"  {done}/{len(jobs)} runs", file=sys.stderr, flush=True)
    else:
        for job in jobs:
            scenario, seed, res = run_job(job)
            results[scenario][seed] = res
    return summarise(results, args.policies)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    t0 = time.perf_counter()
    summary = run(args)
    elapsed = time.perf_counter() - t0
    if args.json:
        print(json.dumps({"args": {k: v for k, v in vars(args).items()}, "elapsed_s": elapsed, "summary": summary},
                         default=str))
        return
    print(f"learning benchmark: {args.seeds} seeds, {args.days} days, {args.regions} regions, "
          f"{args.rate:g} tasks/day, {args.jobs} jobs, {elapsed:.0f} s")
    print(render(summary, args))


if __name__ == "__main__":
    sys.exit(main())
