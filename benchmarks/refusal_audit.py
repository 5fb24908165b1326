"""Which refusals of an unlabelled sample rest on evidence of malice, judged by a program over findings only.

    python benchmarks/refusal_audit.py --corpus ../shared/data/security/wild/wild.tar.gz --record wild.json

The archives are hostile text: this prints item ids, rule ids, line numbers, counts and derived booleans,
never a host, a URL or a line. ``--record`` is a ``scan_decisions.py record`` file of the same corpus (the
shipped decisions); the refused items are grouped by why they refuse:

* ``hard``: a hard technique rule (second_stage.json ``hard_rules``) refuses;
* ``two-families``: refusing rules of two or more rule families;
* ``single-soft``: one soft rule family refuses (the score kept it at refuse).

For every download-and-run finding (NV-EXEC-001/003) of the single-soft group the item is classified again
and each fetch is described by booleans about what the skill declares: whether the host is on the vendor
list, names a binary the metadata requires or a tool its own steps run, a word of its name or description,
a host or code-host owner its frontmatter names; whether the SKILL.md names the host's service throughout;
whether the URL is HTTPS and its path looks like an installer; whether risky or paste-to-terminal signals
are present. ``--json`` prints the same as one object.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any


def load_items(archive: bytes) -> dict[str, list[tuple[str, bytes]]]:
    """The benchmark's archive reader (benchmarks/security.py), loaded by path: a ``security`` package elsewhere on
    the path (the tests') must not shadow it."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("security_bench", Path(__file__).resolve().parent / "security.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.load_items(archive)

INSTALLER_PATH = re.compile(r"(?i)/(?:[\w.-]*install[\w.-]*|get[\w.-]*|setup[\w.-]*)(?:\.sh|\.ps1|\.py)?/?(?:[?#].*)?$")


def _family(rule_id: str) -> str:
    return rule_id.rsplit("-", 1)[0]


def _refusing(rec: dict[str, Any]) -> list[str]:
    return sorted({f.split(":")[0] for f in rec["findings"] if f.split(":")[1] == "refuse"})


def group(rec: dict[str, Any], hard: set[str]) -> str:
    rules = _refusing(rec)
    if set(rules) & hard:
        return "hard"
    if len({_family(r) for r in rules}) >= 2:
        return "two-families"
    return "single-soft"


def _path(url: str) -> str:
    rest = url.split("://", 1)[-1]
    return "/" + rest.split("/", 1)[1] if "/" in rest else "/"


def _registered_label(host: str) -> str:
    parts = host.split(".")
    return parts[-2] if len(parts) >= 2 else ""


def _repo_words(url: str) -> set[str]:
    segs = _path(url).strip("/").split("/")[:2]
    return {w for seg in segs for w in re.split(r"[^a-z0-9]+", seg.lower()) if len(w) >= 3}


def _file_words(url: str) -> set[str]:
    last = _path(url).rstrip("/").rsplit("/", 1)[-1]
    return {w for w in re.split(r"[^a-z0-9]+", last.lower()) if len(w) >= 3}


def _all_path_words(url: str) -> set[str]:
    return {w for w in re.split(r"[^a-z0-9]+", _path(url).lower()) if len(w) >= 2} - {"sh", "install", "main", "master"}


def _labels(host: str) -> list[str]:
    from nervous_plugins.review_policy.classifier import GENERIC_WORDS

    return [x for x in host.split(".")[:-1] if len(x) >= 3 and x not in GENERIC_WORDS]


def describe_fetches(files: list[tuple[str, bytes]], item_id: str) -> list[dict[str, Any]]:
    """Booleans about each refusing NV-EXEC-001/003 finding of one item (no text leaves this function)."""
    from nervous_plugins.review_policy import classifier as cl
    from nervous_plugins.review_policy.indicators import PASTE_HOSTS
    from nervous_plugins.review_policy.text import URL_RE, host_matches

    from nervous.kernel.records import ScanContext, SkillBundle, SkillFile, SkillRef
    from nervous.kernel.sideeffects import normalize_host

    seen: dict[str, Any] = {}

    class Capture(cl.Classifier):
        def _combine(self, c: Any, bundle: Any) -> None:
            super()._combine(c, bundle)
            seen["c"], seen["bundle"] = c, bundle

    k = Capture()
    bundle = SkillBundle(ref=SkillRef(item_id), files=tuple(SkillFile(p, d) for p, d in sorted(files)))
    k.classify(bundle, ScanContext(purpose="install"))
    c, bundle = seen["c"], seen["bundle"]
    skill = bundle.skill_md
    skill_text = URL_RE.sub(" ", skill.text() or "").lower() if skill is not None else ""
    steps = {t.split(":", 1)[1] for t in c.tags if t.startswith("shell:")} - cl.INSTALL_PLUMBING - cl.GENERIC_WORDS
    body = URL_RE.sub(" ", "\n".join(f.text() or "" for f in bundle.files)).lower()
    name_words = {w for w in re.split(r"[^a-z0-9]+", c.skill_name) if len(w) >= 3} - cl.GENERIC_WORDS
    out = []
    for h in c.hits:
        if h.rule_id not in ("NV-EXEC-001", "NV-EXEC-003") or h.action is not None:
            continue
        urls = h.evidence.get("urls", []) or [f"https://{x}/" for x in h.evidence.get("hosts", []) if x]
        hosts = [normalize_host(u) for u in urls]
        out.append({
            "rule": h.rule_id, "line": h.line, "in_skill_md": skill is not None and h.file == skill.path,
            "urls": len(urls),
            "https": bool(urls) and all(u.lower().startswith("https://") for u in urls),
            "raw_ip": any(cl.ip_kind(x) is not None for x in hosts),
            "paste_host": any(host_matches(x, u, PASTE_HOSTS) for x, u in zip(hosts, urls, strict=False)),
            "vendor_list": bool(urls) and all(host_matches(x, u, k.vendor_hosts) for x, u in zip(hosts, urls, strict=False)),
            "host_names_required_bin": bool(urls) and all(k._coherent_host(u, c.bins) for u in urls),
            "host_names_own_step": bool(urls) and all(k._coherent_host(u, steps) for u in urls),
            "host_names_skill_name": bool(urls) and all(k._coherent_host(u, name_words) for u in urls),
            "host_names_subject": bool(urls) and all(k._coherent_host(u, c.subject) for u in urls),
            "service_named_3x": bool(urls) and all(k._service_named(u, skill_text) for u in urls),
            "declared_host": bool(urls) and all(any(x == d or x.endswith("." + d) for d in c.declared_hosts) for x in hosts),
            "code_host": any(x in cl.CODE_HOSTS for x in hosts),
            "declared_owner": bool(urls) and all(cl._code_owner(u) in c.declared_owners for u in urls),
            "installer_path": bool(urls) and all(INSTALLER_PATH.search(_path(u)) for u in urls),
            "registered_label_named_in_skill_md": bool(urls) and all(_registered_label(x) and re.search(
                rf"\b{re.escape(_registered_label(x))}\b", skill_text) for x in hosts),
            "registered_label_is_declared_tool": bool(urls) and all(_registered_label(x) in (c.bins | steps) for x in hosts),
            "registered_label_in_subject": bool(urls) and all(_registered_label(x) in c.subject for x in hosts),
            "code_repo_names_declared_tool": bool(urls) and all(x in cl.CODE_HOSTS and bool(_repo_words(u) & (c.bins | steps))
                                                                for x, u in zip(hosts, urls, strict=False)),
            "code_repo_names_subject": bool(urls) and all(x in cl.CODE_HOSTS and bool(_repo_words(u) & c.subject)
                                                          for x, u in zip(hosts, urls, strict=False)),
            "file_names_declared_tool": bool(urls) and all(bool(_file_words(u) & (c.bins | steps)) for u in urls),
            "path_names_declared_tool": bool(urls) and all(bool(_all_path_words(u) & (c.bins | steps)) for u in urls),
            "path_names_subject": bool(urls) and all(bool(_all_path_words(u) & c.subject) for u in urls),
            "any_label_named_in_bundle": bool(urls) and all(any(
                re.search(rf"\b{re.escape(lab)}\b", body) for lab in _labels(x)) for x in hosts),
            "any_label_named_3x_in_bundle": bool(urls) and all(any(
                len(re.findall(rf"\b{re.escape(lab)}\b", body)) >= 3 for lab in _labels(x)) for x in hosts),
            "steps": len(steps),
            "pipe_to_shell": bool(re.search(r"\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:ba|z|da)?sh\b", h.snippet)),
            "pipe_to_interpreter": bool(re.search(r"\|\s*(?:sudo\s+)?(?:python[23]?|node|perl|ruby|php)\b", h.snippet)),
            "powershell_iex": bool(re.search(r"(?i)\biex\b|invoke-expression", h.snippet)),
            "runs_app_installer": bool(re.search(r"(?i)hdiutil|installer\s+-pkg|msiexec|\.dmg|\.pkg|\.msi|\.deb|\.rpm", h.snippet)),
            "sudo": "sudo" in h.snippet,
            "variable_in_command": "$" in h.snippet or "%" in h.snippet,
            "risky_same_file": any(r.rule_id in ("NV-SUPPLY-004", "NV-SUPPLY-005") and r.file == h.file for r in c.hits),
            "risky_same_line": any(r.rule_id in ("NV-SUPPLY-004", "NV-SUPPLY-005") and r.file == h.file
                                   and r.line == h.line for r in c.hits),
            "requires_bins": len(c.bins), "risky_hosts": bool({"NV-SUPPLY-004", "NV-SUPPLY-005"} & c.rule_ids()),
            "terminal_paste": c.has("terminal_paste"), "security_tool": c.security_tool,
        })
    return out


def fetch_evidence(fetches: list[dict[str, Any]]) -> str:
    """The strongest technique evidence among an item's refusing downloads (spec §9.2 shapes first)."""
    if any(f["raw_ip"] or f["paste_host"] for f in fetches):
        return "raw-ip-or-paste-host"
    if any(f["urls"] == 0 for f in fetches):
        return "host-not-resolvable"
    if any(not f["https"] for f in fetches):
        return "plain-http"
    if any(f["variable_in_command"] or f["pipe_to_interpreter"] or f["powershell_iex"] for f in fetches):
        return "undeclared-host-via-interpreter-or-variable"
    return "undeclared-https-host"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", required=True, type=Path)
    ap.add_argument("--record", required=True, type=Path, help="scan_decisions.py record of the same corpus")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    from nervous_plugins.review_policy import second_stage

    data = json.loads(Path(second_stage.__file__).with_name("second_stage.json").read_text())
    hard = set(data["hard_rules"])
    rec = json.loads(args.record.read_text())
    refused = sorted(i for i, r in rec.items() if r["decision"] == "refuse")
    groups = {i: group(rec[i], hard) for i in refused}
    items = load_items(args.corpus.read_bytes())
    fetches = {i: describe_fetches(items[i], i) for i in refused if groups[i] == "single-soft"
               and set(_refusing(rec[i])) & {"NV-EXEC-001", "NV-EXEC-003"}}
    evidence = {i: fetch_evidence(f) for i, f in fetches.items()}
    result = {"refused": len(refused),
              "single_soft_fetch_evidence": {e: sum(v == e for v in evidence.values()) for e in sorted(set(evidence.values()))},
              "single_soft_other_rules": {r: sum(groups[i] == "single-soft" and i not in fetches and _refusing(rec[i]) == [r]
                                                 for i in refused)
                                          for r in sorted({x for i in refused if groups[i] == "single-soft" and i not in fetches
                                                           for x in _refusing(rec[i])})},
              "groups": {g: sum(v == g for v in groups.values()) for g in ("hard", "two-families", "single-soft")},
              "items": {i: {"group": groups[i], "refusing": _refusing(rec[i]), "fetches": fetches.get(i, []),
                            "fetch_evidence": evidence.get(i)}
                        for i in refused}}
    if args.json:
        print(json.dumps(result, indent=1, sort_keys=True))
        return 0
    print(f"refused: {result['refused']}  " + "  ".join(f"{g} {n}" for g, n in result["groups"].items()))
    print("single-soft downloads by evidence: " + "  ".join(f"{k} {v}" for k, v in result["single_soft_fetch_evidence"].items()))
    print("single-soft other rules: " + "  ".join(f"{k} {v}" for k, v in result["single_soft_other_rules"].items()))
    for i, r in result["items"].items():
        print(f"{i} {r['group']} {' '.join(r['refusing'])}" + (f" [{r['fetch_evidence']}]" if r["fetch_evidence"] else ""))
        for f in r["fetches"]:
            flags = " ".join(k for k, v in f.items() if v is True)
            print(f"    {f['rule']} L{f['line']} urls={f['urls']} bins={f['requires_bins']} {flags}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
