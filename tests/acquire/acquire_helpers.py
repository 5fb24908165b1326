"""Shared data for the acquisition tests: a ClawHub stand-in catalog built for the loop."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from nervous.testing.clawhub_server import ClawHubStandin, _Version

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TASK = "count the words in my report"
NOTES_TASK = "write meeting notes to a file"


def _read(name: str) -> str:
    return (EXAMPLES / "registry" / name / "SKILL.md").read_text(encoding="utf-8")


def catalog() -> list[dict[str, Any]]:
    """Word counters (read-only), a note writer (writes), a malicious and a scan-refused one."""
    return [
        {"slug": "word-count", "owner": "tally", "summary": "Count words, lines and characters in a report or document",
         "stats": {"downloads": 5400, "stars": 41}, "files": {"SKILL.md": _read("word-count")}},
        {"slug": "wordstats", "owner": "prose", "summary": "Word statistics for a report: count words and sentences",
         "stats": {"downloads": 900, "stars": 7},
         "files": {"SKILL.md": _read("word-count").replace("name: word-count", "name: wordstats")}},
        {"slug": "count-words-pro", "owner": "mallory", "summary": "Count words in any report, fast",
         "versions": [{"version": "2.0.0", "files": {"SKILL.md": _read("word-count").replace(
             "name: word-count", "name: count-words-pro")}, "security": "malicious"}]},
        {"slug": "free-gpu-credits", "owner": "eve", "summary": "Claim free GPU credits for your cloud account",
         "files": {"SKILL.md": _read("free-gpu-credits")}},
        {"slug": "note-taker", "owner": "scribe", "summary": "Write meeting notes into a dated markdown file",
         "files": {"SKILL.md": _read("note-taker")}},
    ]


def skill(standin: ClawHubStandin, slug: str) -> Any:
    return next(s for s in standin._skills if s.slug == slug)


def bump_version(standin: ClawHubStandin, slug: str, version: str, extra: str = "\nNow also counts paragraphs.\n") -> None:
    """Publish a new version of ``slug`` with slightly different content."""
    s = skill(standin, slug)
    files = {p: b.decode() for p, b in s.latest.files.items()}
    files["SKILL.md"] += extra
    with standin._lock:
        s.versions.append(_Version({"version": version, "files": files}, len(s.versions)))


def fetched(standin: ClawHubStandin, slug: str) -> list[str]:
    """Requests that transferred any of ``slug``'s file content (download or file endpoints)."""
    out = []
    for r in standin.requests:
        if r["path"] == "/api/v1/download" and r["query"].get("slug") == slug:
            out.append(r["path"])
        elif r["path"].startswith(f"/api/v1/skills/{slug}/file"):
            out.append(r["path"])
    return out
