"""The review policy's risk scoring: install-context blast radius from the combined side effects.

This is policy, not vocabulary: another review policy may weigh the same side effects differently.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from nervous.plugin.toolkit import classes_of

_HIGH_FLAGS = frozenset({"privileged", "persistence", "financial"})


def risk_level(tags: Iterable[str], flags: Iterable[str] = (), shell_tiers: Mapping[str, str] | None = None,
               *, primary_env: str | None = None) -> str:
    """Install-context risk (§2): high / medium / low, with the assume-worst tags counting as real."""
    tags = list(tags)
    flag_set = set(flags)
    tiers = set((shell_tiers or {}).values())
    classes = set(classes_of(tags, primary_env=primary_env, complete="incomplete" not in flag_set))
    if "destructive" in classes or tiers & {"RISKY", "DANGEROUS"} or flag_set & _HIGH_FLAGS:
        return "high"
    if "shell:*" in tags:
        return "high"
    if classes & {"write", "sensitive_credentials"} or "network_send" in flag_set or "CAUTION" in tiers:
        return "medium"
    if "shell" in classes:
        return "medium"
    return "low"


def risk_reasons(tags: Iterable[str], flags: Iterable[str] = (), shell_tiers: Mapping[str, str] | None = None,
                 *, primary_env: str | None = None) -> list[str]:
    """Short human reasons behind :func:`risk_level`."""
    tags = list(tags)
    flag_set = set(flags)
    classes = classes_of(tags, primary_env=primary_env, complete="incomplete" not in flag_set)
    out = [f"class {c}" for c in classes if c != "read_only"]
    for cmd, tier in sorted((shell_tiers or {}).items()):
        if tier in ("RISKY", "DANGEROUS"):
            out.append(f"{tier} shell command {cmd}")
    out += [f"flag {f}" for f in sorted(flag_set)]
    return out
