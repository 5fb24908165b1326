"""Text helpers shared by the detectors: line segmentation, URLs, quoting heuristics, snippets."""

from __future__ import annotations

import functools
import ipaddress
import re
from collections import deque
from collections.abc import Iterator
from typing import NamedTuple

from . import rx

MARKDOWN_EXT = (".md", ".markdown", ".mdx", ".txt", ".rst", ".skill", ".mdc")
#: the files written in markdown itself (the others of MARKDOWN_EXT are read like it, as prose and fences)
MARKDOWN_ONLY_EXT = (".md", ".markdown", ".mdx", ".skill", ".mdc")
SHELL_EXT = (".sh", ".bash", ".zsh", ".command", ".ksh")
PYTHON_EXT = (".py", ".pyw")
JS_EXT = (".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx", ".mts", ".cts")
DATA_EXT = (".json", ".yaml", ".yml", ".toml", ".csv", ".tsv", ".xml", ".svg", ".lock", ".ini", ".cfg", ".conf",
            ".css", ".bib", ".gitkeep", ".gitignore", ".env.example", ".sample", ".jsonl", ".ndjson", ".map",
            ".txt.example", ".properties", ".editorconfig", ".npmignore", ".prettierrc", ".eslintrc")
HTML_EXT = (".html", ".htm", ".vue", ".svelte")
#: Scripts in languages nervous has no detector for (assume the worst, §4).
OTHER_CODE_EXT = (".go", ".rb", ".php", ".pl", ".pm", ".ps1", ".psm1", ".bat", ".cmd", ".vbs", ".rs", ".java",
                  ".kt", ".swift", ".c", ".cc", ".cpp", ".h", ".hpp", ".cs", ".lua", ".r", ".scala", ".ex",
                  ".exs", ".applescript", ".scpt", ".groovy", ".dart", ".zig", ".nim", ".jl", ".fish", ".awk")
BINARY_CODE_EXT = (".pyc", ".pyo", ".so", ".dll", ".exe", ".dylib", ".bin", ".o", ".a", ".class", ".wasm",
                   ".node", ".msi", ".app", ".elf", ".com", ".scr", ".jar", ".apk", ".deb", ".rpm", ".dmg", ".pkg")
ARCHIVE_EXT = (".zip", ".tar", ".gz", ".tgz", ".bz2", ".xz", ".7z", ".rar", ".whl", ".zst", ".cab", ".iso")
INERT_BINARY_EXT = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".ico", ".bmp", ".tiff", ".avif", ".heic", ".woff",
                    ".woff2", ".ttf", ".otf", ".eot", ".pdf", ".mp3", ".mp4", ".wav", ".ogg", ".webm", ".mov",
                    ".m4a", ".flac", ".docx", ".xlsx", ".pptx", ".odt", ".ods", ".odp", ".ds_store", ".psd",
                    ".sqlite", ".db", ".parquet", ".npy", ".pt", ".onnx")

#: code-fence languages that name no language: their lines are read as a block without one is
PLAIN_LANGS = frozenset({"text", "txt", "plaintext", "plain", "none", "nohighlight"})
SHELL_LANGS = {"sh", "bash", "shell", "zsh", "console", "terminal", "shellsession", "shell-session", "sh-session",
               "bash-session", "shellscript", "shell-script", "batch", "dos", "posh", "pwsh-session",
               "cmd", "bat", "powershell",
               "ps1", "ps", "pwsh", "fish", "ksh", "cli", "command", "commandline"}
PYTHON_LANGS = {"python", "py", "python3", "ipython", "pycon"}
JS_LANGS = {"javascript", "js", "typescript", "ts", "node", "jsx", "tsx", "mjs"}

#: a public SSH key written out in full (its type and base64 body): the shell's and the phrase rules' key plants
PUBLIC_KEY = r"(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-nistp\d+)\s+AAAA[0-9A-Za-z+/]{16,}"
URL_RE = rx.compile(r"""(?i)\b(?:https?|ftp|wss?)://[^\s<>"'`)\]}|\\]+""")
FENCE_RE = rx.compile(r"^\s{0,3}(`{3,}|~{3,})\s*([\w+#.-]*)")
#: a fence under a list item may be indented as deep as the item's text
LIST_FENCE_RE = rx.compile(r"^\s*(`{3,}|~{3,})\s*([\w+#.-]*)")
INLINE_CODE_RE = rx.compile(r"`([^`\n]+)`")


#: characters every reader takes for a space (no-break, en/em, thin, ideographic...): a command or an
#: instruction written with them reads the same to a person and a model as with plain spaces
OTHER_SPACES = rx.compile("[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]")


def plain_text(text: str) -> str:
    """``text`` as its reader sees it: no leading byte-order mark, every kind of space a plain one.

    The detectors read this; the checks for hidden characters read the text as it is.
    """
    if text.isascii():
        return text
    text = text.removeprefix("\ufeff")
    return OTHER_SPACES.sub(" ", text) if OTHER_SPACES.search(text) else text


class Line(NamedTuple):
    """One line of a file with what kind of content it is (a tuple: a large file makes tens of thousands,
    and a frozen attrs class costs several times a tuple to build)."""

    no: int  # 1-based
    text: str
    kind: str  # prose | code | script
    lang: str = ""  # code-fence language or script language
    quoted: bool = False  # a code block introduced as an example of bad behaviour / quoted data


def ext_of(path: str) -> str:
    name = path.rsplit("/", 1)[-1].lower()
    if name.endswith(".env.example"):
        return ".env.example"
    dot = name.rfind(".")
    return name[dot:] if dot > 0 else ("." + name if name.startswith(".") else "")


_BAD_EXAMPLE_RE = rx.compile(
    r"(?i)(malicious|attack(?:er)?s?\b|dangerous|\bbad\b|\bunsafe|\bevil|exploit|payload|\bavoid|"
    r"\bnever\b|\bdetect|\bflag(?:s|ged)?\b|red[- ]flag|suspicious|example of|\u274c|\u26a0|\bblocked\b|"
    r"\bvulnerab|injection|\bthreat|indicator|signature)"
)


#: the markers of a block quote (``> ``, nested ``> > ``) before a line's content
_QUOTE_MARKS = rx.compile(r"[ ]{0,3}>(?:[ \t]?>)*[ \t]?")
#: an HTML code block in markdown (``<pre>``, ``<pre><code class="language-sh">``) and its end
_PRE_OPEN = rx.compile(r"[ ]{0,3}<pre\b([^>]*)>(?:\s*<code\b([^>]*)>)?", re.I)
_PRE_CLOSE = rx.compile(r"(?:</code>\s*)?</pre\s*>", re.I)
_PRE_LANG = rx.compile(r"(?:language|lang)-([\w+#.-]+)", re.I)
#: a list item's first line: the lines indented under it continue the item (they are not code)
_LIST_ITEM = rx.compile(r"[ ]{0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
#: the characters one of which starts a list item after its spaces (most lines start with none: not searched)
_LIST_MARKS = frozenset("-*+0123456789")


def markdown_lines(text: str, *, indented_code: bool = True) -> list[Line]:
    """Split markdown into prose and code lines; code blocks remember their language.

    Code is what a reader sees as code: fenced blocks, also inside a block quote (their lines are given
    without the quote's ``>`` marks), HTML ``<pre>`` blocks (their lines without the tags), and with
    ``indented_code`` (a markdown file, not plain text such as a licence, whose indented lines are prose)
    blocks indented by four spaces or a tab after a blank line outside any list (CommonMark's indented code).
    """
    out: list[Line] = []
    append = out.append
    fence: str | None = None
    fence_quoted = False  # the open fence is inside a block quote
    fence_indent = 0  # the spaces before the open fence
    indented = False  # inside an indented code block
    in_list = False
    blank = True  # the line before was blank (or this is the first)
    lang = ""
    quoted = False
    recent: deque[str] = deque(maxlen=3)  # the last three non-blank prose lines
    pre = False  # inside an HTML <pre> block
    for i, raw in enumerate(text.split("\n"), 1):
        if pre or "<pre" in raw or "<PRE" in raw:
            opened = None if pre else _PRE_OPEN.match(raw)
            if pre or opened:
                if opened:
                    pre, indented, blank = True, False, False
                    found = _PRE_LANG.search((opened.group(1) or "") + " " + (opened.group(2) or ""))
                    lang, quoted = (found.group(1).lower() if found else ""), any(_BAD_EXAMPLE_RE.search(r) for r in recent)
                start = opened.end() if opened else 0
                closed = _PRE_CLOSE.search(raw, start)
                append(Line(i, raw[start:closed.start() if closed else len(raw)], "code", lang, quoted))
                if closed:
                    pre, lang, quoted = False, "", False
                    append(Line(i, "", "fence"))  # the block ends here (an empty line: nothing is read twice)
                continue
        body = raw
        marks = _QUOTE_MARKS.match(raw) if ">" in raw[:4] else None
        if marks:
            body = raw[marks.end():]
        if fence is not None and fence_quoted and not marks:
            fence, lang, quoted = None, "", False  # the block quote ended, and its fence with it
        if fence is not None:
            seen = body if fence_quoted else raw
            stripped = seen.strip()
            if stripped.startswith(fence[0] * len(fence)) and not stripped.strip(fence[0]):
                fence, lang, quoted = None, "", False
                append(Line(i, raw, "fence"))
            else:  # without the fence's own indentation, as the block shows its lines
                append(Line(i, seen[min(fence_indent, len(seen) - len(seen.lstrip(" "))):], "code", lang, quoted))
            continue
        # a fence has three of either
        m = (LIST_FENCE_RE if in_list else FENCE_RE).match(body) if "``" in body or "~~" in body else None
        if m:
            fence, lang, fence_quoted, indented = m.group(1), m.group(2).lower(), bool(marks), False
            fence_indent = len(body) - len(body.lstrip(" "))
            quoted = any(_BAD_EXAMPLE_RE.search(r) for r in recent)
            append(Line(i, raw, "fence", lang))
            blank = False
            continue
        if not raw.strip():
            append(Line(i, raw, "code" if indented else "prose", "", indented and quoted))
            blank = True
            continue
        if indented_code and raw.startswith(("    ", "\t")) and (indented or blank and not in_list):
            if not indented:
                indented, quoted = True, any(_BAD_EXAMPLE_RE.search(r) for r in recent)
            append(Line(i, raw[4:] if raw.startswith("    ") else raw[1:], "code", "", quoted))
            blank = False
            continue
        if raw.lstrip(" ")[:1] in _LIST_MARKS and _LIST_ITEM.match(raw):
            in_list = True
        elif blank and not raw[0].isspace():
            in_list = False  # a paragraph at the left margin after a blank line ends the list
        indented, quoted, blank = False, False, False
        append(Line(i, raw, "prose"))
        recent.append(raw)
    return out


def script_lines(text: str, lang: str) -> list[Line]:
    return [Line(i, raw, "script", lang) for i, raw in enumerate(text.split("\n"), 1)]


def is_quoted(line: str, start: int, end: int, *, backticks: bool = True) -> bool:
    """Whether ``line[start:end]`` sits inside quotes, backticks or a table row: quoted as data."""
    if line.lstrip().startswith("|"):
        return True
    before, after = line[:start], line[end:]
    for q in ('"', "`", "\u201c", "'", "\u2018"):
        if q == "`" and not backticks:
            continue
        close = {"\u201c": "\u201d", "\u2018": "\u2019"}.get(q, q)
        if q == "'":
            # apostrophes inside words are not quotes
            opens = [m.start() for m in rx.finditer(r"(?<![A-Za-z])'", before)]
            if len(opens) % 2 == 1 and rx.search(r"'(?![A-Za-z])", after):
                return True
            continue
        if q == close:
            if before.count(q) % 2 == 1 and q in after:
                return True
        elif before.rfind(q) > before.rfind(close) and close in after:
            return True
    return False


def snippet(text: str, start: int = 0, end: int | None = None, width: int = 200) -> str:
    begin = max(0, start - 40)
    stop = min((end if end is not None else len(text)) + 40, begin + 4 * width)  # never copies a long line
    s = text[begin:stop].strip()
    return s if len(s) <= width else s[: width - 1] + "\u2026"


def url_host(url: str) -> str:
    from nervous.plugin.toolkit import normalize_host

    return normalize_host(url)


def iter_urls(text: str) -> Iterator[re.Match[str]]:
    matches: Iterator[re.Match[str]] = URL_RE.finditer(text)
    return matches


def ip_kind(host: str) -> str | None:
    """``public``, ``local`` or ``None`` (not an IP literal)."""
    bare = host.strip("[]")
    if ":" not in bare and not bare[:1].isdigit():
        return None  # neither an IPv6 literal nor dotted digits: ``ip_address`` would refuse it
    try:
        ip = ipaddress.ip_address(bare)
    except ValueError:
        return None
    if ip.is_loopback or ip.is_unspecified or ip.is_private or ip.is_link_local or ip.is_reserved:
        return "local"
    return "public"


_SCHEME = rx.compile(r"^[a-z][a-z0-9+.-]*://")


def host_matches(host: str, url: str, entries: tuple[str, ...]) -> str | None:
    """The list entry matching a URL: ``host`` entries by domain suffix, ``host/path`` by prefix."""
    lowered = url.lower()
    scheme = _SCHEME.match(lowered)  # anchored at the start: removing its one match is the substitution
    bare = lowered[scheme.end():] if scheme else lowered
    bare = bare.split("@", 1)[-1] if "@" in bare.split("/", 1)[0] else bare
    for entry, e, kind, dot_head, tail in _host_entries(entries):
        if kind == "path":
            if bare.startswith(e) or (dot_head in host and bare.split("/", 1)[-1].startswith(tail)):
                return entry
        elif kind == "word":
            if e in host:
                return entry
        elif host == e or host.endswith(dot_head):
            return entry
    return None


_HOST_ENTRIES: dict[int, tuple[tuple[str, ...], list[tuple[str, str, str, str, str]]]] = {}


def _host_entries(entries: tuple[str, ...]) -> list[tuple[str, str, str, str, str]]:
    """Each list entry lowered and split once (the lists are constants; URLs are many):
    ``(entry, lowered, kind, "." + host part, path part)``."""
    hit = _HOST_ENTRIES.get(id(entries))
    if hit is not None and hit[0] is entries:
        return hit[1]
    out = []
    for entry in entries:
        e = entry.lower()
        if "/" in e:
            head, tail = e.split("/", 1)
            out.append((entry, e, "path", "." + head, tail))
        elif "." not in e:
            out.append((entry, e, "word", "", ""))
        else:
            out.append((entry, e, "domain", "." + e, ""))
    _HOST_ENTRIES[id(entries)] = (entries, out)
    return out


def which_alternative(pattern: re.Pattern[str], m: re.Match[str]) -> int:
    """Index of the top-level ``|`` alternative of ``pattern`` that produced ``m`` (for evidence)."""
    alts = _alternatives(pattern.pattern)
    flags = getattr(pattern, "flags", 0)  # RE2 expressions carry their flags inline
    for i, alt in enumerate(alts):
        try:
            if rx.compile(alt, flags & (re.I | re.M | re.S)).match(m.string, m.start()):
                return i
        except (re.error, ValueError):
            continue
    return -1


def alternatives(pattern: re.Pattern[str]) -> list[str]:
    """The top-level ``|`` alternatives of a compiled pattern, each with the pattern's inline flags."""
    return _alternatives(pattern.pattern)


@functools.lru_cache(maxsize=512)
def _alternatives_of(src: str) -> tuple[str, ...]:
    """The split below, once per expression (evidence is asked for the same rule expressions again and again)."""
    return tuple(_split_alternatives(src))


def _alternatives(src: str) -> list[str]:
    return list(_alternatives_of(src))


def _split_alternatives(src: str) -> list[str]:
    prefix = ""
    mm = rx.match(r"^\(\?[a-zA-Z]+\)", src)
    if mm:
        prefix, src = mm.group(0), src[mm.end():]
    out, depth, cur, i, klass = [], 0, [], 0, False
    while i < len(src):
        ch = src[i]
        if ch == "\\":
            cur.append(src[i:i + 2])
            i += 2
            continue
        if klass:
            klass = ch != "]"
        elif ch == "[":
            klass = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            out.append(prefix + "".join(cur))
            cur = []
            i += 1
            continue
        cur.append(ch)
        i += 1
    out.append(prefix + "".join(cur))
    return out
