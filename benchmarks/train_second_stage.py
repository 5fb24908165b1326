"""Train the review policy's second stage (plugins/nervous_plugins/review_policy/second_stage.json).

    python benchmarks/scan_decisions.py record --corpus ../shared/data/security/corpus.tar.gz --out dev.json
    python benchmarks/scan_decisions.py record --corpus ../shared/data/security/wild/wild.tar.gz --out wild.json
    python benchmarks/train_second_stage.py --dev dev.json --labels ../shared/data/security/labels.jsonl \
        --wild wild.json --without class: --l2 1.0       # the shipped data file (``--variants`` speeds it up)

Inputs are scan records (every finding of every item as rule id and action, with classes and flags; never
text). Labels: dev malicious = 1, dev benign = 0, wild = 0 except the wild items the rules refuse by two or
more technique families or by a hard rule (likely malicious, left out of training). The model is an L2
logistic regression fitted by a fixed number of full-batch gradient steps in plain Python (no randomness,
items in id order, weights rounded), so the same records give a byte-identical data file.

Thresholds are then chosen on the same records by a grid search: the fewest wild refusals, then the wild
review-or-refuse target (``--wild-review-target``) reached with the fewest releases to *allow*, such that the
dev corpus keeps refuse recall, refuse FPR and review-or-refuse recall within the floors given on the command
line, and every self-written technique variant of the test suite keeps its expected decision (malicious
refused, look-alikes not refused, own-purpose look-alikes allowed). ``--loso`` retrains with each malicious
source held out and prints the held-out recall as a share of the in-sample recall; ``--frontier`` prints the
best wild rates at lower dev refuse-recall floors, with and without the variant-suite constraint.

Options for generalisation across sources: ``--without class:`` trains without the features whose names start
with a prefix (capability classes say what a skill can do, not whether it means harm; a feature left out has no
weight, so the scorer needs no change; the shipped data file is trained so, at ``--l2 1.0``), and
``--loso-kept 0.7`` chooses the thresholds under one more constraint: with each malicious source held out of
training, that source keeps at least the given share of its in-sample recall at refuse and at review-or-refuse
(wild refusals capped by ``--max-wild-refuse``, the wild review-or-refuse target then a hard limit).
``--loso-kept max`` reports the best share reachable under every other constraint (the frontier).

``--loso`` keeps the shipped thresholds for every held-out model; ``--loso-refit`` runs the whole procedure
again without each malicious source — the weights fitted and the thresholds chosen by the same search on the
dev items that remain — and reports that source's recall (:func:`loso_refit`).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "plugins"))

from nervous_plugins.review_policy.second_stage import (  # noqa: E402
    FORMAT,
    MODEL_PATH,
    adjust,
    family,
    features,
    model_from_json,
)

#: Rules whose refusal the score never lowers: the techniques of spec §9 (evidence of malice, not capability).
HARD_RULES = (
    "NV-EXEC-002", "NV-EXEC-004", "NV-EXEC-005", "NV-EXEC-006",  # payloads decoded or fetched and run in code
    "NV-SUPPLY-001", "NV-SUPPLY-002", "NV-SUPPLY-003",  # fake prerequisites, scanner evasion, campaigns
    "NV-CRED-005", "NV-EXFIL-001", "NV-EXFIL-005",  # credentials or secrets sent out
    "NV-PI-001", "NV-PI-002",  # concealment, instruction override and claimed approval
    "NV-OBF-001", "NV-OBF-006", "NV-OBF-007",  # hidden or encoded instructions
    "NV-PERSIST-002",  # a memory or settings plant that bypasses confirmation (refuse only then)
    "NV-REMOTE-002",  # code run from a file planted outside the skill (refuse only when it is run or sourced)
    "NV-EXFIL-003",  # a credential read and posted to a chat webhook, or a webhook on a raw or paste address (refuse only then)
    "NV-PRIV-002", "NV-DESTR-001", "NV-LIMIT-001",
)
#: Rules a person always sees: never released to allow by the score. Besides what went unread and a campaign's
#: indicator, where a skill comes from or fetches from (a raw-IP address, a paste or throw-away host, a name made
#: to look like another tool's): provenance, which the score's capability-shaped features cannot weigh; and one
#: service's secrets sent together (``NV-CRED-005`` at review): where they go is for a person to see.
REVIEW_FLOOR = ("NV-LIMIT-001", "NV-SUPPLY-003b", "NV-SUPPLY-004", "NV-SUPPLY-005", "NV-SUPPLY-007", "NV-CRED-005")

L2 = 2.0
STEPS = 3000
RATE = 0.5
GRID = tuple(round(i / 100, 2) for i in range(1, 100))


Item = dict[str, Any]


def from_record(rec: Mapping[str, Any]) -> Item:
    """One scan-record entry as the trainer's item: findings ``(rule, action)``, classes, flags, rules' decision."""
    findings = sorted({tuple(f.split(":")[:2]) for f in rec["findings"]})
    complete = "incomplete" not in rec["flags"]
    return {"findings": findings, "classes": sorted(rec["classes"]), "flags": sorted(rec["flags"]),
            "complete": complete, "rules_decision": rules_decision(findings, complete)}


def rules_decision(findings: Iterable[tuple[str, str]], complete: bool) -> str:
    actions = {a for _, a in findings}
    if "refuse" in actions:
        return "refuse"
    if "review" in actions or not complete:
        return "review"
    return "allow"


def likely_malicious(item: Item) -> bool:
    """Refused by a hard rule or by two or more rule families: kept out of the 'ordinary' wild negatives."""
    refusing = {r for r, a in item["findings"] if a == "refuse"}
    return bool(refusing & set(HARD_RULES)) or len({family(r) for r in refusing}) >= 2


def feats_of(item: Item, without: tuple[str, ...] = ()) -> dict[str, float]:
    """The scorer's features of one item, less those whose names start with a prefix in ``without``."""
    feats = features(item["findings"], item["classes"], item["flags"], complete=item["complete"])
    return {k: v for k, v in feats.items() if not k.startswith(without)} if without else feats


def fit(rows: list[tuple[dict[str, float], int, float]], *, l2: float = L2, steps: int = STEPS,
        rate: float = RATE) -> tuple[dict[str, float], float]:
    """L2 logistic regression by full-batch gradient descent; deterministic (sorted names, fixed steps)."""
    names = sorted({k for f, _, _ in rows for k in f})
    index = {k: i for i, k in enumerate(names)}
    sparse = [([index[k] for k in sorted(f)], [f[k] for k in sorted(f)], y, w) for f, y, w in rows]
    total = sum(w for *_, w in sparse) or 1.0  # no weight at all (e.g. the only source held out): all zero
    w = [0.0] * len(names)
    b = 0.0
    for _ in range(steps):
        grad = [0.0] * len(names)
        gb = 0.0
        for idx, vals, y, weight in sparse:
            z = b + sum(w[i] * v for i, v in zip(idx, vals, strict=True))
            p = 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, z))))
            g = weight * (p - y) / total
            gb += g
            for i, v in zip(idx, vals, strict=True):
                grad[i] += g * v
        for i in range(len(w)):
            w[i] -= rate * (grad[i] + l2 * w[i] / total)
        b -= rate * gb
    return {k: round(w[index[k]], 4) for k in names if round(w[index[k]], 4) != 0.0}, round(b, 4)


def training_rows(dev: Mapping[str, Item], labels: Mapping[str, Mapping[str, Any]], wild: Mapping[str, Item],
                  *, hold_out: str | None = None,
                  without: tuple[str, ...] = ()) -> tuple[list[tuple[dict[str, float], int, float]], dict[str, int]]:
    """(features, label, weight) per item, in id order. Malicious and ordinary get equal total weight;
    ordinary weight is split equally between dev benign and wild items."""
    mal = [i for i in sorted(dev) if labels[i]["label"] == "malicious" and labels[i].get("source") != hold_out]
    ben = [i for i in sorted(dev) if labels[i]["label"] == "benign"]
    wil = [i for i in sorted(wild) if not likely_malicious(wild[i])]
    rows = [(feats_of(dev[i], without), 1, 1.0) for i in mal]
    half = len(mal) / 2
    if ben and wil:
        rows += [(feats_of(dev[i], without), 0, half / len(ben)) for i in ben]
        rows += [(feats_of(wild[i], without), 0, half / len(wil)) for i in wil]
    else:
        rows += [(feats_of(it, without), 0, 2 * half / len(ben + wil))
                 for it in [dev[i] for i in ben] + [wild[i] for i in wil]]
    return rows, {"malicious": len(mal), "benign": len(ben), "wild": len(wil),
                  "wild_left_out": len(wild) - len(wil)}


def decide_all(model_doc: Mapping[str, Any], items: Mapping[str, Item]) -> dict[str, str]:
    model = model_from_json(model_doc)
    return {i: adjust(it["rules_decision"], it["findings"], it["classes"], it["flags"], complete=it["complete"],
                      model=model).decision for i, it in items.items()}


def choose_thresholds(doc: dict[str, Any], dev: Mapping[str, Item], labels: Mapping[str, Mapping[str, Any]],
                      wild: Mapping[str, Item], variants: Mapping[str, Item], floors: Mapping[str, float], *,
                      held: Mapping[str, Mapping[str, Any]] | None = None, kept: float | None = None,
                      max_wild_refuse: int | None = None) -> dict[str, Any]:
    """Exhaustive search over the grid. Each threshold acts on its own group of items (the rules' refusals,
    reviews and allows), so each item's decision is computed once per value of its own threshold.

    With ``held`` (models trained without each malicious source) the search is LOSO-aware: each source's
    in-sample and held-out catches are counted too, the wild review-or-refuse target and ``max_wild_refuse``
    become hard limits, and the thresholds must keep ``kept`` of every source's in-sample recall at both
    levels; ``kept=None`` puts the worst share kept first instead (the frontier)."""
    everything = {**{f"dev:{i}": v for i, v in dev.items()}, **{f"wild:{i}": v for i, v in wild.items()},
                  **{f"var:{i}": v for i, v in variants.items()}}
    n_mal = sum(labels[i]["label"] == "malicious" for i in dev)
    n_ben = len(dev) - n_mal
    held = held or {}
    mine = {src: {f"dev:{i}" for i in dev if labels[i]["label"] == "malicious" and labels[i].get("source") == src}
            for src in held}
    groups = {"refuse": "refuse", "review": "review", "allow": "raise"}
    values = {"refuse": (0.0, *GRID), "review": (0.0, *GRID), "raise": (*GRID, 1.01)}
    table: dict[str, dict[float, tuple[int, ...]]] = {}
    for rules_dec, name in groups.items():
        members = {k: v for k, v in everything.items() if v["rules_decision"] == rules_dec}
        table[name] = {}
        for t in values[name]:
            th = {"refuse": 0.0, "review": 0.0, "raise": 1.01, name: t}
            dec = decide_all({**doc, "thresholds": th}, members)
            mal_ref = mal_rev = ben_ref = w_ref = w_rev = bad = 0
            for k, d in dec.items():
                src, _, i = k.partition(":")
                if src == "dev":
                    mal = labels[i]["label"] == "malicious"
                    mal_ref += mal and d == "refuse"
                    mal_rev += mal and d != "allow"
                    ben_ref += (not mal) and d == "refuse"
                elif src == "wild":
                    w_ref += d == "refuse"
                    w_rev += d != "allow"
                else:
                    kind = i.split(":", 1)[0]
                    bad += (kind == "mal" and d != "refuse") or (kind == "benign" and d == "refuse") or \
                        (kind == "allowed" and d != "allow")
            row = [mal_ref, mal_rev, ben_ref, w_ref, w_rev, bad]
            for src, held_doc in sorted(held.items()):  # in-sample and held-out catches of the source, per level
                ours = {k: v for k, v in members.items() if k in mine[src]}
                theirs = decide_all({**held_doc, "thresholds": th}, ours)
                row += [sum(dec[k] == "refuse" for k in ours), sum(d == "refuse" for d in theirs.values()),
                        sum(dec[k] != "allow" for k in ours), sum(d != "allow" for d in theirs.values())]
            table[name][t] = tuple(row)
    best: tuple[Any, ...] | None = None
    for t_ref, a in table["refuse"].items():
        for t_rev, b in table["review"].items():
            for t_raise, c in table["raise"].items():
                total = [x + y + z for x, y, z in zip(a, b, c, strict=True)]
                mal_ref, mal_rev, ben_ref, w_ref, w_rev, bad = total[:6]
                if bad or mal_ref < floors["refuse_recall"] * n_mal - 1e-9 or \
                        ben_ref > floors["refuse_fpr"] * n_ben + 1e-9 or mal_rev < floors["review_recall"] * n_mal - 1e-9:
                    continue
                worst = 1.0
                if held:
                    if (max_wild_refuse is not None and w_ref > max_wild_refuse) or \
                            w_rev > floors.get("wild_review", 1.0) * len(wild) + 1e-9:
                        continue
                    shares = total[6:]
                    for j in range(0, len(shares), 2):
                        worst = min(worst, shares[j + 1] / shares[j] if shares[j] else 1.0)
                    if kept is not None and worst < kept - 1e-9:
                        continue
                # fewest wild refusals; then meet the review-or-refuse target with the fewest releases
                # (the lowest review threshold), which leaves the most margin on sources not seen in training
                key = (-worst if held and kept is None else 0.0, w_ref,
                       max(0, w_rev - floors.get("wild_review", 1.0) * len(wild)), -mal_rev, t_rev,
                       -mal_ref, ben_ref, t_ref, -t_raise)
                if best is None or key < best[0]:
                    best = (key, {"refuse": t_ref, "review": t_rev, "raise": t_raise},
                            {"refuse_recall": mal_ref / n_mal, "refuse_fpr": ben_ref / n_ben,
                             "review_recall": mal_rev / n_mal}, w_rev, worst)
    if best is None:
        raise SystemExit("no thresholds keep the dev floors and the variant suite"
                         + (" and every held-out source's share" if held else ""))
    out = {"thresholds": best[1], "dev": best[2], "wild_refuse": best[0][1], "wild_review_or_refuse": best[3]}
    if held:
        out["loso_worst_kept"] = round(best[4], 4)
    return out


def record_variants() -> dict[str, Any]:
    """Scan the self-written technique-variant suite (tests/security): ``mal:``, ``benign:`` and ``allowed:`` cases."""
    sys.path.insert(0, str(ROOT))
    from nervous.engines.scan.engine import scan_bundle
    from nervous.kernel.config import Config
    from nervous.kernel.manager import PluginManager
    from nervous.kernel.records import ScanContext
    from tests.security.helpers import bundle
    from tests.security.test_technique_variants import ALLOWED, BENIGN, MALICIOUS

    pm = PluginManager(Config(), autoload=False)
    out: dict[str, Any] = {}
    try:
        for kind, cases in (("mal", MALICIOUS), ("benign", BENIGN), ("allowed", ALLOWED)):
            for case in cases:
                rep = scan_bundle(pm, bundle(case.files), ScanContext(purpose=case.purpose)).report
                out[f"{kind}:{case.id}"] = {"findings": sorted(f"{f['rule_id']}:{f['action']}" for f in rep["findings"]),
                                            "classes": rep["capabilities"]["classes"],
                                            "flags": sorted(rep["capabilities"]["flags"])}
    finally:
        pm.close()
    return out


def train(dev: Mapping[str, Item], labels: Mapping[str, Mapping[str, Any]], wild: Mapping[str, Item], *,
          steps: int = STEPS, l2: float = L2, hold_out: str | None = None,
          without: tuple[str, ...] = ()) -> dict[str, Any]:
    """The model document without thresholds (weights fitted on the records, one source left out if asked)."""
    rows, counts = training_rows(dev, labels, wild, hold_out=hold_out, without=without)
    weights, bias = fit(rows, steps=steps, l2=l2)
    doc = {"format": FORMAT, "features": "rule:<id>:<action>, family:<prefix>, counts, class:, flag:",
           "trained_on": counts, "l2": l2, "steps": steps, "bias": bias, "weights": weights,
           "hard_rules": sorted(HARD_RULES), "review_floor": sorted(REVIEW_FLOOR)}
    if without:  # recorded so that a retrain (loso, benchmarks/security.py) leaves out the same features
        doc["without"] = sorted(without)
    return doc


def malicious_sources(dev: Mapping[str, Item], labels: Mapping[str, Mapping[str, Any]]) -> list[str]:
    return sorted({labels[i].get("source") for i in dev if labels[i]["label"] == "malicious"} - {None})


def held_out_models(dev: Mapping[str, Item], labels: Mapping[str, Mapping[str, Any]], wild: Mapping[str, Item], *,
                    steps: int = STEPS, l2: float = L2, without: tuple[str, ...] = ()) -> dict[str, dict[str, Any]]:
    """Per malicious source, the model document (no thresholds) trained without that source."""
    return {src: train(dev, labels, wild, steps=steps, l2=l2, hold_out=src, without=without)
            for src in malicious_sources(dev, labels)}


def same_wild_operating_point(doc: Mapping[str, Any], held_doc: Mapping[str, Any],
                              wild: Mapping[str, Item]) -> dict[str, float]:
    """Thresholds for a retrained model that decide as many wild items as the shipped model does: the lowest
    grid values whose wild refusals and wild reviews-or-refusals do not exceed the shipped model's (the raise
    threshold is kept). Chosen from unlabelled wild records only, so the held-out source plays no part."""
    th = dict(doc["thresholds"])
    shipped = decide_all(doc, wild)
    n_ref = sum(d == "refuse" for d in shipped.values())
    n_rev = sum(d != "allow" for d in shipped.values())
    refusing = {i: it for i, it in wild.items() if it["rules_decision"] == "refuse"}
    for t in (0.0, *GRID, 1.01):
        if sum(d == "refuse" for d in decide_all({**held_doc, "thresholds": {**th, "refuse": t}}, refusing).values()) <= n_ref:
            th["refuse"] = t
            break
    for t in (0.0, *GRID, 1.01):
        if sum(d != "allow" for d in decide_all({**held_doc, "thresholds": {**th, "review": t}}, wild).values()) <= n_rev:
            th["review"] = t
            break
    return th


def loso(doc: Mapping[str, Any], dev: Mapping[str, Item], labels: Mapping[str, Mapping[str, Any]],
         wild: Mapping[str, Item], *, steps: int = STEPS, l2: float = L2,
         held: Mapping[str, Mapping[str, Any]] | None = None, operating_point: bool = False) -> dict[str, Any]:
    """Per malicious source: its recall with the shipped model (in sample) and with a model retrained
    without it (same features left out), at refuse and at review-or-refuse. The retrained model uses the
    shipped thresholds, or with ``operating_point`` thresholds that decide as many wild items as the shipped
    model does (``same_wild_operating_point``): a retrained model's scores shift as a whole, and a fixed
    threshold then measures that shift as well as what the model learned from the source."""
    def thresholds(src: str, held_doc: Mapping[str, Any], mine: list[str]) -> dict[str, Any]:
        return {"thresholds": same_wild_operating_point(doc, held_doc, wild) if operating_point
                else doc["thresholds"]}

    return _per_source(doc, dev, labels, wild, thresholds, steps=steps, l2=l2, held=held)


def loso_refit(doc: Mapping[str, Any], dev: Mapping[str, Item], labels: Mapping[str, Mapping[str, Any]],
               wild: Mapping[str, Item], variants: Mapping[str, Item], floors: Mapping[str, float], *,
               steps: int = STEPS, l2: float = L2,
               held: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """Per malicious source: the whole training procedure run again without it, then its recall.

    The thresholds are part of what is trained: the shipped ones are chosen by :func:`choose_thresholds` on
    every dev item, the source included, on the shipped model's score scale. Here a model fitted without the
    source gets its thresholds from the same search on the dev items that remain (the recall floors read as
    "not below the shipped pipeline's recall on those items"; the false-positive limit, the wild targets and
    the variant suite as shipped), so nothing the held-out source contains reaches its decisions."""
    full = decide_all(doc, dev)

    def refitted(src: str, held_doc: Mapping[str, Any], mine: list[str]) -> dict[str, Any]:
        rest = {i: it for i, it in dev.items() if i not in set(mine)}
        malicious = [i for i in rest if labels[i]["label"] == "malicious"]
        kept_floors = {**floors,
                       "refuse_recall": sum(full[i] == "refuse" for i in malicious) / len(malicious),
                       "review_recall": sum(full[i] != "allow" for i in malicious) / len(malicious)}
        chosen = choose_thresholds(dict(held_doc), rest, labels, wild, variants, kept_floors)
        return {k: chosen[k] for k in ("thresholds", "wild_refuse", "wild_review_or_refuse")}

    return _per_source(doc, dev, labels, wild, refitted, steps=steps, l2=l2, held=held, full=full)


def _per_source(doc: Mapping[str, Any], dev: Mapping[str, Item], labels: Mapping[str, Mapping[str, Any]],
                wild: Mapping[str, Item],
                thresholds: Callable[[str, Mapping[str, Any], list[str]], dict[str, Any]], *,
                steps: int, l2: float, held: Mapping[str, Mapping[str, Any]] | None,
                full: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The LOSO table: per malicious source, the model trained without it judged at the thresholds
    ``thresholds(source, model, the source's items)`` gives (with any other fields it returns), against the
    shipped model in sample (``full``: its decisions on ``dev``, when the caller has them)."""
    if full is None:
        full = decide_all(doc, dev)
    if held is None:
        held = held_out_models(dev, labels, wild, steps=steps, l2=l2, without=tuple(doc.get("without", ())))
    out: dict[str, Any] = {}
    for src in malicious_sources(dev, labels):
        mine = _source_items(dev, labels, src)
        row = thresholds(src, held[src], mine)
        theirs = decide_all({**held[src], "thresholds": row["thresholds"]}, {i: dev[i] for i in mine})
        out[src] = {"items": len(mine), **row, **_kept(full, theirs, mine)}
    return out


def _source_items(dev: Mapping[str, Item], labels: Mapping[str, Mapping[str, Any]], src: str) -> list[str]:
    return [i for i in sorted(dev) if labels[i]["label"] == "malicious" and labels[i].get("source") == src]


def _kept(full: Mapping[str, str], theirs: Mapping[str, str], mine: list[str]) -> dict[str, Any]:
    """A source's recall in sample (``full``) and held out (``theirs``), and the share kept, at both levels."""
    row: dict[str, Any] = {}
    for level, caught in (("refuse", lambda d: d == "refuse"), ("review_or_refuse", lambda d: d != "allow")):
        inside = sum(caught(full[i]) for i in mine)
        kept = sum(caught(theirs[i]) for i in mine)
        row[level] = {"in_sample": inside / len(mine), "held_out": kept / len(mine),
                      "kept": kept / inside if inside else 1.0}
    return row


def frontier(doc: Mapping[str, Any], dev: Mapping[str, Item], labels: Mapping[str, Mapping[str, Any]],
             wild: Mapping[str, Item], variants: Mapping[str, Item], floors: Mapping[str, float]) -> list[dict[str, Any]]:
    """The best wild rates at each dev refuse-recall floor, with and without the variant-suite constraint."""
    out = []
    for with_variants in (True, False):
        for floor in (0.34, 0.33, 0.32, 0.31, 0.30, 0.28, 0.25):
            try:
                c = choose_thresholds(dict(doc), dev, labels, wild, variants if with_variants else {},
                                      {**floors, "refuse_recall": floor})
            except SystemExit:
                continue
            out.append({"variant_suite": with_variants, "refuse_recall_floor": floor, **c})
    return out


def _share(text: str) -> str:
    """``--loso-kept``: ``max``, or a share in (0, 1]."""
    if text != "max":
        try:
            share = float(text)
        except ValueError:
            share = -1.0
        if not 0.0 < share <= 1.0:
            raise argparse.ArgumentTypeError(f"expected 'max' or a share in (0, 1], got {text!r}")
    return text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dev", required=True, type=Path, help="scan record of the dev corpus")
    ap.add_argument("--labels", required=True, type=Path)
    ap.add_argument("--wild", required=True, type=Path, help="scan record of the wild sample")
    ap.add_argument("--variants", type=Path, help="findings of the technique-variant suite as JSON "
                                                 "(default: scan the suite's cases now, about 15 s)")
    ap.add_argument("--out", type=Path, default=MODEL_PATH)
    ap.add_argument("--l2", type=float, default=L2, help="L2 penalty (default %(default)s)")
    ap.add_argument("--steps", type=int, default=STEPS, help="gradient steps (default %(default)s)")
    ap.add_argument("--floor-refuse-recall", type=float, default=0.34)
    ap.add_argument("--max-refuse-fpr", type=float, default=0.03)
    ap.add_argument("--floor-review-recall", type=float, default=0.67)
    ap.add_argument("--wild-review-target", type=float, default=0.30,
                    help="wild review-or-refuse rate to reach with as few releases as possible")
    ap.add_argument("--loso", action="store_true", help="also retrain with each malicious source held out")
    ap.add_argument("--without", action="append", default=[], metavar="PREFIX",
                    help="train without the features whose names start with PREFIX (e.g. class:); repeatable")
    ap.add_argument("--loso-kept", metavar="SHARE|max", type=_share,
                    help="choose thresholds so that each malicious source held out of training keeps SHARE of its "
                         "in-sample recall at both levels ('max': the best share reachable, the frontier)")
    ap.add_argument("--loso-operating-point", action="store_true",
                    help="with --loso: also hold each retrained model at the shipped model's wild decision counts")
    ap.add_argument("--loso-refit", action="store_true",
                    help="also run the whole training procedure without each malicious source (weights and "
                         "thresholds) and report its recall")
    ap.add_argument("--max-wild-refuse", type=int,
                    help="with --loso-kept: at most this many wild refusals (default: no cap)")
    ap.add_argument("--frontier", action="store_true",
                    help="also print the best wild rates at lower dev refuse-recall floors, and without the variant suite")
    args = ap.parse_args(argv)
    labels = {}
    for line in args.labels.read_text(encoding="utf-8").splitlines():
        if line.strip():
            rec = json.loads(line)
            labels[rec["id"]] = rec
    dev = {i: from_record(r) for i, r in sorted(json.loads(args.dev.read_text()).items())}
    wild = {i: from_record(r) for i, r in sorted(json.loads(args.wild.read_text()).items())}
    raw = json.loads(args.variants.read_text()) if args.variants else record_variants()
    variants = {i: from_record(r) for i, r in sorted(raw.items())}
    without = tuple(sorted(set(args.without)))
    doc = train(dev, labels, wild, steps=args.steps, l2=args.l2, without=without)
    floors = {"refuse_recall": args.floor_refuse_recall, "refuse_fpr": args.max_refuse_fpr,
              "review_recall": args.floor_review_recall, "wild_review": args.wild_review_target}
    held = held_out_models(dev, labels, wild, steps=args.steps, l2=args.l2, without=without) \
        if args.loso or args.loso_kept or args.loso_refit else None
    chosen = choose_thresholds(doc, dev, labels, wild, variants, floors, held=held if args.loso_kept else None,
                               kept=None if args.loso_kept in (None, "max") else float(args.loso_kept),
                               max_wild_refuse=args.max_wild_refuse)
    doc["thresholds"] = chosen["thresholds"]
    args.out.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in chosen.items()}, sort_keys=True))
    if args.loso:
        for point in (False, True) if args.loso_operating_point else (False,):
            for src, row in loso(doc, dev, labels, wild, steps=args.steps, l2=args.l2, held=held,
                                 operating_point=point).items():
                a, b = row["refuse"], row["review_or_refuse"]
                at = " at the same wild operating point " + json.dumps(row["thresholds"], sort_keys=True) if point else ""
                print(f"held out {src}{at}: {row['items']} items; refuse in/held/kept {a['in_sample']:.1%} "
                      f"{a['held_out']:.1%} {a['kept']:.0%}; review-or-refuse {b['in_sample']:.1%} "
                      f"{b['held_out']:.1%} {b['kept']:.0%}")
    if args.loso_refit:
        for src, row in loso_refit(doc, dev, labels, wild, variants, floors, steps=args.steps, l2=args.l2,
                                   held=held).items():
            a, b = row["refuse"], row["review_or_refuse"]
            print(f"held out {src}, refitted {json.dumps(row['thresholds'], sort_keys=True)}, wild refuse "
                  f"{row['wild_refuse']} review-or-refuse {row['wild_review_or_refuse']}: {row['items']} items; "
                  f"refuse in/held/kept {a['in_sample']:.1%} {a['held_out']:.1%} {a['kept']:.0%}; review-or-refuse "
                  f"{b['in_sample']:.1%} {b['held_out']:.1%} {b['kept']:.0%}")
    if args.frontier:
        for row in frontier(doc, dev, labels, wild, variants, floors):
            print(json.dumps(row, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
