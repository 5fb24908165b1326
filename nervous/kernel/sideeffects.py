"""Side-effect vocabulary: tag grammar, classes, icons, MCP hints and install-context risk.

Pure functions over tags and flags (``specs/security.md`` §2–§6). Engines that only need to reason
about stored tags (the cortex's reflex test, the acquisition plan's icons, the evolver's derived risk)
use these without loading any classifier.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

#: Side-effect classes, in display order (most severe first).
CLASS_ORDER: tuple[str, ...] = (
    "destructive",
    "shell",
    "sensitive_credentials",
    "write",
    "network",
    "read_only",
)

ICONS: dict[str, str] = {
    "destructive": "\U0001f534",
    "shell": "\u2699\ufe0f",
    "sensitive_credentials": "\U0001f511",
    "write": "\U0001f7e1",
    "network": "\U0001f310",
    "read_only": "\U0001f7e2",
}

FLAGS: tuple[str, ...] = (
    "persistence",
    "obfuscation",
    "remote_instructions",
    "prompt_injection_exposure",
    "autonomy",
    "network_send",
    "financial",
    "privileged",
    "incomplete",
)

TAG_KINDS: tuple[str, ...] = ("read", "write", "delete", "shell", "network")

#: Wildcards a class collapses to when it has too many tags (§3).
WILDCARDS: dict[str, str] = {"shell": "shell:*", "network": "network:*", "write": "write:?", "delete": "delete:?"}
MAX_TAGS_PER_KIND = 64

#: Tags added when content cannot be classified (§4).
ASSUME_WORST: tuple[str, ...] = ("delete:?", "network:*", "shell:*", "write:?")

#: Prefixes that keep a candidate out of reflex (skill-cortex reflex rule).
NON_REFLEX_PREFIXES: tuple[str, ...] = ("write:", "delete:", "shell:")

SECRET_ENV_RE = re.compile(r"(?i)(KEY|TOKEN|SECRET|PASSW|PWD|PASS|CRED|AUTH|PRIVATE|SESSION|COOKIE|BEARER|OAUTH)")

#: Credential locations (§5.2), matched against lower-cased, ``~``-normalised paths.
_CREDENTIAL_PATH_RE = re.compile(
    r"""(?ix)
    (?:^|[/\\~])\.ssh(?:[/\\]|$)
    | id_(?:rsa|dsa|ecdsa|ed25519)(?!\.pub|[\w-])
    | \.pem$ | \.key$ | \.p12$ | \.pfx$
    | \.aws[/\\](?:credentials|config)
    | \.config[/\\]gcloud
    | (?:^|[/\\~])\.azure(?:[/\\]|$)
    | \.kube[/\\]config
    | \.docker[/\\]config\.json
    | (?:^|[/\\~])\.(?:netrc|npmrc|pypirc|git-credentials)$
    | (?:^|[/\\~])\.gnupg(?:[/\\]|$)
    | (?:^|[/\\~])\.env(?:\.[\w.-]+)?$
    | ^/etc/(?:shadow|gshadow|sudoers)
    | login\ data | (?:^|[/\\])cookies(?:\.sqlite)?$ | logins\.json | key[34]\.db
    | library[/\\]keychains
    | wallet\.dat | (?:^|[/\\])(?:metamask|phantom|exodus|electrum|solflare)(?:[/\\]|$)
    | \.(?:openclaw|clawdbot)[/\\](?:openclaw\.json|clawdbot\.json|\.env|credentials|auth[\w.-]*|secrets?|identity)
    """
)


# ----------------------------------------------------------------------------------------- tags


def normalize_tag(tag: str) -> str:
    """Canonical spelling of one tag: kinds and qualifiers lower-case, env names keep their case."""
    tag = tag.strip()
    kind, sep, rest = tag.partition(":")
    kind = kind.lower()
    if not sep or kind not in TAG_KINDS:
        raise ValueError(f"invalid side-effect tag {tag!r}: expected one of {', '.join(TAG_KINDS)} + ':'")
    if kind == "read" and rest[:4].lower() == "env:":
        return f"read:env:{rest[4:]}"
    if kind == "network":
        rest = normalize_host(rest)
    elif kind == "shell":
        rest = rest.split()[0].lower() if rest.strip() else "*"
    else:
        rest = rest.lower()
    return f"{kind}:{rest}"


def normalize_host(host: str) -> str:
    """``https://User@API.Example.com:443/x`` → ``api.example.com``; empty → ``*``."""
    h = host.strip().lower()
    h = re.sub(r"^[a-z][a-z0-9+.-]*://", "", h)
    h = h.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]
    h = h.rsplit("@", 1)[-1]
    if h.startswith("["):
        h = h[1:].split("]", 1)[0]
    elif h.count(":") == 1:
        h = h.split(":", 1)[0]
    h = h.strip(".")
    return h or "*"


def normalize_tags(tags: Iterable[str]) -> tuple[str, ...]:
    """Deduplicated, sorted by code point, each kind collapsed to its wildcard past 64 tags."""
    clean = {normalize_tag(t) for t in tags}
    out: set[str] = set()
    for kind in TAG_KINDS:
        mine = {t for t in clean if t.startswith(kind + ":")}
        if len(mine) > MAX_TAGS_PER_KIND and kind in WILDCARDS:
            mine = {WILDCARDS[kind]}
        out |= mine
    return tuple(sorted(out))


def is_secret_env(name: str, primary_env: str | None = None) -> bool:
    return bool(SECRET_ENV_RE.search(name)) or (primary_env is not None and name == primary_env)


def is_credential_path(path: str) -> bool:
    p = path.strip().strip("\"'").replace("$HOME", "~").replace("${HOME}", "~")
    if p.endswith(".pub"):  # a public key is meant to be shared
        return False
    return bool(_CREDENTIAL_PATH_RE.search(p))


# ------------------------------------------------------------------------------------- classes


def classes_of(tags: Iterable[str], *, primary_env: str | None = None, complete: bool = True) -> list[str]:
    """Every class the tags imply, in display order (§3 "class from tags")."""
    found: set[str] = set()
    for tag in tags:
        kind, _, rest = tag.partition(":")
        if kind == "delete":
            found.add("destructive")
        elif kind == "write":
            found.add("write")
        elif kind == "shell":
            found.add("shell")
        elif kind == "network":
            found.add("network")
        elif kind == "read":
            sub, _, value = rest.partition(":")
            if sub == "secret" or (sub == "file" and is_credential_path(value)):
                found.add("sensitive_credentials")
            elif sub == "env" and is_secret_env(value, primary_env):
                found.add("sensitive_credentials")
    if complete and not found & {"destructive", "write", "shell"}:
        found.add("read_only")
    return [c for c in CLASS_ORDER if c in found]


def icons_of(classes: Iterable[str]) -> str:
    wanted = set(classes)
    return "".join(ICONS[c] for c in CLASS_ORDER if c in wanted)


def reflex_eligible(tags: Iterable[str]) -> bool:
    """The cortex reflex rule: no tag starting with ``write:``, ``delete:`` or ``shell:``."""
    return not any(t.startswith(NON_REFLEX_PREFIXES) for t in tags)


def mcp_hints(tags: Iterable[str], flags: Iterable[str] = (),
              shell_tiers: Mapping[str, str] | None = None) -> dict[str, bool]:
    """Derived MCP annotation hints (§6); ``incomplete`` assumes the worst like MCP's defaults."""
    tags = list(tags)
    incomplete = "incomplete" in set(flags)
    read_only = reflex_eligible(tags) and not incomplete
    destructive_cmd = any(tier in ("RISKY", "DANGEROUS") and cmd in _DESTRUCTIVE_RISKY
                          for cmd, tier in (shell_tiers or {}).items())
    return {
        "readOnlyHint": read_only,
        "destructiveHint": any(t.startswith("delete:") for t in tags) or destructive_cmd or incomplete,
        "idempotentHint": read_only,
        "openWorldHint": any(t.startswith("network:") for t in tags) or incomplete,
    }


_DESTRUCTIVE_RISKY = frozenset({"rm", "rmdir", "dd", "mkfs", "kill", "pkill", "kubectl", "terraform"})

# ------------------------------------------------------------------------------------ risk level

__all__ = [
    "ASSUME_WORST",
    "CLASS_ORDER",
    "FLAGS",
    "ICONS",
    "classes_of",
    "icons_of",
    "is_credential_path",
    "is_secret_env",
    "mcp_hints",
    "normalize_host",
    "normalize_tag",
    "normalize_tags",
    "reflex_eligible",
]
