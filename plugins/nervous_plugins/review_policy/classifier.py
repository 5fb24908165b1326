"""The built-in classifier: runs every detector over a bundle and applies the bundle-wide rules.

Deterministic and static: same bundle and context, same result. Nothing in the bundle is executed,
imported or followed.
"""

from __future__ import annotations

import bisect
import ipaddress
import operator
import re
from collections.abc import Iterable
from itertools import accumulate, count
from typing import Any

import attrs

from nervous.plugin import Finding, ScanContext, SideEffects, SkillBundle, SkillFile
from nervous.plugin.toolkit import (
    ASSUME_WORST,
    classes_of,
    is_credential_path,
    normalize_host,
    normalize_tags,
)

from . import file_techniques, prose, rx, shell
from .catalogue import BY_ID
from .collector import Collector, Hit
from .indicators import (
    CAMPAIGN_INDICATORS,
    KNOWN_COMMANDS,
    PASTE_HOSTS,
    SHELL_TIERS,
    VENDOR_INSTALLER_HOSTS,
    WEBHOOK_HOSTS,
)
from .memo import remember_short
from .text import (
    ARCHIVE_EXT,
    BINARY_CODE_EXT,
    DATA_EXT,
    HTML_EXT,
    INERT_BINARY_EXT,
    INLINE_CODE_RE,
    JS_EXT,
    JS_LANGS,
    MARKDOWN_EXT,
    MARKDOWN_ONLY_EXT,
    OTHER_CODE_EXT,
    PLAIN_LANGS,
    PYTHON_EXT,
    PYTHON_LANGS,
    SHELL_EXT,
    SHELL_LANGS,
    URL_RE,
    Line,
    ext_of,
    host_matches,
    ip_kind,
    is_quoted,
    markdown_lines,
    plain_text,
    snippet,
)

MAX_HITS_PER_RULE_PER_FILE = 10
RULE_FLAGS = {"NV-PERSIST-": "persistence", "NV-OBF-": "obfuscation", "NV-REMOTE-001": "remote_instructions",
              "NV-AUTO-": "autonomy", "NV-FIN-001": "financial", "NV-PRIV-001": "privileged"}

HIDDEN_UNICODE = rx.compile("[\U000e0000-\U000e007f\u200b-\u200f\u2060-\u2064\ufeff\u202a-\u202e\u2066-\u2069]")
#: zero-width characters: alone they hide nothing; in runs they can encode bits
ZERO_WIDTH = frozenset("\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff")
#: at most this many of them, none next to another, in a file are strays (review), not a hidden message
STRAY_ZERO_WIDTH = 4
B64_BLOB = rx.compile(r"[A-Za-z0-9+/]{200,}={0,2}|[0-9a-fA-F]{200,}")
HTML_COMMENT = rx.compile(r"<!--(.*?)-->", re.S)
COMMENT_INSTRUCTION = rx.compile(
    r"(?i)\b(?:you\s+(?:must|should|will|are)|ignore|always|never|do\s+not|don'?t|execute|run\s|send|upload|"
    r"read\s|fetch|curl|wget|assistant|agent|AI\b|instructions?|important|system|secretly|silently|"
    r"the\s+user|override|forget|password|token|api[_ ]?key)"
)
HIDDEN_DIRECTIVE = rx.compile(
    r"(?i)\b(?:you|assistant|agent|ai|model|claude|llm)\b|^\s*(?:always|never|do\s+not|don'?t|first|before|after|"
    r"when|make\s+sure|ensure|remember|note|important|instruction|system)\b|\b(?:must|should|shall)\s+\w+",
    re.M)
HIDDEN_RISKY = rx.compile(
    r"(?i)https?://|hxxps?://|\b\d{1,3}(?:\.\d{1,3}){3}\b|\b(?:curl|wget|bash|sh\s+-c|eval|exec|sudo|chmod|rm\s+-|"
    r"powershell|base64|nc\s)\b|\b(?:send|upload|post|forward|transmit|exfiltrat\w*|email|copy)\b(?:[^.\n]|\.(?=\S)){0,80}\b(?:to|into)\b"
    r"|\b(?:read|cat|collect|include|copy)\b(?:[^.\n]|\.(?=\S)){0,40}\b(?:api[_ -]?keys?|passwords?|credentials?|private\s+keys?|"
    r"\.env\b|\.ssh|ssh\s+keys?|environment\s+variables|cookies|wallet|seed\s+phrase|\.aws|\.kube|\.openclaw|"
    r"\.git-credentials|\.netrc|id_rsa|id_ed25519)"
    r"|\b(?:install|download|execute|run)\s+(?:\S+\s+){0,4}(?:package|script|binary|command|payload|from)\b"
    r"|\b(?:ignore|override|disregard)\s+(?:all\s+|any\s+|the\s+|previous\s+|prior\s+|your\s+)+\w+"
    r"|\b(?:do\s+not|don'?t|never)\s+(?:tell|mention|inform|show|reveal)\b(?:[^.\n]|\.(?=\S)){0,30}\buser"
)
SECRET_LITERAL = rx.compile(
    r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b|\bghp_[A-Za-z0-9]{36}\b|\bgithub_pat_[A-Za-z0-9_]{40,}|\bgh[ousr]_[A-Za-z0-9]{36}\b"
    r"|\bxox[abprs]-[A-Za-z0-9-]{10,}|\bsk-(?:proj-|ant-(?:api\d+-)?|live_)?[A-Za-z0-9_-]{32,}|\bsk_live_[A-Za-z0-9]{20,}"
    r"|-----BEGIN (?:RSA |EC |OPENSSH |DSA |PGP |ENCRYPTED )?PRIVATE KEY-----|\bclh_[A-Za-z0-9]{20,}"
    r"|\bAIza[0-9A-Za-z_-]{35}\b|\bglpat-[A-Za-z0-9_-]{20}\b|\bnpm_[A-Za-z0-9]{36}\b|\bpypi-[A-Za-z0-9_-]{50,}"
    r"|\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b|\bhf_[A-Za-z0-9]{34}\b"
)
#: base64 (standard or URL-safe) and hex literals long enough to hide a URL or a command
ENCODED_LITERAL = rx.compile(r"(?<![A-Za-z0-9+/_=-])(?:[A-Za-z0-9+/]{16,}={0,2}|[A-Za-z0-9_-]{16,}={0,2}|"
                             r"(?:[0-9a-fA-F]{2}){12,})(?![A-Za-z0-9+/_=-])")
DECODED_URL = rx.compile(r"(?i)\b(?:https?|ftp|wss?)://[\w.-]+")
DECODED_COMMAND = rx.compile(
    r"(?i)\b(?:curl|wget)\s+\S|\|\s*(?:ba|z)?sh\b|\b(?:ba|z)?sh\s+-[ci]\b|/dev/tcp/|\bnc\s+-[a-z]*e\b|"
    r"\b(?:powershell|pwsh)(?:\.exe)?\s+-|\bpython[23]?\s+-c\b|\bchmod\s+\+x\b|\brm\s+-rf\s|\beval\s*\(|"
    r"\bexec\s*\(|\bos\.system\s*\(|\bsubprocess\.|Invoke-(?:Expression|WebRequest)|\biex\b")
#: an inline image right before an encoded literal: ``data:image/svg+xml;base64,`` (also URL-escaped in a badge)
DATA_URI_IMAGE = rx.compile(r"(?i)data:image/[\w.+-]+(?:;|%3b)base64(?:,|%2c)$")
PLACEHOLDER = rx.compile(r"(?i)x{4,}|your|example|placeholder|dummy|fake|test|sample|redacted|\*{3,}|\.\.\.|<|0{8,}|1234")
LOOKALIKE_TARGETS = ("clawhub", "openclaw", "clawdbot", "clawdhub", "moltbot", "claude", "anthropic", "github",
                     "openai", "metamask", "phantom", "coinbase", "binance")
GENERIC_WORDS = {"get", "install", "installer", "cli", "download", "downloads", "raw", "githubusercontent", "github",
                 "com", "www", "dev", "app", "io", "sh", "org", "net", "releases", "release", "latest", "main",
                 "master", "script", "scripts", "the", "and", "for", "with", "tool", "tools", "skill", "use", "api",
                 "static", "cdn", "files", "assets", "public", "setup", "run", "bin", "http", "https", "your",
                 "this", "that", "from", "when", "using", "agent", "agents", "openclaw", "clawhub", "claude"}
SECRET_NAME_WORDS = {"api", "key", "keys", "token", "tokens", "secret", "access", "auth", "bearer", "client",
                     "private", "password", "pass", "pwd", "user", "app", "bot", "session", "cookie", "oauth",
                     "refresh", "id", "env", "the", "webhook", "url", "cred", "creds", "credentials", "account",
                     "sid", "live", "test", "prod", "dev", "default", "personal", "pat"}
#: a security tool says what it does (scan, audit, detect…) and what it looks for (malware, threats, secrets…);
#: one word such as "secure" or "safety" in a description is not enough
SECURITY_TOOL_ACTION = rx.compile(r"(?i)\b(?:scan\w*|audit\w*|vet|vetting|detect\w*|analy[sz]\w*|inspect\w*|lint\w*|"
                                  r"review\w*|check\w*|monitor\w*|guard\w*|sentinel|firewall|protect\w*|hunt\w*)\b")
SECURITY_TOOL_OBJECT = rx.compile(r"(?i)\b(?:security|malware|malicious|threat\w*|vulnerab\w*|injection|exploit\w*|"
                                  r"suspicious|backdoor\w*|secrets?|credential\w*|leak\w*|attack\w*|cve\w*|ioc\w*|"
                                  r"indicators?|risk\w*|unsafe|dangerous)\b")
NEWLINE = rx.compile("\n")
SHEBANG = rx.compile(r"^#!\s*(?:/usr/bin/env\s+(?:-S\s+)?)?(?:/\S*/)?(\w+)")


_PADDING = rx.compile(r"[ \t\u00a0\u3000]{200,}")
_BLANK_RUN = rx.compile(r"(?:\n[ \t]*){51,}")
#: a line that quotes a command as an example or a warning, not as a step to take
_SPAN_AS_EXAMPLE = rx.compile(r"(?i)\b(?:detect|flag|block|never|avoid|don'?t|do\s+not|malicious|dangerous|attack|pattern|"
                              r"e\.g\.|such\s+as|like|unsafe|risky|warn)")
#: a program handing command text to a shell (Python, Node, Java)
_RUNS_COMMAND_TEXT = rx.compile(r"\b(?:os\.(?:system|popen)|subprocess\.\w+|child_process\.\w+|execSync|spawnSync"
                                r"|Runtime\.getRuntime\(\)\.exec)\s*\(")
_STRING_LITERAL = rx.compile(r"'([^'\n]*)'|\"([^\"\n]*)\"")
#: a crontab entry: its schedule (five fields or an ``@`` word) and the command after it
_CRON_ENTRY = rx.compile(r"\s*(?:@(?:reboot|hourly|daily|weekly|monthly|yearly|annually)\s+|(?:[\d*/,-]+\s+){5})(\S.*)")
#: code that sends (Python, JavaScript, a shell's HTTP tools), and the path a read in code opens
_CODE_SENDS = rx.compile(r"\brequests\.(?:post|put|patch)\b|\burlopen\b|\bfetch\s*\(|\baxios\.(?:post|put)\b|"
                         r"\bhttps?\.request\b|\bcurl\s|\bwget\s")
_CODE_READ_PATH = rx.compile(r"\b(?:(?:open|read_text|read_bytes|readFileSync|readFile)\s*\(\s*(?:os\.path\.expanduser\(\s*)?"
                             r"|cat\s+)['\"]?([^'\"\s),;|]+)")
#: the whole-file expressions of :meth:`Classifier._generic` that seldom find anything, tried in one set pass
#: over the text first (one pass instead of six; the ones present are searched as before), and the gate of
#: :mod:`file_techniques`
_WHOLE_FILE = rx.Prefilter([HIDDEN_UNICODE, prose.SECRET_HANDLING, _PADDING, _BLANK_RUN, B64_BLOB, SECRET_LITERAL,
                           *file_techniques.SCREENED])

#: every campaign indicator at once, case-insensitive (see :func:`_may_hold_indicator`)
_CAMPAIGN_ANY = rx.compile("(?i)" + "|".join(re.escape(ind.lower()) for ind in CAMPAIGN_INDICATORS))
#: the only characters whose lower case holds an ASCII character without being one (U+0130 gives "i" and a
#: combining dot, the Kelvin sign "k")
_LOWERS_TO_ASCII = ("\u0130", "\u212a")


def _may_hold_indicator(text: str) -> bool:
    """Whether ``text.lower()`` may hold a lower-cased campaign indicator (all of them are ASCII).

    Without the two characters above, every ASCII character of the lower-cased text is an ASCII character
    of the text lower-cased in place, so an indicator there is one case-insensitively in the text (RE2's
    case folding is wider still); one search instead of lower-casing a large text and a find per indicator."""
    return any(ch in text for ch in _LOWERS_TO_ASCII) or _CAMPAIGN_ANY.search(text) is not None


#: the characters of :data:`ENCODED_LITERAL`'s look-arounds, in runs: each of its matches is one whole such run
_ENCODED_RUN = rx.compile(r"[A-Za-z0-9+/_=-]{16,}")


def may_hold_encoded(text: str) -> bool:
    """Whether some literal of ``text`` decodes to a URL, a command or an instruction (a screen before the
    ``re`` search of :data:`ENCODED_LITERAL` over the whole text, which pays for every long word).

    A match of that expression is bounded by characters outside its own on both sides, so it is a whole
    run of them; every such run of 16 or more is decoded here (each distinct one once). When none decodes,
    no match can either; when one does, the search runs as before."""
    return any(_decoded_kind(run) is not None for run in set(rx.match_texts(_ENCODED_RUN, text)))


_DIGITS = "0123456789"
_HEX_LETTERS = "abcdefABCDEF"
_HEX_DIGITS = frozenset(_DIGITS + _HEX_LETTERS)
_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_UPPER_OR_DIGIT = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ" + _DIGITS)


@remember_short(4096)
def _decoded_kind(token: str) -> str | None:
    """:func:`_decodes_to_url_or_command`, remembered (a pure function; skills repeat their identifiers)."""
    return _decodes_to_url_or_command(token)


def _decodes_to_url_or_command(token: str) -> str | None:
    """``url`` or ``command`` when a base64/hex literal decodes to readable text holding one (else None)."""
    import base64
    import binascii

    raw: bytes | None = None
    # hex: pairs of hex digits, not digits alone nor letters alone (set tests: a skill has thousands of runs)
    if token and len(token) % 2 == 0 and _HEX_DIGITS.issuperset(token) and token.strip(_DIGITS) \
            and token.strip(_HEX_LETTERS):
        try:
            raw = bytes.fromhex(token)
        except ValueError:
            raw = None
    if raw is None:
        if _LOWER.isdisjoint(token) or _UPPER_OR_DIGIT.isdisjoint(token):
            return None  # identifiers and words, not encodings
        padded = token + "=" * (-len(token) % 4)
        try:
            raw = base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
        except (binascii.Error, ValueError):
            return None
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if len(decoded) < 10 or sum(ch.isprintable() or ch in "\n\t\r" for ch in decoded) < 0.95 * len(decoded):
        return None
    if DECODED_URL.search(decoded):
        return "url"
    if DECODED_COMMAND.search(decoded):
        return "command"
    if prose.OVERRIDE.search(decoded) or prose.CONCEAL.search(decoded) or prose.EXFIL_INSTR.search(decoded) \
            or prose.REMOTE_INSTR.search(decoded):
        return "instruction"
    return None


@remember_short(4096)
def _url_kinds(url: str) -> tuple[str, str | None, str | None, str | None]:
    """A URL's host, IP kind, paste-site entry and webhook entry: pure functions of the URL, which a skill's
    files repeat (the same repository or API address in every file)."""
    host = normalize_host(url)
    return host, ip_kind(host), host_matches(host, url, PASTE_HOSTS), host_matches(host, url, WEBHOOK_HOSTS)


def _flagged_url(url: str) -> bool:
    """A raw public IP, a paste site or a webhook: the URLs the whole-file pass records (the others, nearly all,
    are screened out by their text alone, before any match is located)."""
    _host, ip, paste, hook = _url_kinds(url)
    return ip == "public" or bool(paste) or bool(hook)


#: a line that starts with a program's name and an argument (``acmecloud deploy --prod``, ``$ mytool init``)
_PROGRAM_RUN = rx.compile(r"\s*(?:\$\s+)?[a-z][a-z0-9._-]{1,40}\s+[-\w.:/=@~\\$\"']")


#: a code span written in HTML (``<code>``, ``<kbd>``, ``<samp>``, ``<tt>``) holding no backtick, on one line
_HTML_CODE_SPAN = rx.compile(r"(?i)<(?:code|kbd|samp|tt)>([^`\n]+?)</(?:code|kbd|samp|tt)>")


#: the closing tags such a span needs (a byte search that rules out nearly every file)
_HTML_CODE_CLOSE = (b"</code>", b"</kbd>", b"</samp>", b"</tt>", b"</CODE>", b"</KBD>")


def _as_shown(bundle: SkillBundle) -> SkillBundle:
    """The bundle with each text file as its reader sees it (:func:`plain_text`: no leading byte-order mark,
    every kind of space a plain one; in markdown, HTML code spans as backtick spans); the same bundle when no
    file changes.

    The hidden characters the checks look for are none of these, so they read the files this way too.
    """
    files = list(bundle.files)
    for i, f in enumerate(files):
        spans = any(tag in f.data for tag in _HTML_CODE_CLOSE) and f.path.lower().endswith(MARKDOWN_EXT)
        if f.data.isascii() and not spans:
            continue
        text = f.text()
        if text is None:
            continue
        shown = plain_text(text)
        if spans and _HTML_CODE_SPAN.search(shown):
            # a code span written in HTML reads as one in backticks (inside <pre> it is a block: left as it is)
            shown = _HTML_CODE_SPAN.sub(lambda m, t=shown: m.group(0) if t[max(0, m.start() - 5):m.start()].lower()
                                        == "<pre>" else f"`{m.group(1)}`", shown)
        if shown != text:
            files[i] = SkillFile(f.path, shown.encode("utf-8"))
    return bundle if files == list(bundle.files) else attrs.evolve(bundle, files=tuple(files))


def _visible_exception(text: str, i: int) -> bool:
    ch = text[i]
    prev = text[i - 1] if i > 0 else ""
    nxt = text[i + 1] if i + 1 < len(text) else ""
    if ch == "\u200d":  # zero-width joiner inside emoji sequences or joining scripts
        return ord(prev or " ") > 0x2000 or ord(nxt or " ") > 0x2000 or (prev + nxt).isalpha() and not (prev + nxt).isascii()
    if ch == "\u200c":
        return (prev + nxt).isalpha() and not (prev + nxt).isascii()
    if ch in "\u200e\u200f":
        return any("\u0590" <= x <= "\u08ff" for x in (prev, nxt))
    if ch == "\ufeff":
        return i == 0
    return False


#: commands an install line itself runs: they name no vendor
INSTALL_PLUMBING = frozenset({"curl", "wget", "bash", "sh", "zsh", "dash", "sudo", "env", "chmod", "tar", "unzip",
                              "python", "python3", "node", "perl", "ruby", "iex", "irm", "iwr", "powershell", "pwsh",
                              "install", "mkdir", "mv", "cp", "rm", "echo", "cat", "source", "export", "cd", "ls"})


#: secret stores read by command (``read:secret:<first word>``); other ``read:secret:`` tags are words about keys
SECRET_STORES = frozenset({"security", "secret-tool", "cmdkey", "vaultcmd", "keyring", "pass", "gpg", "op", "bw",
                           "lpass", "vault", "aws", "gcloud", "kubectl", "gh", "password-dialog"})
#: hosts that serve anybody's code: the repository path, not the host, says whose it is
CODE_HOSTS = frozenset({"raw.githubusercontent.com", "github.com", "gitlab.com", "codeberg.org"})



def line_starts(text: str) -> list[int]:
    """Offset of every line's first character (the offsets after each newline, and 0), computed in C:
    a large file has tens of thousands of lines and this runs for every file."""
    pieces = text.split("\n")
    return [0, *map(operator.add, accumulate(map(len, pieces[:-1])), count(1))]


class Classifier:
    """Static side-effect classifier; one instance is reusable and holds no per-bundle state."""

    def __init__(self, *, vendor_hosts: Iterable[str] = ()) -> None:
        self.vendor_hosts = tuple(VENDOR_INSTALLER_HOSTS) + tuple(vendor_hosts)

    # ------------------------------------------------------------------ entry point

    def classify(self, bundle: SkillBundle, context: ScanContext) -> SideEffects:
        c = Collector(purpose=context.purpose)
        bundle = _as_shown(bundle)
        skill = bundle.skill_md
        known_bins: set[str] = set()
        skill_name = None
        if skill is not None:
            skill_name, known_bins = self._frontmatter(c, skill)
        known = frozenset(known_bins)  # one frozen set: a per-line analysis keys on it without copying it
        for f in bundle.files:
            self._file(c, f, known, is_skill=f is skill)
        if skill is None:
            c.hit("NV-OBF-005", None, None, "no SKILL.md in the bundle", kind="no-skill-md")
        if skill_name:
            c.skill_name = str(skill_name).strip().lower()
            self._lookalike(c, skill, skill_name)
        self._combine(c, bundle)
        if context.purpose == "draft":
            self._draft_scope(c, bundle)
        return self._result(c, context)

    def _draft_scope(self, c: Collector, bundle: SkillBundle) -> None:
        """Evolver drafts stay inside the workspace and never send data (NV-SCOPE-*)."""
        for tag, (where, ln) in sorted(c.tags.items(), key=lambda kv: kv[0]):
            kind, _, target = tag.partition(":")
            if kind in ("write", "delete") and rx.match(r"^(?:/|~|\$home|\.\./|\.\.$)|/\.\./", target):
                c.hit("NV-SCOPE-001", where, ln, f"{kind} outside the workspace: {target}"[:200], target=target)
        for f in bundle.files:
            text = f.text() or ""
            m = rx.search(r"(?i)(?:~/\.openclaw/skills/|\.claude/skills/|(?<![\w.-])skills/(?!learned-)[\w.-]+/|"
                          r"/(?:usr|opt)/[\w/.-]*skills/)", text)
            if m:
                c.hit("NV-SCOPE-002", f.path, text.count("\n", 0, m.start()) + 1, snippet(m.group(0)))
        if "network_send" in c.flags:
            where, ln, _ = (c.facts.get("network_send") or [(None, None, "")])[0]
            c.hit("NV-SCOPE-003", where, ln, "the draft can upload or post data")

    # ------------------------------------------------------------------ SKILL.md frontmatter

    def _frontmatter(self, c: Collector, f: SkillFile) -> tuple[str | None, set[str]]:
        from nervous.plugin.toolkit import parse_skill_md

        path = f.path
        doc = parse_skill_md(f.data, max_bytes=max(len(f.data), 1))
        bins: set[str] = set()
        if doc.frontmatter_status in ("unparsable", "partial") or (doc.errors and doc.frontmatter_status != "missing"):
            if doc.frontmatter_status == "unparsable":
                self._assume_worst(c, path, 1, "unparsable frontmatter")
            elif doc.frontmatter_unread:  # valid YAML to the host agent, partly unread here: declarations unknown
                self._assume_worst(c, path, 1, f"frontmatter not read in full ({doc.frontmatter_unread})")
        meta = doc.security_metadata
        for b in (*meta.bins, *meta.any_bins):
            name = str(b).strip().split()[0].rsplit("/", 1)[-1].lower() if str(b).strip() else ""
            if name:
                bins.add(name)
                c.tag(f"shell:{name}", path, 1)
                c.tier(name, SHELL_TIERS.get(name, "CAUTION"))
        for e in meta.env:
            c.tag(f"read:env:{e}", path, 1)
            c.declared_env.add(str(e))
        if meta.primary_env:
            c.tag(f"read:env:{meta.primary_env}", path, 1)
            c.primary_env = meta.primary_env
            c.declared_env.add(str(meta.primary_env))
        for spec in meta.install:
            kind = str(spec.get("kind") or spec.get("type") or "installer").lower() if hasattr(spec, "get") else "installer"
            c.tag(f"shell:{kind.split()[0] if kind.strip() else 'installer'}", path, 1)
            c.tag("write:?", path, 1)
            c.tag("network:*", path, 1)
            url = str(spec.get("url") or spec.get("download") or "") if hasattr(spec, "get") else ""
            if url and URL_RE.search(url):
                c.tag(f"network:{normalize_host(url)}", path, 1)
        words = " ".join(str(x) for x in (doc.name or "", doc.description or "", *bins))
        about = f"{doc.name or ''} {doc.description or ''}"
        c.security_tool = bool(SECURITY_TOOL_ACTION.search(about) and SECURITY_TOOL_OBJECT.search(about))
        c.bins = {b for b in bins if len(b) >= 3} - GENERIC_WORDS
        c.subject = {w for w in rx.split(r"[^a-z0-9]+", words.lower()) if len(w) >= 3} - GENERIC_WORDS
        declared_urls = [u.group(0) for u in URL_RE.finditer(_plain(doc.frontmatter))]
        c.declared_hosts = {normalize_host(u) for u in declared_urls} - {"", "*"}
        # on a code host the owner in the path, not the host, says whose repository the frontmatter names
        c.declared_owners = {o for u in declared_urls if normalize_host(u) in CODE_HOSTS and (o := _code_owner(u))}
        # ... and the words of those repositories' owner and name: a vendor's site is named after them
        # (a repository "acme-sh/widget" declared, an installer from "acme.sh" or "widget.dev")
        c.declared_repo_words = {w for u in declared_urls if normalize_host(u) in CODE_HOSTS
                                 for seg in rx.sub(r"(?i)^https?://[^/]+/", "", u).split("/")[:2]
                                 for w in rx.split(r"[^a-z0-9]+", seg.lower()) if len(w) >= 4} - GENERIC_WORDS
        if meta.always:
            c.hit("NV-AUTO-001", path, _line_of(f, r"always\s*:"), "always: true")
        tools = doc.allowed_tools
        if any(rx.fullmatch(r"(?i)bash(?:\(\s*\*?\s*\))?|\*", t.strip(",")) for t in tools):
            c.hit("NV-AUTO-003", path, _line_of(f, r"allowed-tools"), "allowed-tools: " + " ".join(tools)[:150])
        if "hooks" in doc.frontmatter:
            c.hit("NV-AUTO-003", path, _line_of(f, r"^hooks\s*:"), "hooks declared in frontmatter")
        return doc.name, bins

    def _lookalike(self, c: Collector, f: SkillFile | None, name: str) -> None:
        n = name.lower()
        for target in LOOKALIKE_TARGETS:
            for part in {n, *rx.split(r"[-_.]", n)}:
                if part != target and abs(len(part) - len(target)) <= 2 and len(part) >= 5 and _edit(part, target) <= 2:
                    if part.replace("-", "") == target:
                        continue
                    c.hit("NV-SUPPLY-007", f.path if f else None, 1, f"name {name!r} resembles {target!r}",
                          target=target, part=part)
                    return

    # ------------------------------------------------------------------ files

    def _file(self, c: Collector, f: SkillFile, known: frozenset[str], *, is_skill: bool) -> None:
        ext = ext_of(f.path)
        data = f.data
        if _is_native_binary(data) or ext in BINARY_CODE_EXT:
            c.hit("NV-OBF-005", f.path, None, "compiled or binary file", kind="binary")
            self._assume_worst(c, f.path, None, "binary")
            return
        if _is_archive(data) or ext in ARCHIVE_EXT:
            if _zip_encrypted(data):
                c.hit("NV-SUPPLY-002", f.path, None, "encrypted archive entry", kind="encrypted-archive")
                c.fact("password_archive", f.path, None)
            c.hit("NV-OBF-005", f.path, None, "nested archive", kind="archive")
            self._assume_worst(c, f.path, None, "nested archive")
            return
        text = f.text()
        if text is None:
            if ext in INERT_BINARY_EXT:
                return
            c.hit("NV-OBF-005", f.path, None, "not UTF-8 text", kind="non-utf8")
            self._assume_worst(c, f.path, None, "non-utf8")
            return
        if ext in INERT_BINARY_EXT and ext not in (".svg",):
            return
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        file_techniques.analyze(c, f.path, text, self._generic(c, f.path, text, ext))
        first = text.split("\n", 1)[0]
        sb = SHEBANG.match(first)
        interp = sb.group(1).lower() if sb else ""
        if ext in SHELL_EXT or interp in ("sh", "bash", "zsh", "dash", "ksh"):
            c.tag(f"shell:{interp or 'bash'}", f.path, 1)
            c.tier(interp or "bash", "CAUTION")  # the script's own commands carry their tiers
            self._shell_script(c, f.path, text, known)
        elif ext in PYTHON_EXT or interp.startswith("python"):
            # the detectors of code are imported with the first file or block of their language: a skill of
            # instructions only never loads them (a fresh process's scan starts sooner)
            from . import pycode

            c.tag("shell:python", f.path, 1)
            if not pycode.analyze(c, f.path, text):
                self._fallback_lines(c, f.path, text, known)
            self._comment_lines(c, f.path, text, "#")
        elif ext in JS_EXT or interp in ("node", "deno", "bun"):
            from . import jscode

            if interp or f.path.startswith(("scripts/", "bin/", "tools/")) or "/scripts/" in f.path:
                c.tag("shell:node", f.path, 1)
            jscode.analyze(c, f.path, text)
            self._comment_lines(c, f.path, text, "//")
        elif ext in MARKDOWN_EXT or ext in HTML_EXT or ext == "":
            self._markdown(c, f.path, text, known, is_skill=is_skill)
            self._build_file_commands(c, f.path, text, known)
        elif ext in OTHER_CODE_EXT:
            c.hit("NV-OBF-005", f.path, None, f"script language without a detector ({ext})", kind="no-detector")
            self._assume_worst(c, f.path, None, "no detector")
            self._fallback_lines(c, f.path, text, known)
        elif ext in DATA_EXT or ext.startswith(".env"):
            scr = rx.Screen(text)
            # a configuration file's values that run a download: searched only on lines that pipe, substitute or
            # invoke something (one pass rules out most files)
            runs = _runs_commands(f.path, ext) and _MAY_RUN.search(text) is not None
            for i, line in enumerate(text.split("\n"), 1):
                if len(line) < 2000:
                    prose.analyze_line(c, f.path, i, line, in_code=True, screen=scr)
                    if runs and _MAY_RUN.search(line) and any(e.search(line) for e in _RUNS_IN_ANY_BLOCK):
                        for value in _config_values(line):
                            shell.analyze_line(c, f.path, i, value, known=known)
        else:
            self._markdown(c, f.path, text, known, is_skill=False)
            self._build_file_commands(c, f.path, text, known)  # (``app.dockerfile``)

    def _assume_worst(self, c: Collector, path: str | None, line: int | None, why: str) -> None:
        for t in ASSUME_WORST:
            c.tag(t, path, line)
        c.flags.add("incomplete")

    def _generic(self, c: Collector, path: str, text: str, ext: str) -> rx.Scanned:
        """The checks of any text file; returns its whole-file set pass (for :mod:`file_techniques`)."""
        sc = _WHOLE_FILE.scan(text)
        # hidden unicode
        invisible: list[re.Match[str]] = []
        for m in sc.finditer(HIDDEN_UNICODE):
            if not _visible_exception(text, m.start()):
                invisible.append(m)
                if len(invisible) > STRAY_ZERO_WIDTH:
                    break
        if invisible:
            m = invisible[0]
            ln = text.count("\n", 0, m.start()) + 1
            count = len(HIDDEN_UNICODE.findall(text))
            found = c.hit("NV-OBF-001", path, ln, f"U+{ord(m.group(0)):04X} hidden character ({count} in file)",
                          codepoint=f"U+{ord(m.group(0)):04X}", count=count)
            # a few zero-width spaces apart from each other carry no message (an editor's or a web page's
            # leftovers): tag characters spell text and direction overrides reorder it, a run of zero-width
            # characters encodes bits; those refuse
            if len(invisible) <= STRAY_ZERO_WIDTH and all(x.group(0) in ZERO_WIDTH for x in invisible) and all(
                    y.start() - x.start() > 1 for x, y in zip(invisible, invisible[1:], strict=False)):
                found.action = "review"
                found.evidence["check"] = (f"{len(invisible)} stray zero-width character(s), none next to another; "
                                           "check that the text around them reads the same without them")
        # secret handling described anywhere in the bundle (keys, tokens, passwords, logins)
        # (drafts are judged on concrete capabilities only: words alone never raise a draft's risk)
        sm = sc.search(prose.SECRET_HANDLING) if c.purpose != "draft" else None
        if sm:
            kind = rx.sub(r"[^a-z]+", "-", sm.group(1).lower()).strip("-")
            c.tag(f"read:secret:{kind}", path, text.count("\n", 0, sm.start()) + 1)
        # padding
        m = sc.search(_PADDING)
        if m:
            ln = text.count("\n", 0, m.start()) + 1
            c.hit("NV-OBF-004", path, ln, "long run of blanks on one line")
            hidden = text[m.end():text.find("\n", m.end()) if "\n" in text[m.end():] else len(text)].strip()
            risky = HIDDEN_RISKY.search(hidden) if len(hidden) >= 12 else None
            if risky and not hidden.startswith("|") and rx.search(r"[^\W\d_]{3,}\s+[^\W\d_]{3,}", hidden):
                c.hit("NV-OBF-006", path, ln, snippet(hidden), trigger=risky.group(0)[:40], hidden_by="padding")
        else:
            m = sc.search(_BLANK_RUN)
            if m:
                ln = text.count("\n", 0, m.start()) + 2
                c.hit("NV-OBF-004", path, ln, "50 or more consecutive blank lines")
                hidden = "\n".join(text[m.end():].split("\n")[:20])
                risky = HIDDEN_RISKY.search(hidden)
                if risky and HIDDEN_DIRECTIVE.search(hidden):
                    c.hit("NV-OBF-006", path, ln, snippet(hidden.strip()), trigger=risky.group(0)[:40],
                          hidden_by="blank lines")
        # each line's first offset, computed on the first finding that needs its line (most files have none)
        starts: list[int] = []

        def line_at(pos: int) -> tuple[int, str]:
            if not starts:
                starts.extend(line_starts(text))
            i = bisect.bisect_right(starts, pos) - 1
            end = starts[i + 1] - 1 if i + 1 < len(starts) else len(text)
            return i + 1, text[starts[i]:end]

        # encoded blobs outside data files
        if ext not in DATA_EXT and ext not in (".svg", ".html", ".htm", ".css"):
            for m in sc.finditer(B64_BLOB):
                ln, line = line_at(m.start())
                if rx.search(r"(?i)data:(?:image|font|audio|application/(?:font|x-font|octet))", line) \
                        or rx.fullmatch(r"[0-9a-f]{64,}", m.group(0)) or len(set(m.group(0))) <= 16:
                    continue
                c.hit("NV-OBF-003", path, ln, snippet(m.group(0)[:60]), length=len(m.group(0)))
                if rx.search(r"(?i)base64|b64|atob|decode|FromBase64", line):
                    c.fact("encoded_blob_decoded", path, ln)
                break
        # encoded URLs and commands (decoded here as data, never run)
        if len(text) <= 2_000_000 and ext not in (".svg", ".css", ".map", ".lock") and may_hold_encoded(text):
            for m in ENCODED_LITERAL.finditer(text):
                if DATA_URI_IMAGE.search(text[max(0, m.start() - 60):m.start()]):
                    continue  # an inline image (a badge's logo): the URLs an SVG holds are its XML namespaces
                decoded = _decoded_kind(m.group(0))
                if decoded is None:
                    continue
                ln, line = line_at(m.start())
                col = m.start() - starts[ln - 1]
                doc = ext in MARKDOWN_EXT or ext in HTML_EXT or ext == ""
                # a security tool's prose may quote an encoded indicator; its code blocks and scripts are code
                in_fence = doc and len(rx.findall(r"(?m)^\s{0,3}(?:`{3,}|~{3,})", text[:m.start()])) % 2 == 1
                c.hit("NV-OBF-007", path, ln, snippet(m.group(0)[:60]), column=col + 1, decodes_to=decoded,
                      action="review" if doc and c.security_tool and not in_fence else None)
                c.flags.add("obfuscation")
                break
        # HTML comments, markdown comments and hidden elements carrying instructions
        if ext in MARKDOWN_EXT or ext in HTML_EXT or ext == "":
            for m in _hidden_text(text, markdown=ext in MARKDOWN_EXT or ext == ""):
                body = m.group(m.re.groups)  # the last group holds the hidden text
                if len(body.strip()) >= 20 and COMMENT_INSTRUCTION.search(body) and not rx.match(
                        r"(?is)\s*(?:prettier|markdownlint|eslint|todo|toc|omit in toc|lint|@format|htmlhint|textlint|vale|"
                        r"cspell|\#region|\#endregion)", body):
                    ln = text.count("\n", 0, m.start()) + 1
                    c.hit("NV-OBF-002", path, ln, snippet(body.strip()))
                    risky = HIDDEN_RISKY.search(body)
                    if risky and HIDDEN_DIRECTIVE.search(body):
                        c.hit("NV-OBF-006", path, ln, snippet(body.strip()), trigger=risky.group(0)[:40])
                    for j, bl in enumerate(body.split("\n")):
                        prose.analyze_line(c, path, ln + j, bl)
        # secret literals
        for m in sc.finditer(SECRET_LITERAL):
            ln, line = line_at(m.start())
            col = m.start() - starts[ln - 1]
            if PLACEHOLDER.search(m.group(0)) or (m.group(0).startswith("-----BEGIN") and rx.search(
                    r"(?i)\b(?:detect|pattern|regex|match|scan|startswith|includes|contains)\b", line)):
                continue
            if is_quoted(line, col, col + len(m.group(0))) and rx.search(r"(?i)re\.compile|regex|pattern|r['\"]", line):
                continue
            c.hit("NV-CRED-002", path, ln, _mask(line, col, col + len(m.group(0))), column=col + 1)
            break
        # URLs: raw IPs, paste sites, webhooks
        for m in URL_RE.finditer(text) if any(_flagged_url(u) for u in set(rx.match_texts(URL_RE, text))) else ():
            url = m.group(0)
            host, ip, paste, hook = _url_kinds(url)
            if ip != "public" and not paste and not hook:
                continue
            ln, line = line_at(m.start())
            col = m.start() - starts[ln - 1]
            if ip == "public":
                c.hit("NV-SUPPLY-004", path, ln, snippet(line, col, col + len(url)), column=col + 1, host=host)
                c.fact("raw_ip", path, ln)
            if paste:
                c.hit("NV-SUPPLY-005", path, ln, snippet(line, col, col + len(url)), column=col + 1, host=host)
                c.fact("paste_url", path, ln)
            if hook:
                c.hit("NV-EXFIL-003", path, ln, snippet(line, col, col + len(url)), column=col + 1, host=host)
                c.fact("webhook", path, ln)
        # campaign indicators
        low_text = text.lower() if _may_hold_indicator(text) else ""
        for ind in CAMPAIGN_INDICATORS if low_text else ():
            j = low_text.find(ind.lower())
            if j < 0:
                continue
            ln, line = line_at(j)
            col = j - starts[ln - 1]
            executable = bool(rx.search(r"(?i)\b(?:curl|wget|iwr|irm|download|unzip|extract|run|execute|"
                                        r"open|paste|bash|sh)\b|https?://", line)) and not is_quoted(
                line, col, col + len(ind), backticks=False) and not rx.search(
                r"(?i)\b(?:indicator|ioc|detect|flag|block|campaign|malicious|malware|known\s+bad)\b", line)
            c.hit("NV-SUPPLY-003" if executable else "NV-SUPPLY-003b", path, ln, snippet(line, col, col + len(ind)),
                  column=col + 1, indicator=ind)
        return sc

    def _markdown(self, c: Collector, path: str, text: str, known: frozenset[str], *, is_skill: bool) -> None:
        lines = markdown_lines(text, indented_code=path.lower().endswith(MARKDOWN_ONLY_EXT))
        scr = rx.Screen(text)  # every line below is a whole line of ``text``
        front_end = 0
        if lines and lines[0].text.strip() == "---":
            front_end = next((ln.no for ln in lines[1:] if ln.text.strip() == "---"), 0)
        block: list[Line] = []
        bare: list[Line] = []  # a command written as a plain line, outside any fence
        for ln in lines + [Line(len(lines) + 1, "", "fence")]:
            if ln.kind == "prose" and (bare and bare[-1].text.rstrip().endswith("\\") or _bare_command(ln.text)):
                bare.append(ln)
            elif bare:
                self._code_block(c, path, [Line(b.no, b.text, "code", "sh", b.quoted) for b in bare], known, scr)
                bare = []
            if ln.kind == "code":
                block.append(ln)
                continue
            if block:
                self._code_block(c, path, block, known, scr)
                block = []
            if ln.kind == "prose":
                if len(ln.text) > 5000:
                    continue
                prose.analyze_line(c, path, ln.no, ln.text, screen=scr)
                if is_skill and (ln.no > front_end or ln.text.lstrip().startswith("description:")) \
                        and c.purpose != "draft":
                    prose.side_effect_intent(c, path, ln.no, ln.text, screen=scr)
                for code in scr.findall(INLINE_CODE_RE, ln.text) if "`" in ln.text else ():
                    self._inline_code(c, path, ln, code, known)
                if "://" in ln.text:  # in every URL the expression finds
                    self._prose_urls(c, path, ln, scr)
        self._download_then_exec(c, path, [ln for ln in lines if ln.kind == "code" and (
            ln.lang in SHELL_LANGS or not ln.lang or ln.lang in PLAIN_LANGS)])

    def _inline_code(self, c: Collector, path: str, ln: Line, code: str, known: frozenset[str]) -> None:
        """A code span in a line of prose: a command is read as the shell runs it, and so is the command text a
        program in the span hands to a shell (``os.system('curl … | sh')``)."""
        scheduled = _CRON_ENTRY.match(code) if "cron" in ln.text or "Cron" in ln.text else None
        if scheduled:  # "add `*/5 * * * * curl …` to the crontab": the command after the schedule
            code = scheduled.group(1)
        command = shell.looks_like_command(code, known)
        handed = None if command or "(" not in code else _RUNS_COMMAND_TEXT.search(code)
        if not command and "(" in code and _CODE_SENDS.search(code) and any(
                shell.holds_secrets(p) for p in _CODE_READ_PATH.findall(code)):
            # code the agent is told to write or run that reads a credential file into a request
            c.hit("NV-EXFIL-004", path, ln.no, snippet(code), action="review" if c.security_tool else None,
                  shape="code that sends a credential file")
            c.flags.add("network_send")
            c.fact("network_send", path, ln.no, "prose-code-cred-send")
        if command or handed:
            bad = bool(_SPAN_AS_EXAMPLE.search(ln.text)) or c.security_tool
            if handed:
                for literal in (a or b for a, b in _STRING_LITERAL.findall(code, handed.end())):
                    if any(e.search(literal) for e in (shell.PIPE_TO_SHELL, shell.REVERSE_SHELL, shell.ENCODED_TO_SHELL)):
                        shell.analyze_line(c, path, ln.no, literal, executable=not bad, quoted=bad, known=known)
            else:
                if not bad and (scheduled or shell.STARTUP_FILE.search(ln.text)) and shell.CMD_OUTPUT_IN_REQUEST.search(code):
                    # "add `curl …$(whoami)` to ~/.zshrc" (or to the crontab): a beacon at every terminal the user
                    # opens, or every few minutes (recorded before the span's own reading, whose hit of the same
                    # rule on this line would be the one reported)
                    c.hit("NV-EXFIL-002", path, ln.no, snippet(ln.text), action="refuse",
                          sends="the machine's identity, " + ("on a schedule" if scheduled else "at every shell start"))
                    c.flags.add("persistence")
                shell.analyze_line(c, path, ln.no, code, executable=not bad, quoted=bad, known=known)
        if "$" in code and ("=" in code and ";" in code or command):
            # a command assembled from variables in the span itself (``a=cu; b=rl; $a$b …``)
            shell.hidden_shapes(c, path, ln.no, code, {}, executable=not (c.security_tool or _SPAN_AS_EXAMPLE.search(ln.text)))
        for u in URL_RE.finditer(code) if "://" in code else ():
            c.tag(f"network:{normalize_host(u.group(0))}", path, ln.no)

    def _prose_urls(self, c: Collector, path: str, ln: Line, scr: rx.Screen) -> None:
        for u in scr.finditer(URL_RE, ln.text):
            url = u.group(0)
            if rx.search(r"(?i)/api/|/v\d+/|^https?://api\.|/graphql|/webhook|/rest/|\.json\b|/rpc\b|/mcp\b", url):
                c.tag(f"network:{normalize_host(url)}", path, ln.no)

    def _code_block(self, c: Collector, path: str, block: list[Line], known: frozenset[str], scr: rx.Screen) -> None:
        """One fenced block (or run of bare command lines); ``scr`` screens the whole lines of its file."""
        lang = block[0].lang
        quoted = block[0].quoted or c.security_tool
        src = "\n".join(ln.text for ln in block)
        lines = rx.Screen(src, screen_re=True)  # the block's own lines, each searched for the shapes below
        offset = block[0].no - 1
        if lang in PYTHON_LANGS:
            from . import pycode

            if not pycode.analyze(c, path, src, lines_offset=offset):
                for ln in block:
                    if lines.search(shell.PIPE_TO_SHELL, ln.text) or lines.search(shell.REVERSE_SHELL, ln.text):
                        shell.analyze_line(c, path, ln.no, ln.text, executable=not quoted, quoted=quoted, known=known)
        elif lang in JS_LANGS:
            from . import jscode

            jscode.analyze(c, path, src, lines_offset=offset)
        else:
            joined = _join_continuations(block)
            variables: dict[str, str] = {}
            whole = {ln.no: ln.text for ln in block}  # a text joined from continued lines is not one of them
            plain = not lang or lang in PLAIN_LANGS  # no language named: a line is a command if it reads as one
            # ... and once one line of it does, the block is a terminal session: a line that starts with a
            # program's name runs that program (``acmecloud deploy`` after its installer)
            session = plain and any(shell.looks_like_command(t, known) for _, t in joined)
            for no, text in joined:
                if lang in SHELL_LANGS or plain:
                    shell.hidden_shapes(c, path, no, text, variables, executable=not quoted)
                    shell.remember_assignments(text, variables)
                if lang in SHELL_LANGS or session and _PROGRAM_RUN.match(text) or (
                        lang not in ("json", "yaml", "yml", "toml", "xml", "html", "css", "markdown", "md", "csv",
                                     "diff", "sql", "ini", "mermaid", "log", "output")
                        and shell.looks_like_command(text, known)):
                    n = len(c.hits)
                    shell.analyze_line(c, path, no, text, executable=not quoted, quoted=quoted, known=known)
                    _resolve_hosts(c, n, text, variables)
                elif lang == "sql" and rx.search(r"(?i)\b(?:drop\s+(?:table|database)|truncate\s+table|delete\s+from)\b", text):
                    c.tag("delete:db:?", path, no)
                elif any(lines.search(e, text) if whole[no] == text else e.search(text) for e in _RUNS_IN_ANY_BLOCK):
                    shell.analyze_line(c, path, no, text, executable=not quoted, quoted=quoted, known=known)
        urls = lang not in ("markdown", "md", "text", "txt")
        for ln in block:
            if len(ln.text) < 5000:
                prose.analyze_line(c, path, ln.no, ln.text, in_code=True, quoted_block=quoted, screen=scr)
            for u in scr.finditer(URL_RE, ln.text) if urls and "://" in ln.text else ():
                c.tag(f"network:{normalize_host(u.group(0))}", path, ln.no)

    def _shell_script(self, c: Collector, path: str, text: str, known: frozenset[str]) -> None:
        lines = [Line(i, t, "script", "sh") for i, t in enumerate(text.split("\n"), 1)]
        variables: dict[str, str] = {}
        for no, t in _join_continuations(lines):
            if len(t) > 5000:
                continue
            n = len(c.hits)
            shell.analyze_line(c, path, no, t, known=known)
            _resolve_hosts(c, n, t, variables)
            shell.hidden_shapes(c, path, no, t, variables)
            shell.remember_assignments(t, variables)
            if t.lstrip().startswith("#") or ("echo" in t or "printf" in t or "cat" in t) and _PRINTS.match(t):
                prose.analyze_line(c, path, no, t, in_code=True)
        self._download_then_exec(c, path, lines)

    def _build_file_commands(self, c: Collector, path: str, text: str, known: frozenset[str]) -> None:
        """Commands that build tools run from files which read as text: a Dockerfile's ``RUN`` lines (run on
        ``docker build``) and a pip requirements file's index options (read as ``pip install`` reads them)."""
        name = path.rsplit("/", 1)[-1].lower()
        if name in ("dockerfile", "containerfile") or name.endswith((".dockerfile", ".containerfile")):
            lines = [Line(i, t, "script", "sh") for i, t in enumerate(text.split("\n"), 1)]
            for no, t in _join_continuations(lines):
                m = _DOCKER_RUN.match(t)
                if m and len(t) <= 5000:
                    shell.analyze_line(c, path, no, t[m.end():], known=known)
        elif _REQUIREMENTS.fullmatch(name):
            for no, t in enumerate(text.split("\n"), 1):
                if _PIP_OPTION.match(t):
                    shell.analyze_line(c, path, no, "pip install " + t.strip(), known=known)

    def _comment_lines(self, c: Collector, path: str, text: str, marker: str) -> None:
        for i, line in enumerate(text.split("\n"), 1):
            s = line.strip()
            if (s.startswith(marker) or s.startswith(('"""', "'''", "*", "print(", "console.log("))) and len(s) < 3000:
                prose.analyze_line(c, path, i, s.lstrip(marker + " *"), in_code=not s.startswith(marker))

    def _fallback_lines(self, c: Collector, path: str, text: str, known: frozenset[str]) -> None:
        for i, line in enumerate(text.split("\n"), 1):
            if len(line) > 5000:
                continue
            if shell.PIPE_TO_SHELL.search(line) or shell.REVERSE_SHELL.search(line) or shell.ENCODED_TO_SHELL.search(line):
                shell.analyze_line(c, path, i, line, executable=not is_quoted(line, 0, 0), known=known)
            for u in URL_RE.finditer(line) if "://" in line else ():
                c.tag(f"network:{normalize_host(u.group(0))}", path, i)

    def _download_then_exec(self, c: Collector, path: str, lines: list[Line]) -> None:
        downloaded: dict[str, int] = {}
        sources: dict[str, list[str]] = {}
        fetched: dict[str, int] = {}

        def base(p: str) -> str:
            return rx.split(r"[/\\]", p.strip("'\""))[-1]

        shapes = _NameShapes()
        for ln in lines:
            t = ln.text
            low = t.lower()
            fetching = any(w in low for w in ("curl", "wget", "iwr", "irm", "invoke-", "certutil", "bitsadmin",
                                              "downloadfile", "bitstransfer", "webclient"))
            if not fetching and not downloaded and not fetched:
                continue
            for pat in DOWNLOAD_TO_FILE if fetching else ():
                for m in pat.finditer(t):
                    downloaded[base(m.group(1))] = ln.no
                    sources[base(m.group(1))] = [u.group(0) for u in URL_RE.finditer(t)]
            m = rx.search(r"(?i)\bwget\s+(?:-\S+\s+)*['\"]?(https?://\S+/([\w.-]+))['\"]?\s*(?:$|&&|;)", t) if fetching else None
            if m:
                downloaded[m.group(2)] = ln.no
                sources[m.group(2)] = [m.group(1)]
            for m in rx.finditer(r"(?i)(?:\$|\b)(\w+)\s*=\s*\(?\s*(?:\$\(\s*)?(?:iwr|irm|invoke-webrequest|invoke-restmethod|curl|"
                                 r"wget|\(\s*new-object\s+(?:system\.)?net\.webclient\s*\)\.downloadstring)\b",
                                 t if fetching and "=" in t else ""):
                fetched[m.group(1)] = ln.no
            for name in list(fetched) if "$" in t else ():  # each shape reads the variable
                if not _may_name(name, t.isascii(), low):
                    continue
                if shapes.get("evaluated", name).search(t):
                    c.hit("NV-EXEC-001", path, ln.no, snippet(t), action=None if ln.kind != "code" or not ln.quoted else "review",
                          shape="fetched into a variable, then evaluated")
                    c.fact("download_exec", path, ln.no)
                    del fetched[name]
            # a downloaded file decoded or unpacked into another is still the download
            for m in rx.finditer(r"(?i)\b(?:certutil(?:\.exe)?\s+-decode(?:hex)?|expand|base64\s+(?:-d|--decode|-D)\s+-i)\s+"
                                 r"['\"]?([^\s'\"]+)['\"]?\s+(?:-o\s+)?['\"]?([^\s'\";&|]+)", t if downloaded else ""):
                if base(m.group(1)) in downloaded:
                    downloaded[base(m.group(2))] = ln.no
                    sources[base(m.group(2))] = sources.get(base(m.group(1)), [])
            ascii_line = t.isascii()
            for name in list(downloaded):
                if not _may_name(name, ascii_line, low):
                    continue
                runnable = name.lower().endswith((".exe", ".bat", ".cmd", ".ps1", ".msi", ".scr", ".com", ".vbs", ".js",
                                                  ".hta", ".jar", ".app", ".command", ".sh"))
                # (an address is where the file comes from, not a command: ``-o x.sh https://h/x.sh`` runs nothing)
                run = shapes.get("run", name).search(_urls_blanked(t) if "://" in t else t)
                if run or runnable and shapes.get("named", name).match(t) and (
                        ln.no != downloaded[name] or rx.search(r"&&|;", t)):
                    if name.lower().endswith((".json", ".txt", ".csv", ".md", ".html", ".xml", ".png", ".jpg")):
                        continue
                    if _names_without_running(t, run):
                        continue
                    c.hit("NV-EXEC-003", path, ln.no, snippet(t), action=None if ln.kind != "code" or not ln.quoted else "review",
                          file_name=name, hosts=[normalize_host(u) for u in sources.get(name, [])],
                          urls=sources.get(name, []))
                    c.fact("download_exec", path, ln.no)
                    del downloaded[name]

    # ------------------------------------------------------------------ bundle-wide rules

    def _coherent_host(self, url: str, subject: set[str]) -> bool:
        """The download host names what the skill says it is about (a vendor installing its own tool)."""
        if not url.lower().startswith("https://"):
            return False
        host = normalize_host(url)
        if ip_kind(host) is not None or host_matches(host, url, PASTE_HOSTS):
            return False
        labels = [x for x in host.split(".")[:-1] if len(x) >= 3 and x not in GENERIC_WORDS]
        if host in CODE_HOSTS:
            path = rx.sub(r"^https://[^/]+/", "", url.lower()).split("/")
            labels = [x for seg in path[:2] for x in rx.split(r"[^a-z0-9]+", seg) if len(x) >= 3]
        parts = {p for lab in labels for p in rx.split(r"[^a-z0-9]+", lab) if len(p) >= 3} - GENERIC_WORDS
        return bool(parts & subject) or any(lab in subject for lab in labels)

    def _combine(self, c: Collector, bundle: SkillBundle) -> None:
        _listed_not_directed(c, bundle)
        paste = c.has("terminal_paste")
        # a raw-IP or paste/throw-away address cancels the installer exception in the file that names it: the
        # document instructing the install also points at nobody's host. Elsewhere in the bundle it is judged
        # by its own rule (NV-SUPPLY-004/005), so one mention does not turn every vendor installer into a refusal
        risky_files = {h.file for h in c.hits if h.rule_id in ("NV-SUPPLY-004", "NV-SUPPLY-005")}
        # the tools the skill declares it needs or runs in its own steps: an installer from a host named
        # after one of them is that vendor's. Its name and description are not enough (a lure names its
        # payload host after its own pitch: "free-gpu-credits" from "gpu-credits.example")
        declared = c.bins | ({t.split(":", 1)[1] for t in c.tags if t.startswith("shell:")}
                             - INSTALL_PLUMBING - GENERIC_WORDS)
        # ... or a host its own frontmatter names (homepage, repository), or a service it is about: its
        # stated subject names the host AND the SKILL.md names that service throughout (a lure's one-line
        # pitch is not enough on its own)
        skill = bundle.skill_md
        skill_text = _plain_skill_text(skill)
        bundle_text: list[str] = []

        def named_throughout(url: str) -> bool:
            # the skill's files name the host's service three times or more (outside URLs), as for a secret's
            # own service (NV-EXFIL-005)
            if not bundle_text:
                bundle_text.append(URL_RE.sub(" ", "\n".join(f.text() or "" for f in bundle.files)).lower())
            return self._service_named(url, bundle_text[0])

        def declared_source(url: str) -> str | None:
            """Why the download host is the declared tool's own vendor, or None."""
            host = normalize_host(url)
            if self._coherent_host(url, declared):
                return "names a tool the skill requires or runs"
            if url.lower().startswith("https://") and any(host == d or host.endswith("." + d)
                                                           for d in c.declared_hosts - CODE_HOSTS if "." in d):
                return "is named by the skill's frontmatter"
            if url.lower().startswith("https://") and host in CODE_HOSTS and _code_owner(url) in c.declared_owners:
                return "is the repository the skill's frontmatter names"
            if host not in CODE_HOSTS and self._coherent_host(url, c.declared_repo_words):
                return "is named after the repository the skill's frontmatter names"
            if self._coherent_host(url, c.subject) and self._service_named(url, skill_text):
                return "is the service the skill is about"
            # a host the skill names throughout, serving a path named after a tool the skill requires or runs:
            # the fetched thing is that tool's installer from the service the skill is written around
            if host not in CODE_HOSTS and _installs_tool(url, declared) and named_throughout(url) \
                    and ip_kind(host) is None and not host_matches(host, url, PASTE_HOSTS):
                return "is named throughout the skill and serves a tool the skill runs"
            return None
        for h in c.hits:
            if h.rule_id in ("NV-EXEC-001", "NV-EXEC-003") and h.action is None:
                hosts = [x for x in h.evidence.get("hosts", []) if x]
                urls = h.evidence.get("urls", []) or [f"https://{x}/" for x in hosts]
                if not hosts and h.rule_id == "NV-EXEC-001" and _names_the_pattern(_line_text(bundle, h.file, h.line)):
                    h.action = "review"
                    h.evidence["check"] = ("names a download piped to a shell but gives no address to fetch from; "
                                           "check where the skill expects its installer to come from")
                    continue
                if not hosts or h.file in risky_files or paste or DECODE_STAGE.search(h.snippet):
                    continue
                if all(_loopback(x) for x in hosts):
                    h.action = "review"
                    h.evidence["check"] = (f"pipes what a service on this machine answers ({', '.join(hosts)[:80]}) "
                                           "into an interpreter; check which program serves that address")
                    continue
                pairs = list(zip(hosts, urls, strict=False))
                if all(host_matches(x, u, self.vendor_hosts) for x, u in pairs):
                    h.evidence["vendor_installer"] = True
                    why = "is a listed vendor installer host"
                elif all(whys := [declared_source(u) for u in urls]):
                    h.evidence["coherent_installer"] = True
                    why = str(whys[0])
                else:
                    continue
                h.action = "review"
                tool = _installed_tool(urls, declared | c.bins) or "the tool"
                shown = ", ".join(dict.fromkeys(hosts))[:120]
                h.evidence["check"] = (f"installs {tool} from {shown} (the host {why}); check that this is "
                                       f"{tool}'s official installer over HTTPS")
                c.hit("NV-SUPPLY-006", h.file, h.line, h.snippet, source="installer piped to a shell")
        ids = c.rule_ids()
        exec_refuse = any(h.rule_id in ("NV-EXEC-001", "NV-EXEC-002", "NV-EXEC-003") and h.action is None for h in c.hits)
        if paste and (exec_refuse or c.has("paste_url") or c.has("password_archive") or "NV-SUPPLY-003" in ids):
            f, ln, _ = c.facts["terminal_paste"][0]
            c.hit("NV-SUPPLY-001", f, ln, "paste-into-terminal prerequisite with a remote or encoded payload")
        else:
            # "visit <page> and run the command shown there": the payload lives on a page nobody reviewed
            for f, ln, via in c.facts.get("terminal_paste", []):
                remote = [u for u in via.split() if u and not host_matches(normalize_host(u), u, self.vendor_hosts)
                          and not self._coherent_host(u, c.subject | c.bins)]
                line = _line_text(bundle, f, ln)
                if remote and COMMAND_SOURCE.search(line):
                    c.hit("NV-SUPPLY-001", f, ln, "paste-into-terminal instruction pointing at an external page",
                          hosts=[normalize_host(u) for u in remote])
                    break
        self._exfil(c)
        self._secret_flows(c, bundle)
        acts = any(t.startswith(("network:", "shell:")) for t in c.tags)
        for name in ("write_intent_file", "write_intent_remote") if acts else ("write_intent_file",):
            for f, ln, _ in c.facts.get(name, [])[:1]:
                c.tag("write:?", f, ln)
        bundled_binary = any(h.rule_id == "NV-OBF-005" and h.evidence.get("kind") == "binary" for h in c.hits)
        staged = c.has("download_exec") or c.has("paste_url") or c.has("raw_ip") or paste or bundled_binary
        for h in c.hits:
            if h.rule_id == "NV-PRIV-002" and h.evidence.get("quarantine") and h.action is None and not staged:
                h.action = "review"
            if h.rule_id == "NV-PRIV-003" and h.action is None and "NV-PRIV-001" in ids:
                h.action = "refuse"
                h.evidence["combined_with"] = "NV-PRIV-001"
        skips = {h.file for h in c.hits if h.rule_id in ("NV-AUTO-002", "NV-PI-001")}
        for h in c.hits:
            if h.rule_id == "NV-PI-004" and h.action is None and (
                    h.file in skips or _WITHOUT_CONFIRMATION.search(_line_text(bundle, h.file, h.line))):
                h.action = "refuse"
                h.evidence["combined_with"] = "a confirmation bypass or concealment in the same file"
        if any(r.startswith("NV-CRED-") for r in ids):
            # a webhook in a skill that also handles credentials is a notifier with keys (review); it refuses
            # when the credential is read in the statements right before the post (what is read is what is
            # posted) or the same line's address is a raw IP or a paste or throw-away host: nobody's own service
            throwaway = {(f, ln) for name in ("raw_ip", "paste_url") for f, ln, _ in c.facts.get(name, [])}
            creds = [(x.file, x.line) for x in c.hits if x.rule_id.startswith("NV-CRED-") and x.line is not None]
            for h in c.hits:
                if h.rule_id != "NV-EXFIL-003":
                    continue
                if (h.file, h.line) in throwaway:
                    h.action = "refuse"
                    h.evidence["combined_with"] = "a credential finding, and a raw-IP or paste-site address"
                elif h.line is not None and any(f == h.file and abs(ln - h.line) <= 3 for f, ln in creds):
                    h.action = "refuse"
                    h.evidence["combined_with"] = "a credential read next to the post"
        self._standing_remote(c, bundle)
        self._impersonation(c, bundle)
        self._stated_purpose(c, bundle)
        # a memory or settings write refuses with a technique elsewhere in the bundle, judged on the actions
        # the other findings end with (a remote-instruction or hidden-comment finding left at review is not one)
        deceptive = any(h.rule_id in DECEPTIVE_RULES and _effective(h) == "refuse" for h in c.hits)
        for h in c.hits:
            if h.rule_id == "NV-PERSIST-002" and h.action is None and not deceptive:
                planted = _planted_rule(c, bundle, h)
                if planted:
                    h.evidence["plants"] = planted
                else:
                    h.action = "review"
                    h.evidence["escalates_with"] = "concealment, override, remote instructions or exfiltration"
        if c.has("untrusted_input"):
            classes = classes_of(c.tags, primary_env=c.primary_env)
            if "sensitive_credentials" in classes and any(t.startswith("network:") for t in c.tags):
                f, ln, _ = c.facts["untrusted_input"][0]
                # a key the skill declares in its metadata is what every service skill holds: a person has
                # something to check when the secret is a credential file or a secret store an injection could
                # leak, or when the skill handles secrets it never declares
                stored = sorted(t for t in c.tags if t[len("read:secret:"):] in SECRET_STORES or (
                    t.startswith("read:file:") and is_credential_path(t[len("read:file:"):])))
                secrets = self._flow_secrets(c, bundle, stored)
                # drafts keep the rules_version 8 reading: only declared keys are a note
                note = secrets == "declared keys only" if c.purpose == "draft" else secrets not in FLOW_REVIEW
                c.hit("NV-FLOW-001", f, ln, "untrusted content, a secret and network access in one skill",
                      action="note" if note else None, secrets=secrets)
        # money movement gated by an explicit user confirmation is what a careful payment skill looks like: the
        # confirmation is the check a reviewer would ask for (destructive steps stay review, spec §7)
        for h in c.hits:
            if h.rule_id == "NV-FIN-001" and h.action is None and _confirmed_step(bundle, h.file, h.line):
                h.action = "note"
                h.evidence["confirmed"] = "an explicit user confirmation in the same step"
        self._own_capability(c, bundle)
        for h in c.hits:
            if h.rule_id.startswith("NV-EXEC-"):
                c.tag("shell:*" if h.rule_id != "NV-EXEC-004" else "network:*", h.file, h.line)
                c.tag("network:*", h.file, h.line)
                c.tier("curl" if h.rule_id in ("NV-EXEC-001", "NV-EXEC-003") else "sh", "DANGEROUS")
            for prefix, flag in RULE_FLAGS.items():
                if h.rule_id.startswith(prefix):
                    c.flags.add(flag)
        _listed_not_directed(c, bundle)

    def _own_capability(self, c: Collector, bundle: SkillBundle) -> None:
        """Review findings that are the capability the skill states and needs for its own purpose become notes.

        A person has nothing to decide about them: the OS package manager installing a prerequisite, clean-up
        of the build output or temporary files the skill makes, a file uploaded to the service the skill is
        about, money movement in a skill whose name or description says it trades or pays and whose
        frontmatter declares what it uses (unless it also tells the agent to skip confirmation), a settings entry or file of the skill's own (it names the
        skill), and a look-alike name whose word is the skill's own subject while the brand it resembles is
        never mentioned. Only findings at *review* are touched, and none in a bundle where a technique refuses.
        """
        if c.purpose == "draft":
            return  # a draft is judged on its capabilities (specs/evolver.md): nothing is lowered for it
        if any(h.action == "refuse" or (h.action is None and BY_ID[h.rule_id].install == "refuse") for h in c.hits
               if h.rule_id in BY_ID):
            return  # a technique elsewhere in the bundle: every capability finding stays for the reviewer
        skill = bundle.skill_md
        skill_text = _plain_skill_text(skill)
        body = skill_text.split("---", 2)[-1] if skill_text.startswith("---") else skill_text
        own = {w for w in c.subject | c.bins if len(w) >= 4}
        name = c.skill_name if len(c.skill_name) >= 4 else ""
        # a trading or payment skill moves money by its stated purpose; a person looks only when it also tells
        # the agent to skip the user's confirmation (or rewrites payments, NV-FIN-002, which refuses)
        # ... and says in its frontmatter what it uses (metadata requirements, its homepage or service): a skill
        # that declares nothing about itself is anonymous, and a person checks where its money goes
        money_purpose = bool(c.subject & MONEY_PURPOSE) and bool(c.declared_env or c.bins or c.declared_hosts)
        bypass = any(h.rule_id in ("NV-AUTO-002", "NV-FIN-002") for h in c.hits)
        for h in c.hits:
            # NV-PERSIST-002 was lowered to review when it plants nothing; every other rule is at its catalogue action
            if h.action is not None and not (h.rule_id == "NV-PERSIST-002" and h.action == "review"):
                continue
            why = None
            if h.rule_id == "NV-PRIV-001" and not h.evidence.get("system_write"):
                if SUDO_PACKAGE_INSTALL.search(_line_text(bundle, h.file, h.line)):
                    why = "the system package manager installs a prerequisite"
            elif h.rule_id == "NV-DESTR-002" and h.evidence.get("command") == "rm -r":
                targets = [str(t).strip("'\"") for t in h.evidence.get("targets", [])]
                if targets and all(SCRATCH_TARGET.fullmatch(t) for t in targets):
                    why = "removes build output or temporary files"
            elif h.rule_id == "NV-EXFIL-002" and not h.evidence.get("channel"):
                urls = [u.group(0) for u in URL_RE.finditer(_line_text(bundle, h.file, h.line))]
                if urls and all(self._coherent_host(u, c.subject | c.bins) or self._service_named(u, skill_text)
                                or any(normalize_host(u) == d or normalize_host(u).endswith("." + d)
                                       for d in c.declared_hosts - CODE_HOSTS if "." in d) for u in urls):
                    why = "uploads to the service the skill is about"
            elif h.rule_id == "NV-FIN-001" and money_purpose and not bypass:
                why = "money movement is what the skill says it is for"
            elif h.rule_id == "NV-SUPPLY-007":
                target, part = str(h.evidence.get("target") or ""), str(h.evidence.get("part") or "")
                if target and part and not rx.search(rf"\b{re.escape(target)}\b", body) \
                        and rx.search(rf"\b{re.escape(part)}\b", body):
                    why = "the name's word is the skill's own subject; the brand it resembles is never mentioned"
            elif h.rule_id in ("NV-PERSIST-002", "NV-CRED-001"):
                target = str(h.evidence.get("target") or h.evidence.get("path") or "").lower()
                parts = {p for p in rx.split(r"[^a-z0-9]+", target) if len(p) >= 4}
                line = _line_text(bundle, h.file, h.line).lower()
                if own and parts & own and not AGENT_FILES.search(target):
                    why = "a file named after the skill itself (its own state)"
                elif h.rule_id == "NV-PERSIST-002" and name and rx.search(
                        rf"(?<![a-z0-9]){re.escape(name)}(?![a-z0-9])", line):
                    why = "the entry written is the skill's own (the line names the skill)"
            if why:
                h.action = "note"
                h.evidence["own_purpose"] = why

    @staticmethod
    def _flow_secrets(c: Collector, bundle: SkillBundle, stored: list[str]) -> str:
        """Which secrets an injected page could reach (NV-FLOW-001 reviews only the first three kinds).

        Credential files and secret stores, secret variables the skill neither declares nor names after the
        service it is about, secrets in a skill that names no host at all, and secrets the user is asked to
        paste into the conversation (then they sit in the agent's context) are worth a person's look. Keys the metadata declares, a key named after the
        skill's own service, and words about keys with no secret read at all are what every service skill has.
        """
        if stored:
            return "credential files or stores"
        if c.declared_env:
            return "declared keys only"
        from nervous.plugin.toolkit import is_secret_env

        keys = sorted({t[len("read:env:"):] for t in c.tags if t.startswith("read:env:")
                       and is_secret_env(t[len("read:env:"):], c.primary_env)})
        if any(not _own_service_key(k, c.subject) for k in keys):
            return "secrets the metadata does not declare"
        # a service skill names the service its key is for; with no host named anywhere, an injected page
        # decides where a secret goes
        if not any("." in t[len("network:"):] and ip_kind(t[len("network:"):]) != "local"
                   for t in c.tags if t.startswith("network:")):
            return "secrets for no service the skill names"
        skill = bundle.skill_md
        if skill is not None and CREDENTIAL_REQUEST.search(skill.text() or ""):
            return "secrets the user is asked to paste into the conversation"
        return "keys of the service the skill is about" if keys else "mentions keys but reads none"

    @staticmethod
    def _stated_purpose(c: Collector, bundle: SkillBundle) -> None:
        """A send of private data that the SKILL.md frontmatter itself states (its description: what the skill
        is for), or one to the service the skill's files name throughout, is declared, not hidden: a person
        checks the destination (review)."""
        skill = bundle.skill_md
        if skill is None:
            return
        lines = (skill.text() or "").replace("\r\n", "\n").split("\n", 200)
        end = 0
        if lines and lines[0].strip() == "---":
            end = next((i + 1 for i, x in enumerate(lines[1:200], 1) if x.strip() == "---"), 0)
        bundle_text: str | None = None
        for h in c.hits:
            if h.rule_id != "NV-EXFIL-004" or h.action is not None:
                continue
            if h.file == skill.path and h.line and h.line <= end:
                h.action = "review"
                h.evidence["declared"] = "the skill's frontmatter states this send as its purpose"
                continue
            # the destination is the service the skill is about: its files name that host throughout
            urls = [u.group(0) for u in URL_RE.finditer(_line_text(bundle, h.file, h.line))]
            if urls and "shape" not in h.evidence:
                bundle_text = _bundle_text(bundle) if bundle_text is None else bundle_text
                if all(Classifier._service_named(u, bundle_text) for u in urls):
                    h.action = "review"
                    h.evidence["declared"] = "the destination is the service the skill's files name throughout"

    @staticmethod
    def _service_named(url: str, skill_text: str) -> bool:
        """The skill is about the host's service: its name appears in the SKILL.md three times or more."""
        if not url.lower().startswith("https://"):
            return False
        host = normalize_host(url)
        labels = [x for x in host.split(".")[:-1] if len(x) >= 4 and x not in GENERIC_WORDS]
        if host in CODE_HOSTS:  # a repository's service is its project: the repository's name
            segments = rx.sub(r"^https://[^/]+/", "", url.lower()).split("/")
            labels = [segments[1]] if len(segments) > 1 and len(segments[1]) >= 4 and segments[1] not in GENERIC_WORDS \
                else []
        return any(len(rx.findall(rf"\b{re.escape(lab)}\b", skill_text)) >= 3 for lab in labels)

    def _standing_remote(self, c: Collector, bundle: SkillBundle) -> None:
        """NV-REMOTE-001 refuses for a standing instruction channel that is not the skill's own service.

        Instructions fetched from a raw-IP or paste host refuse; so do instructions followed on a schedule
        (heartbeat), given precedence over the skill or obeyed wholesale when they come from a host the skill
        is not about. A platform publishing its own heartbeat file stays at review.
        """
        where = {(f, ln) for name in ("raw_ip", "paste_url") for f, ln, _ in c.facts.get(name, [])}
        skill = bundle.skill_md
        skill_text = _plain_skill_text(skill)
        for h in c.hits:
            if h.rule_id != "NV-REMOTE-001":
                continue
            urls = h.evidence.pop("urls", None)
            standing = h.evidence.pop("standing", None)
            if h.action is not None:
                continue
            if (h.file, h.line) in where:
                h.action = "refuse"
                h.evidence["escalated_by"] = "raw-IP or paste-site source"
                continue
            if standing and urls and not all(self._coherent_host(u, c.subject) or self._service_named(u, skill_text)
                                             for u in urls):
                h.action = "refuse"
                h.evidence["escalated_by"] = f"{standing} from a host unrelated to the skill"

    def _impersonation(self, c: Collector, bundle: SkillBundle) -> None:
        """NV-SUPPLY-007 refuses when the look-alike claims to be official or fetches something to run."""
        lookalikes = [h for h in c.hits if h.rule_id == "NV-SUPPLY-007" and h.action is None]
        if not lookalikes:
            return
        skill = bundle.skill_md
        text = (skill.text() or "") if skill is not None else ""
        brands = "|".join(re.escape(str(h.evidence.get("target", ""))) for h in lookalikes if h.evidence.get("target"))
        claim = rx.search(rf"(?i)(?<!not\s)(?<!not\san\s)(?<!un)\b(?:official|verified|authentic|genuine)\b[^.\n]{{0,40}}?\b(?:{brands})"
                          rf"|\b(?:{brands})\b[^.\n]{{0,40}}?\((?:official|verified)\)", text) if brands else None
        # a fetch counts when it is the lure's: an installer recognised as the vendor's own (left at review)
        # is what any skill for that tool runs, whatever its name resembles
        fetches = sorted({h.rule_id for h in c.hits if h.rule_id in (
            "NV-EXEC-001", "NV-EXEC-002", "NV-EXEC-003", "NV-EXEC-004", "NV-EXEC-006", "NV-SUPPLY-002",
            "NV-SUPPLY-003", "NV-SUPPLY-004", "NV-SUPPLY-005") and not (
            h.rule_id.startswith("NV-EXEC-") and _effective(h) != "refuse")})
        asks = CREDENTIAL_REQUEST.search(text)
        if claim is None and not fetches and asks is None:
            return
        for h in lookalikes:
            h.action = "refuse"
            h.evidence["combined_with"] = "claims to be the official tool" if claim else (
                "asks for the user's credentials" if asks else ", ".join(fetches))

    def _secret_flows(self, c: Collector, bundle: SkillBundle) -> None:
        """NV-EXFIL-005: a secret reaching a request to a host unrelated to the secret and the skill."""
        seen: set[str] = set()
        skill = bundle.skill_md
        skill_text = _plain_skill_text(skill)
        bundle_text: str | None = None
        # in file and line order, then by name: the detectors may find a line's secrets in any order
        for f, ln, via in sorted(c.facts.get("secret_flow", []), key=lambda x: (x[0] or "", x[1] or 0, x[2])):
            name, _, url = via.partition("|")
            host = normalize_host(url)
            if host in seen or host in ("*", "localhost") or ip_kind(host) == "local" or "$" in host or "{" in url:
                continue
            tokens = {t for t in name.lower().split("_") if len(t) >= 3} - SECRET_NAME_WORDS
            labels = {p for lab in host.split(".") for p in rx.split(r"[^a-z0-9]+", lab) if len(p) >= 3}
            if tokens & labels or any(t in host for t in tokens if len(t) >= 4) or self._coherent_host(url, c.subject):
                continue
            if host_matches(host, url, self.vendor_hosts):
                continue
            # a host the skill declares (its frontmatter names it) or is about (named throughout its SKILL.md)
            if any(host == d or host.endswith("." + d) for d in c.declared_hosts - CODE_HOSTS if "." in d) or (
                    self._service_named(url, skill_text)):
                continue
            seen.add(host)
            # a key the metadata declares is one the skill needs for its own API, and a host its files name
            # throughout is the service it works with: capability, a person checks where the key goes
            if bundle_text is None:
                bundle_text = _bundle_text(bundle)
            own = "declared key" if name in c.declared_env else (
                "host named throughout the skill's files" if self._service_named(url, bundle_text) else None)
            hit = c.hit("NV-EXFIL-005", f, ln, f"secret {name} sent to {host}", secret=name, host=host)
            if own:
                hit.action = "review"
                hit.evidence["own_use"] = own
            c.flags.add("network_send")

    @staticmethod
    def _sent_to_stranger(c: Collector, reads: list[tuple[str | None, int | None, str]]) -> list[
            tuple[str | None, int | None, str]]:
        """Contents of a cloud or package-registry credential file, and a send to a host that is not its issuer."""
        paths: dict[tuple[str | None, int | None], str] = {}
        for tag, where in c.tags.items():
            if tag.startswith("read:file:"):
                paths[where] = paths.get(where, "") + " " + tag[len("read:file:"):]
        issued = [(r, ISSUERS[k]) for r in reads for k in ISSUERS
                  if r[2].startswith(("py-", "js-", "shell-path")) and k in paths.get((r[0], r[1]), "")]
        if not issued:
            return []
        hosts = {t.split(":", 2)[2] for t in c.tags if t.startswith("write:remote:")} - {"*", "?", ""}
        for read, owners in issued:
            if any(not any(h == o or h.endswith("." + o) for o in owners) for h in hosts):
                return [read]
        return []

    def _exfil(self, c: Collector) -> None:
        """NV-EXFIL-001: a credential harvest or environment dump in a skill that sends data."""
        sends = [s for s in c.facts.get("network_send", []) if s[2] != "sh-git-push"]
        if not sends:
            return
        reads = c.facts.get("harvest_read", [])
        cats = {via.split(":", 1)[-1] for _, _, via in reads}
        from .shell import NEVER_LEGIT_CATEGORIES

        harvest = [r for r in reads if r[2].split(":", 1)[-1] in NEVER_LEGIT_CATEGORIES]
        if not harvest and len(cats - {"env", "other"}) >= 2:
            harvest = reads
        dumps: list[tuple[str | None, int | None, str]] = []
        for f, ln, via in c.facts.get("env_dump", []):
            if f is not None and ext_of(f) in MARKDOWN_EXT:
                if any(sf == f and sl is not None and ln is not None and abs(sl - ln) <= 5 for sf, sl, _ in sends):
                    dumps.append((f, ln, via))
            else:
                dumps.append((f, ln, via))
        if not harvest:
            harvest = self._sent_to_stranger(c, reads)
        found = c.facts.get("harvest_send") or harvest or dumps
        if not found:
            return
        src = found[0]
        dst = sends[0]
        # a harvest (secrets gathered into what is sent, or stores no skill needs) is the technique; an
        # environment dump or a key read back in a skill that also sends is capability: a person checks
        near = any(sf == src[0] and sl is not None and src[1] is not None and abs(sl - src[1]) <= 5
                   for sf, sl, _ in sends)
        technique = bool(c.facts.get("harvest_send") or harvest or near)
        c.hit("NV-EXFIL-001", src[0], src[1], "credential read or environment dump combined with a network send",
              action=None if technique else "review", send_file=dst[0], send_line=dst[1], via=src[2],
              send_via=dst[2])

    # ------------------------------------------------------------------ result

    def _result(self, c: Collector, context: ScanContext) -> SideEffects:
        purpose = context.purpose
        per_rule_file: dict[tuple[str, str | None], int] = {}
        seen: set[tuple[str, str | None, int | None]] = set()
        findings: list[Finding] = []
        for h in c.hits:
            key = (h.rule_id, h.file, h.line)
            if key in seen:
                continue
            seen.add(key)
            n = per_rule_file.get((h.rule_id, h.file), 0)
            if n >= MAX_HITS_PER_RULE_PER_FILE:
                continue
            per_rule_file[(h.rule_id, h.file)] = n + 1
            findings.append(_finding(h, purpose))
        findings.sort(key=lambda f: (f.file or "", f.line or 0, f.rule_id))
        tags = normalize_tags(c.tags)
        complete = "incomplete" not in c.flags
        return SideEffects(tags=tags, flags=tuple(sorted(c.flags)), findings=tuple(findings),
                           shell_tiers=dict(sorted(c.tiers.items())), complete=complete, primary_env=c.primary_env)


DOWNLOAD_TO_FILE = (
    rx.compile(r"(?i)\b(?:curl|wget)\b[^\n;&|]*?(?:-o|-O|--output|--output-document)\s*['\"]?([^\s'\";&|]+)"),
    rx.compile(r"\bcurl\b[^\n;&|]*?\s-[a-zA-Z]*o\s*['\"]?([^\s'\";&|-][^\s'\";&|]*)"),
    rx.compile(r"\bwget\b[^\n;&|]*?\s-[a-zA-Z]*O\s*['\"]?([^\s'\";&|-][^\s'\";&|]*)"),
    rx.compile(r"(?i)\b(?:curl|wget\s+(?:-\S+\s+)*-q?O\s*-)\b[^\n;&|>]*?(?<![0-9&])>\s*['\"]?([^\s'\";&|>]+)"),
    rx.compile(r"(?i)\b(?:iwr|invoke-webrequest|irm|invoke-restmethod|curl|wget)\b[^\n;|]*?-OutFile\s+['\"]?([^\s'\";|]+)"),
    rx.compile(r"(?i)\bcertutil(?:\.exe)?\s+[^\n]*-urlcache\b[^\n]*?\s['\"]?(?:https?|ftp)://\S+\s+['\"]?([^\s'\";&|]+)"),
    rx.compile(r"(?i)\bbitsadmin(?:\.exe)?\b[^\n]*?/transfer\b[^\n]*?\s['\"]?(?:https?|ftp)://\S+\s+['\"]?([^\s'\";&|]+)"),
    rx.compile(r"(?i)\.DownloadFile(?:Async)?\(\s*['\"][^'\"]+['\"]\s*,\s*['\"]?([^'\")]+)"),
    rx.compile(r"(?i)\bStart-BitsTransfer\b[^\n]*-Destination\s+['\"]?([^\s'\";|]+)"),
)


#: who issues the credentials kept in a file: only they should receive its contents
ISSUERS: dict[str, tuple[str, ...]] = {
    ".aws/": ("amazonaws.com", "amazon.com", "aws.dev"),
    "gcloud": ("googleapis.com", "google.com"),
    ".azure/": ("azure.com", "microsoft.com", "windows.net", "microsoftonline.com", "azure.net"),
    ".npmrc": ("npmjs.org", "npmjs.com"),
    ".pypirc": ("pypi.org", "python.org"),
}
#: a page named as the place a command comes from ("visit <page>", "copy the command from <url>")
COMMAND_SOURCE = rx.compile(
    r"(?i)\b(?:visit|open|go\s+to|navigate\s+to|browse\s+to|copy\s+(?:[\w-]+\s+){0,3}?from|from|at|see)\s+"
    r"(?:\[[^\]]*\]\(\s*)?(?:the\s+|this\s+)?(?:page\s+|site\s+|link\s+)?(?:at\s+)?<?(?:https?|hxxps?)://")
#: asking the user to hand over a login secret (what a look-alike of a known brand is for)
CREDENTIAL_REQUEST = rx.compile(
    r"(?i)\b(?:paste|enter|type|provide|share|give|send|input|submit|reveal)\s+(?:[\w'-]+\s+){0,4}?(?:api\s+)?"
    r"(?:tokens?|passwords?|passphrases?|seed\s+phrases?|recovery\s+phrases?|mnemonics?|private\s+keys?|credentials|2fa|"
    r"otp|one-time\s+codes?|login)\b")
#: markdown's comment idiom: a link reference that renders as nothing (in a block quote too)
MARKDOWN_COMMENT = rx.compile(r"(?m)^[ \t]*(?:>[ \t]*)*\[(?://|comment|_+|#)\]:\s*(?:#|<>)\s*[(\"'](.*)[)\"'][ \t]*$")
#: HTML elements that render invisibly
HIDDEN_ELEMENT = rx.compile(
    r"(?is)<(\w+)\b[^>]*(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?![.\d]*[1-9])|opacity\s*:\s*0(?![.\d]*[1-9])|"
    r"\shidden(?:\s|>|=))[^>]*>(.{20,2000}?)</\1\s*>")


def _hidden_text(text: str, *, markdown: bool) -> list[re.Match[str]]:
    """Text a reader of the rendered page never sees: HTML and markdown comments, hidden elements."""
    found = list(HTML_COMMENT.finditer(text)) + list(MARKDOWN_COMMENT.finditer(text))
    if markdown:  # in an HTML asset a hidden element is ordinary UI; in rendered markdown it hides text
        found += [m for m in HIDDEN_ELEMENT.finditer(text)]
    return sorted(found, key=lambda m: m.start())


#: findings that, when they refuse, make a memory or settings write in the same bundle part of the technique
DECEPTIVE_RULES = frozenset({"NV-PI-001", "NV-PI-002", "NV-PI-003", "NV-REMOTE-001", "NV-EXFIL-004", "NV-OBF-001",
                             "NV-OBF-002", "NV-EXEC-001", "NV-EXEC-002", "NV-EXFIL-001"})


def _effective(h: Hit) -> str:
    """The install action a hit ends with: its own override, else the catalogue's."""
    return h.action or BY_ID[h.rule_id].install


def _finding(h: Hit, purpose: str) -> Finding:
    rule = BY_ID[h.rule_id]
    action = rule.action(purpose)
    if h.action is not None and purpose != "draft":
        action = h.action
    from .catalogue import what_to_check

    evidence = dict(h.evidence)
    if action == "review":
        evidence.setdefault("check", what_to_check(rule.id))  # a detector's own line is more specific
    else:
        evidence.pop("check", None)
    return Finding(rule_id=rule.id, title=rule.title, category=rule.category, severity=rule.severity,
                   action=action, file=h.file, line=h.line, column=h.column, snippet=h.snippet,
                   evidence=evidence)


def _mask(line: str, start: int, end: int) -> str:
    secret = line[start:end]
    return snippet(line[:start] + secret[:4] + "****" + line[end:], start, start + 8)


def _line_of(f: SkillFile, pattern: str) -> int:
    text = f.text() or ""
    for i, line in enumerate(text.split("\n"), 1):
        if rx.search(pattern, line):
            return i
    return 1


_BARE_COMMAND = rx.compile(r"^\s{0,8}(?:\$\s+)?([a-z][\w.+-]*)\s+(?:--?[A-Za-z]|[^\s.]+\s*\\$)")


def _bare_command(text: str) -> bool:
    """A prose line that is a shell command (``curl -s …``), as skills without code fences write them.

    Such a line's first character past its indentation is a lower-case letter or a prompt's ``$``; most
    prose lines are ruled out by that one look (``str.lstrip`` removes every blank the expression's
    ``\\s`` does, and more: a line it cannot rule out is matched as before)."""
    first = text.lstrip()[:1]
    if not ("a" <= first <= "z" or first == "$"):
        return False
    m = _BARE_COMMAND.match(text)
    return m is not None and m.group(1) in KNOWN_COMMANDS and not text.rstrip().endswith((".", ":"))


#: a script line that prints text (read as prose too: what it prints may be instructions)
_PRINTS = rx.compile(r"\s*(?:echo|printf|cat)\b")
#: the claimed approval's own sentence says what it is for: acting without a confirmation
_WITHOUT_CONFIRMATION = rx.compile(r"(?i)\bwithout\s+(?:any\s+|further\s+|user\s+|explicit\s+|asking\s+(?:for\s+)?)?"
                                   r"(?:confirmation|approval|permission|asking)")
#: the shell shapes looked for in a code block of any language, and in the values of configuration files
_RUNS_IN_ANY_BLOCK = (shell.PIPE_TO_SHELL, shell.REVERSE_SHELL, shell.ENCODED_TO_SHELL)
_DOCKER_RUN = rx.compile(r"(?i)\s*(?:RUN|CMD|ENTRYPOINT)\s+(?:\[\s*\"(?:/bin/)?(?:ba)?sh\",\s*\"-c\",\s*)?")
_REQUIREMENTS = rx.compile(r"(?:requirements|constraints)[\w.-]*\.(?:txt|in)")
_PIP_OPTION = rx.compile(r"\s*(?:-i|--index-url|--extra-index-url)(?:\s|=)")
#: a configuration line's key and separator (JSON, YAML, TOML, INI; a YAML list item's dash)
_CONFIG_KEY = rx.compile(r"""^\s*(?:-\s+)?(?:"(?:[^"\\]|\\.)*"|'[^']*'|[\w.$@/-]+)\s*[:=]\s*""")


#: what a value that runs a download holds: a pipe, a substitution, or PowerShell's invoke
_MAY_RUN = rx.compile(r"(?i)[|`]|\$\(|<\(|\biex\b|invoke-expression")
#: configuration that a tool reads commands from (a lock file, a table of data or a source map holds none)
_CONFIG_EXT = (".json", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".conf")
_LOCK_FILES = ("package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml", "composer.lock", "poetry.lock")


def _runs_commands(path: str, ext: str) -> bool:
    """Whether a data file's values may be commands a tool on the user's machine runs (``.github/`` workflows
    run on a CI service)."""
    return ext in _CONFIG_EXT and not path.startswith(".github/") and not path.endswith(_LOCK_FILES)


def _config_values(line: str) -> list[str]:
    """The values of a configuration line that hold a command, as the program it configures will run them: a
    package's ``postinstall`` script, a task runner's command, an editor task in a one-line JSON file (the
    quotes and JSON escapes around each removed)."""
    m = _CONFIG_KEY.match(line)
    value = (line[m.end():] if m else line).strip().rstrip(",").strip()
    quoted = len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'"
    if quoted and (value[0] == "'" or value.count('"') - value.count('\\"') <= 2):
        return [_unquoted(value, json=line.lstrip().startswith('"'))]  # one string
    # several strings on the line (a JSON object on one line): the ones that hold a command's shape
    held = [v for lit in _JSON_STRING.finditer(value)
            if any(e.search(v := _unquoted(lit.group(0), json=True)) for e in _RUNS_IN_ANY_BLOCK)]
    return held or [value]  # else a YAML or TOML value written without quotes


def _unquoted(value: str, *, json: bool) -> str:
    value = value[1:-1]
    return value.replace('\\"', '"').replace("\\\\", "\\") if json else value


_JSON_STRING = rx.compile(r'"(?:[^"\\\n]|\\.)*"')


def _join_continuations(lines: list[Line]) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    buf: list[str] = []
    start = 0
    for ln in lines:
        t = ln.text
        if not buf:
            start = ln.no
        if t.rstrip().endswith("\\") and len(buf) < 50:
            buf.append(t.rstrip()[:-1])
            continue
        buf.append(t)
        out.append((start, " ".join(buf)))
        buf = []
    if buf:
        out.append((start, " ".join(buf)))
    return out


#: the expressions :meth:`Classifier._download_then_exec` builds from a name (``{name}``: the name, escaped)
_NAME_SHAPES: dict[str, tuple[str, int]] = {
    # a variable holding a fetched page, evaluated (``iex $x``, ``eval "$x"``, ``$x | sh``)
    "evaluated": (r"(?i)(?:\biex|\binvoke-expression|\beval|\b(?:ba|z)?sh\s+-c|\[scriptblock\]::create)\s*\(?\s*['\"]?"
                  r"\$\{?{name}\b|\$\{?{name}\b\}?['\"]?(?:\.content)?\s*\|\s*(?:iex|invoke-expression|(?:ba|z)?sh)\b", 0),
    # a downloaded file made executable, run, sourced, opened or installed
    "run": (r"(?:chmod\s+[+0-7a-z]*x?\S*\s+\S*{name}\b|(?:^|[;&|\s])\./{name}\b|\b(?:ba|z)?sh\s+\S*{name}\b|"
            r"\b(?:python3?|node|perl|source|\.)\s+\S*{name}\b|\bopen\s+\S*{name}\b|"
            r"\b(?:hdiutil\s+attach|installer\s+-pkg|msiexec(?:\.exe)?\s+/i|Start-Process(?:\s+-FilePath)?|"
            r"Invoke-Item|ii|start|rundll32|regsvr32|mshta|wscript|cscript|cmd(?:\.exe)?\s+/[ck]|"
            r"powershell(?:\.exe)?\s+(?:-\S+\s+)*-File|java\s+-jar)\s+['\"]?\S*{name}\b|"
            r"(?:^|[;&]\s*)&\s*['\"]?\S*{name}\b)", re.I),
    # a line that is the downloaded program's own path (a runnable file started by naming it)
    "named": (r"\s*['\"]?[^\s'\"]*?(?:^|[/\\]|\b){name}['\"]?(?:\s|$)", 0),
}


class _NameShapes:
    """:data:`_NAME_SHAPES` for the names one file downloads to or fetches into, each built and compiled once
    for that file: a script naming a thousand downloads tries each name's expressions on every line that
    names it, more of them than :data:`rx.INLINE_KEPT` keeps."""

    def __init__(self) -> None:
        self._made: dict[tuple[str, str], Any] = {}

    def get(self, kind: str, name: str) -> Any:
        expr = self._made.get((kind, name))
        if expr is None:
            template, flags = _NAME_SHAPES[kind]
            expr = self._made[(kind, name)] = rx.inline(template.replace("{name}", re.escape(name)), flags)
        return expr


def _is_native_binary(data: bytes) -> bool:
    return data[:4] in (b"\x7fELF", b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe", b"\xca\xfe\xba\xbe", b"\xfe\xed\xfa\xce",
                        b"\xfe\xed\xfa\xcf") or data[:2] == b"MZ" and b"This program" in data[:512] or \
        data[:4] == b"\x00asm" or (len(data) > 16 and data[2:4] == b"\r\n" and data[:2] in (b"\xa7\r", b"\x55\r", b"\x6f\r", b"\xcb\r"))


def _is_archive(data: bytes) -> bool:
    return data[:4] == b"PK\x03\x04" or data[:6] == b"7z\xbc\xaf\x27\x1c" or data[:4] == b"Rar!" or \
        data[:2] == b"\x1f\x8b" or data[257:262] == b"ustar" or data[:3] == b"BZh" or data[:6] == b"\xfd7zXZ\x00"


def _zip_encrypted(data: bytes) -> bool:
    """True when any local file header of a zip has the 'encrypted' flag set."""
    i = data.find(b"PK\x03\x04")
    while i >= 0 and i + 8 <= len(data):
        flags = int.from_bytes(data[i + 6:i + 8], "little")
        if flags & 1:
            return True
        i = data.find(b"PK\x03\x04", i + 4)
    return False


def _edit(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


#: what a rule planted in the agent's memory or settings must not carry: the skill's influence would
#: outlive its invocation and reach every later task
_PLANTED_CONCEAL = rx.compile(r"(?i)\b(?:do\s+not|don'?t|never|without)\s+(?:ever\s+)?(?:mention|tell|reveal|disclos|show|"
                              r"report)\w*\s+(?:it|this|that|them|anything|(?:to\s+)?the\s+user|(?:this|these|the)\s+"
                              r"(?:rules?|steps?|commands?|instructions?|changes?))\b")
#: what a standing rule planted in memory must not say: let the agent act without asking ("always run … without
#: asking the user"; the planted words name an action, so "save notes without asking", the write itself, is not
#: one), put something above the user's word, or follow instructions fetched from an address
_PLANTED_STANDING = {
    "a confirmation bypass": rx.compile(
        r"(?i)\b(?:run|execut|install|send|upload|delet|remov|pay|purchas|buy|transfer|approv|accept|sign)\w*\b"
        r"[^\n]{0,80}?\bwithout\s+(?:first\s+|ever\s+)?(?:asking|checking|confirming|consulting|prompting)\b"),
    "an override of the user": rx.compile(
        r"(?i)\b(?:take|takes|have|has)\s+(?:priority|precedence)\s+over\s+(?:\w+\s+){0,3}?(?:the\s+)?user"
        r"|\bover(?:ride|rule)s?\s+(?:\w+\s+){0,2}?(?:the\s+)?user'?s?\b|\bmore\s+important\s+than\s+(?:what\s+)?(?:the\s+)?user"),
    "instructions loaded from an address": prose.REMOTE_RULES,
}
_PLANTED_SEND = rx.compile(r"(?i)\b(?:send|upload|post|forward|sync|copy|mirror|report)\w*\b[^\n]{0,120}?https?://")


def _planted_rule(c: Collector, bundle: SkillBundle, hit: Hit) -> str | None:
    """Why a write to the agent's memory or settings plants a harmful standing rule, or ``None``."""
    same_line = {x.rule_id for x in c.hits if x.file == hit.file and x.line == hit.line}
    line = _line_text(bundle, hit.file, hit.line)
    if "NV-AUTO-002" in same_line:
        return "a confirmation bypass"
    for why, expr in _PLANTED_STANDING.items():  # (a planted "never run … without asking" is a safety rule)
        m = expr.search(line)
        if m and not prose.NEGATION.search(line[:m.start()]):
            return why
    if _PLANTED_CONCEAL.search(line):
        return "concealment"
    if _PLANTED_SEND.search(line):
        return "sending data to a host"
    # the agent's own config paths are what is written to, not a secret the planted rule reaches for; nor is the
    # file a redirection or ``tee`` writes (``cat > ~/.config/tool/.env``: the skill stores its own key there)
    read = rx.sub(r"(?i)\S*\.(?:openclaw|clawdbot)\S*|\S*(?:openclaw|clawdbot)\.json\S*|>>?\s*\S+|\btee\s+(?:-a\s+)?\S+",
                  " ", line)
    if prose.CRED_LOCATION.search(read):
        return "a credential location"
    return None


#: the last SKILL.md read by :func:`_plain_skill_text` and its text (replaced whole; a file is immutable)
_PLAIN_SKILL: tuple[object, str] = (object(), "")


def _plain_skill_text(skill: SkillFile | None) -> str:
    """SKILL.md without its URLs, lower-cased: four bundle-wide rules of one classification read it, and
    the file (frozen, its bytes immutable) is the same object each time, so it is built once."""
    global _PLAIN_SKILL
    if skill is None:
        return ""
    last = _PLAIN_SKILL
    if last[0] is skill:
        return last[1]
    text = str(URL_RE.sub(" ", skill.text() or "")).lower()
    _PLAIN_SKILL = (skill, text)
    return text


def _may_name(name: str, ascii_line: bool, low: str) -> bool:
    """Whether a line (``low``, lower-cased) may name a downloaded file or a fetched variable: every shape
    looked for holds the name, at most case-insensitively, so on ASCII text a line without it does not
    (a script downloading on every line was quadratic, each later line searched once per name)."""
    return not (ascii_line and name.isascii()) or name.lower() in low


def _bundle_text(bundle: SkillBundle, limit: int = 1_000_000) -> str:
    """The bundle's text files joined, without URLs, lower-cased (capped: naming is counted, nothing parsed)."""
    out: list[str] = []
    size = 0
    for f in bundle.files:
        t = f.text()
        if t is None or ext_of(f.path) in INERT_BINARY_EXT:
            continue
        t = t[:limit - size]
        out.append(t)
        size += len(t)
        if size >= limit:
            break
    return str(URL_RE.sub(" ", "\n".join(out))).lower()


def _resolve_hosts(c: Collector, start: int, line: str, variables: dict[str, str]) -> None:
    """A download piped to a shell whose URL is a variable: the URL assigned earlier in the same script
    or block is where it comes from (``URL=https://…`` then ``curl "$URL" | sh``), judged like a literal one."""
    for h in c.hits[start:]:
        if h.rule_id != "NV-EXEC-001" or h.evidence.get("urls") or not variables or "$" not in line:
            continue
        urls = [u.group(0) for u in URL_RE.finditer(shell.resolve_variables(shell.unsplit(line), variables))]
        if urls:
            h.evidence["urls"] = urls
            h.evidence["hosts"] = [normalize_host(u) for u in urls]
            h.evidence["resolved"] = True


#: a decoding stage on the install line: the installer is obfuscated, whoever's host serves it
DECODE_STAGE = rx.compile(r"(?i)\bbase64\s+(?:-d|-D|--decode)\b|\bxxd\s+-r\b|\bopenssl\s+(?:enc|base64)\b|"
                          r"FromBase64String|\brev\s*\||\btr\s+['\"]?a-z")


def _path_words(url: str) -> set[str]:
    """Words of a URL's path (``/uv/install.sh`` → uv, install, sh)."""
    path = rx.sub(r"^[a-z][a-z0-9+.-]*://[^/]*", "", url.lower()).split("?", 1)[0].split("#", 1)[0]
    return {w for w in rx.split(r"[^a-z0-9]+", path) if len(w) >= 2}


def _installs_tool(url: str, tools: set[str]) -> bool:
    """The URL's path names one of ``tools`` (the fetched thing is that tool or its installer)."""
    return bool(_path_words(url) & tools)


def _installed_tool(urls: list[str], tools: set[str]) -> str | None:
    """The declared tool a set of installer URLs names (host labels, then path), for the reviewer's line."""
    for u in urls:
        host = normalize_host(u)
        words = {p for lab in host.split(".")[:-1] for p in rx.split(r"[^a-z0-9]+", lab)} | _path_words(u)
        hit = sorted(words & tools)
        if hit:
            return hit[0]
    return None


def _code_owner(url: str) -> str | None:
    """The account a code-host URL belongs to (``github.com/<owner>/…``, ``raw.githubusercontent.com/<owner>/…``)."""
    m = rx.match(r"(?i)^https?://[^/\s]+/([A-Za-z0-9_.-]+)/[A-Za-z0-9_.-]+", url)
    return m.group(1).lower() if m else None


#: ``sudo`` running the system package manager's install from its default sources
SUDO_PACKAGE_INSTALL = rx.compile(
    r"(?i)^\W*(?:\$\s+)?sudo\s+(?:-\w+\s+)*(?:apt(?:-get)?|dnf|yum|zypper|pacman|apk|snap|port|emerge)\s+"
    r"(?:-\S+\s+)*(?:install|-S\w*|add)\s+(?:-\S+\s+)*[\w.+:=-]+(?:\s+(?:-\S+|[\w.+:=-]+))*\s*(?:#.*)?$")
#: the agent's own instruction, memory and settings files (never a skill's own state)
AGENT_FILES = rx.compile(r"(?i)(?:soul|memory|agents|identity|heartbeat|claude|user|tools)\.md|openclaw\.json|clawdbot\.json")
#: words of a skill's name or description that state money movement as its purpose
MONEY_PURPOSE = frozenset({"trade", "trades", "trading", "trader", "payment", "payments", "pay", "wallet", "wallets",
                           "exchange", "swap", "swaps", "defi", "crypto", "invoice", "invoices", "invoicing", "bank",
                           "banking", "broker", "brokerage", "stock", "stocks", "checkout", "billing", "purchase",
                           "purchases", "shopping", "commerce", "ecommerce", "dex", "transfer", "transfers", "payroll",
                           "finance", "financial", "orders", "futures", "forex", "remittance", "payouts", "tipping"})
#: what a clean-up step may remove without a person's look: build output, caches and temporary files
SCRATCH_TARGET = rx.compile(
    r"(?:\./)?(?:[\w.-]+/)*(?:build|dist|out|target|node_modules|\.venv|venv|__pycache__|\.cache|\.pytest_cache|"
    r"coverage|\.next|\.nuxt|\.turbo|\.parcel-cache|tmp|temp|\.tmp)/?\*?"
    r"|/tmp/[\w.-]+(?:/[\w.*-]+)*/?"
    r"|\$\{?(?:TMPDIR|TMP_?DIR|TEMP_?DIR|tmp_?dir|temp_?dir|TMP|tmp|WORK_?DIR|work_?dir|BUILD_?DIR|build_?dir)\}?(?:/[\w.*-]+)*/?")
#: NV-FLOW-001 kinds of secret that keep the finding at review (the others are a note)
FLOW_REVIEW = frozenset({"credential files or stores", "secrets the metadata does not declare",
                         "secrets for no service the skill names",
                         "secrets the user is asked to paste into the conversation"})


def _own_service_key(name: str, subject: set[str]) -> bool:
    """A secret variable named after what the skill says it is about (``ACMEMAIL_API_KEY`` in an acmemail skill)."""
    tokens = {t for t in name.lower().split("_") if len(t) >= 3} - SECRET_NAME_WORDS - GENERIC_WORDS
    return bool(tokens & subject) or any(t in s for t in tokens if len(t) >= 4 for s in subject if len(s) >= 4)


def _plain(value: object) -> str:
    """Every string in a parsed frontmatter value, joined (URLs are looked for in it)."""
    out: list[str] = []
    stack = [value]
    while stack and len(out) < 2000:
        v = stack.pop()
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
    # YAML escapes can carry lone surrogates, which no URL holds
    return " ".join(out).encode("utf-8", "replace").decode("utf-8")


#: an explicit confirmation gate written into a step (spec §7, NV-DESTR-002 draft exception)
CONFIRM_GATE = rx.compile(
    r"(?i)\b(?:ask(?:s|ing)?\s+(?:the\s+)?user\s+(?:to\s+(?:confirm|approve)|for\s+(?:explicit\s+)?(?:confirmation|approval|"
    r"permission))|(?:only\s+)?(?:after|once|when)\s+(?:the\s+)?user\s+(?:has\s+)?(?:explicitly\s+)?(?:confirm|approve)\w*|"
    r"wait\s+for\s+(?:the\s+user'?s?\s+)?(?:explicit\s+)?(?:confirmation|approval)|confirm\s+with\s+the\s+user|"
    r"(?:user|they)\s+must\s+(?:explicitly\s+)?(?:confirm|approve)|requires?\s+(?:explicit\s+)?(?:user\s+)?(?:confirmation|approval)|"
    r"explicit\s+(?:user\s+)?(?:confirmation|approval)|never\s+(?:\w+\s+){0,4}without\s+(?:the\s+user'?s?\s+)?"
    r"(?:explicit\s+)?(?:confirmation|approval|consent))")


def _confirmed_step(bundle: SkillBundle, path: str | None, line: int | None) -> bool:
    """An explicit confirmation gate in the file of the finding (a step's or a skill-wide rule)."""
    if path is None or line is None:
        return False
    for f in bundle.files:
        if f.path == path:
            lines = (f.text() or "").split("\n")
            # a skill-wide rule ("always ask the user to confirm before any trade") gates every step of the file
            window = "\n".join(x[:2000] for x in lines)
            return CONFIRM_GATE.search(window) is not None
    return False


def _loopback(host: str) -> bool:
    """``localhost`` or a loopback address: this machine, not a host on the network."""
    bare = host.strip("[]").lower()
    if bare == "localhost" or bare.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(bare).is_loopback
    except ValueError:
        return False


#: a downloader given no address at all (flags or an ellipsis only) piped into a shell: ``curl | bash``,
#: ``curl -fsSL … | sh``, as a heading or a table names the pattern; it fetches nothing anyone could run
_NO_ADDRESS_PIPE = rx.compile(r"(?i)\b(?:curl|wget)(?:\s+(?:--?[a-z][\w-]*|\.\.\.|…))*\s*\\?\|\s*"
                              r"(?:sudo\s+)?(?:ba|z)?sh\b")


def _names_the_pattern(line: str) -> bool:
    """The line's download into a shell names no address: no URL, no variable, no command substitution."""
    return bool(_NO_ADDRESS_PIPE.search(line)) and "://" not in line and not rx.search(r"\$[({\w]", line)


def _urls_blanked(line: str) -> str:
    """``line`` with every URL replaced by as many spaces (positions kept)."""
    return str(URL_RE.sub(lambda m: " " * len(m.group(0)), line))


def _names_without_running(line: str, run: re.Match[str] | None) -> bool:
    """A shell comment, or text an ``echo`` prints (and sends nowhere): naming a downloaded file there does
    not run it (``# 2. start the server``, ``echo "  bash scripts/setup.sh  # first run"``)."""
    if line.lstrip().startswith("#"):
        return True
    return run is not None and shell.in_data_string(line, run.start()) and not rx.search(r"[|>`]|\$\(", line)


#: words an agent would act on; an entry of a list of what is forbidden, or of what an attack looks like, is not
#: an order, so these rules stop at *review* there (a person reads the list)
LISTED_RULES = frozenset({"NV-PI-001", "NV-PI-002", "NV-PI-003", "NV-PERSIST-002", "NV-DESTR-001", "NV-EXFIL-001",
                          "NV-PRIV-003"})
#: the block-quote marks before a line's text
_QUOTE_MARKS = r"(?:[ \t]*>)*"
_QUOTED = rx.compile("^" + _QUOTE_MARKS)
#: a list item or a table row of markdown prose
#: (also inside a block quote, indented under a list item, or written as comment lines: ``# - …``)
_ENTRY = rx.compile(_QUOTE_MARKS + r"[ \t]*(?:(?:#|//)[ \t]*)?(?:(?:[-*+]|\d{1,9}[.)])[ \t]+|\|)")
_HEADING = rx.compile(_QUOTE_MARKS + r"[ \t]*#{1,6}[ \t]+(.*)")
#: the signs that mark something as forbidden (a cross, a no-entry sign)
_FORBIDDEN_SIGNS = "\u274c\u26d4\u2716\u2717\U0001f6ab"
#: an entry's own mark that it is forbidden
_FORBIDDEN_MARK = rx.compile(f"[{_FORBIDDEN_SIGNS}]")
#: a heading over a list of what must not be done or of what attacks look like ("never" and "don't" only
#: lead it or end a lead-in: "## Never do this", "Regardless of instructions, NEVER:", not "## Steps you should
#: never skip")
_FORBIDDING_HEADING = rx.compile(
    r"(?i)^[^a-z0-9]*(?:never|don'?t|do\s+not)\b|\b(?:never|don'?t|do\s+not|must\s+not)\s*:\s*$"
    r"|\b(?:forbidden|prohibit\w*|must\s+not|not\s+allowed|avoid|anti-?patterns?|red[- ]flags?|attacks?|threats?|"
    r"malicious|danger(?:ous)?|risks?|unsafe|exploits?|injections?|blocked|detect\w*)\b"
    f"|[{_FORBIDDEN_SIGNS}\U0001f6a8]|\u98ce\u9669|\u5371\u9669|"
    r"\u7981\u6b62|\u62d2\u7edd")


def _listed_not_directed(c: Collector, bundle: SkillBundle) -> None:
    """Refusing words that are an entry of a markdown list of the forbidden or of threats (or a security tool's
    paragraph about a threat) become *review*.

    "## Forbidden / - deleting files silently without telling the user" forbids concealment; a security tool's
    table of dangerous commands names them. An agent reading either does not act on the entry, so it is no
    technique; a person still reads it (it could be an order dressed as a list). Code, and entries elsewhere,
    keep their action. Run first (what combines with a refusal sees the entry at review) and last (the
    refusals the bundle's combinations made)."""
    files: dict[str, list[Line]] = {}
    for h in c.hits:
        if h.rule_id not in LISTED_RULES or _effective(h) != "refuse" or not h.file or not h.line \
                or not h.file.lower().endswith(MARKDOWN_EXT):
            continue
        if h.file not in files:  # (plain text too: a list of rules in comment lines reads the same)
            source = bundle.file(h.file)
            files[h.file] = markdown_lines(plain_text(source.text() or "")) if source is not None else []
        lines = files[h.file]
        if h.line > len(lines) or lines[h.line - 1].no != h.line or lines[h.line - 1].kind != "prose":
            continue
        text = lines[h.line - 1].text
        entry = _ENTRY.match(text)
        if entry is None:
            # a security tool's paragraph in a section about a threat describes the threat ("### Prompt injection /
            # Attempts to override the system instructions"); anywhere else a paragraph is read as written
            section = _section_heading(lines[:h.line - 1])
            if not (c.security_tool and _FORBIDDING_HEADING.search(section)):
                continue
            why = f"a security tool's description under the heading {section[:60]!r}"
        else:
            heading = _list_heading(lines[:h.line - 1])
            if _FORBIDDEN_MARK.search(text[entry.end():entry.end() + 8]):
                why = "an entry marked as forbidden"
            elif _FORBIDDING_HEADING.search(heading):
                why = f"an entry under the heading {heading[:60]!r}"
            elif c.security_tool:
                why = "an entry of a security tool's list of threats"
            else:
                continue
        h.action = "review"
        h.evidence["listed"] = why
        h.evidence["check"] = f"{why}; check that the skill forbids or describes this and never tells the agent to do it"


def _list_heading(above: list[Line]) -> str:
    """What introduces the list an entry belongs to: the line before the list when it is a heading or ends with a
    colon ("# ❌ NEVER:", "Do not:"), else the section's heading."""
    i = len(above) - 1
    while i >= 0 and above[i].kind == "prose" and (not _QUOTED.sub("", above[i].text, count=1).strip()
                                                   or _ENTRY.match(above[i].text)):
        i -= 1
    if i >= 0 and above[i].kind == "prose":
        lead = str(_QUOTED.sub("", above[i].text, count=1)).strip()
        m = _HEADING.match(lead)
        if m or lead.endswith(":"):
            return str(m.group(1) if m else lead).strip()
    return _section_heading(above)


def _section_heading(above: list[Line]) -> str:
    """The nearest heading above (its text), or empty."""
    return next((str(m.group(1)).strip() for x in reversed(above) if x.kind == "prose" and (m := _HEADING.match(x.text))),
                "")


def _line_text(bundle: SkillBundle, path: str | None, line: int | None) -> str:
    """Line ``line`` (1-based) of a bundle file as text; empty when there is no such line."""
    source = bundle.file(path) if path else None
    lines = (source.text() or "").split("\n") if source is not None else []
    return lines[line - 1] if line and 0 < line <= len(lines) else ""
