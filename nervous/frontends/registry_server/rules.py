"""What the registry accepts: slugs, versions, handles, file paths and sizes; and its error texts."""

from __future__ import annotations

import re
import unicodedata

from attrs import frozen

SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,95}\Z")
HANDLE_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}\Z")
#: semver 2.0 (the clawhub CLI refuses anything else)
SEMVER_RE = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?\Z")
SHA_RE = re.compile(r"^[0-9a-f]{64}\Z")

MALWARE_TEXT = "Blocked: this skill has been flagged as malicious by ClawScan and cannot be downloaded."
VERSION_MALWARE_TEXT = ("Blocked: this skill version has been flagged as malicious by ClawScan and cannot be "
                        "downloaded.")
UNAUTHORIZED_MISSING = "Unauthorized: API token is missing. Run `clawhub login` to authenticate."
UNAUTHORIZED_INVALID = "Unauthorized: API token is invalid or revoked. Run `clawhub login` to authenticate."


@frozen
class Limits:
    """Upload limits (the clawhub CLI's own: 10 MB a file, 50 MB a version)."""

    max_file_bytes: int = 10 * 1024 * 1024
    max_total_bytes: int = 50 * 1024 * 1024
    max_files: int = 500


class Reject(Exception):
    """An answer other than success: HTTP status and plain-text body (or a JSON body)."""

    def __init__(self, status: int, text: str, *, body: dict[str, object] | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(text)
        self.status = status
        self.text = text
        self.body = body
        self.headers = headers or {}


def check_slug(slug: object) -> str:
    if not isinstance(slug, str) or not SLUG_RE.match(slug):
        raise Reject(400, f"Invalid slug {str(slug)[:100]!r}: expected lower-case letters, digits and '-' "
                          "(at most 96, starting with a letter or digit)")
    return slug


def check_version(version: object) -> str:
    if not isinstance(version, str) or len(version) > 64 or not SEMVER_RE.match(version):
        raise Reject(400, f"Invalid version {str(version)[:100]!r}: expected semver such as 1.2.3")
    return version


def check_handle(handle: object) -> str:
    text = str(handle or "").strip().lstrip("@").lower()
    if not HANDLE_RE.match(text):
        raise Reject(400, f"Invalid owner handle {str(handle)[:100]!r}")
    return text


#: characters never allowed in a path: bidirectional controls (they make a name read differently from
#: what it is) and line/paragraph separators; C0/C1 controls and surrogates are refused by category
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029")
#: names Windows reserves for devices, whatever the extension (``aux.txt`` is the AUX device)
_DEVICES = frozenset({"con", "prn", "aux", "nul", *(f"com{i}" for i in "123456789\u00b9\u00b2\u00b3"),
                      *(f"lpt{i}" for i in "123456789\u00b9\u00b2\u00b3")})
_RESERVED_TOP = (".clawhub", ".clawdhub", ".git", "node_modules")


def _bad_char(ch: str) -> bool:
    return ch in _BIDI or unicodedata.category(ch) in ("Cc", "Cs")


def check_path(path: object) -> str:
    """A published file path: relative, '/'-separated, no empty, '.' or '..' segment (no zip-slip), and a
    name every supported system can hold: no control or bidirectional-control character, no ':', no
    Windows device name, no segment ending in a dot or a space, no reserved name in any case."""
    if not isinstance(path, str) or not path or len(path) > 512:
        raise Reject(400, f"Invalid file path {str(path)[:100]!r}")
    shown = repr(path[:200])  # (repr escapes controls, bidi controls and surrogates)
    if any(_bad_char(ch) for ch in path):
        raise Reject(400, f"Invalid file path {shown}: control characters, bidirectional controls and "
                          "unpaired surrogates are not allowed")
    segments = path.split("/")
    if path.startswith("/") or "\\" in path or any(seg in ("", ".", "..") for seg in segments):
        raise Reject(400, f"Invalid file path {shown}: must be relative, without '..', '.', empty "
                          "segments or backslashes")
    if ":" in path:
        raise Reject(400, f"Invalid file path {shown}: ':' is not allowed (drives and alternate data streams)")
    for seg in segments:
        if seg[-1] in ". ":
            raise Reject(400, f"Invalid file path {shown}: a name may not end with a dot or a space")
        if seg.split(".", 1)[0].rstrip(" ").casefold() in _DEVICES:
            raise Reject(400, f"Invalid file path {shown}: {seg!r} is a reserved device name on Windows")
    folded = [seg.casefold() for seg in segments]
    if folded == ["_meta.json"] or folded[0] in _RESERVED_TOP or ".git" in folded:
        raise Reject(400, f"Invalid file path {shown}: reserved name")
    return path


#: RFC 9110 ``token`` characters (a media type's type, subtype and parameter names)
_TOKEN = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_MEDIA_TYPE_RE = re.compile(rf"^{_TOKEN}/{_TOKEN}(?:[ \t]*;[ \t]*{_TOKEN}=(?:{_TOKEN}|\"[\x20\x21\x23-\x5b\x5d-\x7e]*\"))*"
                            r"(?:[ \t]*;)?[ \t]*")  # (a trailing ';', an empty parameter, is allowed)


def valid_content_type(value: object) -> bool:
    """A plain ``type/subtype`` with optional ``; name=value`` parameters, printable ASCII, at most 100 characters."""
    return isinstance(value, str) and len(value) <= 100 and _MEDIA_TYPE_RE.fullmatch(value) is not None


def check_content_type(value: object, path: str) -> str | None:
    """A file row's ``contentType`` as given (``None`` when absent), or 400 when it is not a plain media type."""
    if value is None or value == "":
        return None
    if not valid_content_type(value):
        raise Reject(400, f"Invalid contentType for {path[:200]!r}: expected a media type such as text/markdown "
                          "(type/subtype, optional '; name=value' parameters, printable ASCII, at most 100 characters)")
    return str(value)


def safe_content_type(value: object, path: str) -> str:
    """The Content-Type to send for a stored file: the stored one when it is a plain media type (rows
    stored before it was checked may hold anything), else the one its extension gives."""
    if valid_content_type(value):
        return str(value)
    from .archive import content_type

    return content_type(path)


def version_key(version: str) -> tuple[object, ...]:
    """Semver precedence (pre-releases before their release)."""
    m = SEMVER_RE.match(version)
    if not m:
        return (0, 0, 0, 0, ())
    pre = m.group(4)
    pre_key: tuple[object, ...] = ()
    if pre:
        pre_key = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split("."))
    return (int(m.group(1)), int(m.group(2)), int(m.group(3)), 0 if pre else 1, pre_key)
