"""What the registry accepts: slugs, versions, handles, file paths and sizes; and its error texts."""

from __future__ import annotations

import re

from attrs import frozen

SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,95}$")
HANDLE_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
#: semver 2.0 (the clawhub CLI refuses anything else)
SEMVER_RE = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$")
SHA_RE = re.compile(r"^[0-9a-f]{64}$")

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


def check_path(path: object) -> str:
    """A published file path: relative, '/'-separated, no empty, '.' or '..' segment (no zip-slip)."""
    if not isinstance(path, str) or not path or len(path) > 512:
        raise Reject(400, f"Invalid file path {str(path)[:100]!r}")
    bad = (path.startswith("/") or "\\" in path or "\x00" in path or ":" in path.split("/", 1)[0]
           or any(seg in ("", ".", "..") for seg in path.split("/")))
    if bad:
        raise Reject(400, f"Invalid file path {path[:200]!r}: must be relative, without '..', '.', empty "
                          "segments or backslashes")
    if path == "_meta.json" or path.split("/", 1)[0] in (".clawhub", ".clawdhub", ".git", "node_modules"):
        raise Reject(400, f"Invalid file path {path[:200]!r}: reserved name")
    return path


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
