"""Helpers plugins legitimately need, in one place: the HTTP client, durable files, bundles,
fingerprints, SKILL.md parsing, the side-effect vocabulary, JSON conversion, the clock and a text
table for report formats.

Names are loaded on first use, so importing the toolkit costs nothing until a plugin needs, say,
the HTTP client (and its imports).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..kernel.lazy import lazy_names

#: public name -> the module that implements it
_SOURCES: dict[str, str] = {
    # HTTP (a bounded client with retries, redirects checked, error text cleaned for terminals)
    **dict.fromkeys(["HttpClient", "HttpStatusError", "Response", "clean_error_text"], "nervous.kernel.http"),
    # durable files: atomic writes, lock files, backups
    **dict.fromkeys(["atomic_write_bytes", "atomic_write_json", "backup_path", "dumps_json", "ensure_dir",
                     "fsync_dir", "load_json", "parse_object"], "nervous.kernel.durable"),
    **dict.fromkeys(["FileLock", "lock_is_stale", "pid_alive", "read_lock_holder", "remove_stale_lock"],
                    "nervous.kernel.filelock"),
    # skill bundles: limits, safe archive and folder loading
    **dict.fromkeys(["Limits", "check_listing", "load_directory", "load_zip", "make_bundle"], "nervous.kernel.bundle"),
    # fingerprints (docs/plugins/fingerprint.md)
    **dict.fromkeys(["bundle_fingerprint", "folder_fingerprint", "is_fingerprinted_path", "skill_fingerprint"],
                    "nervous.kernel.fingerprint"),
    # SKILL.md
    **dict.fromkeys(["SkillDoc", "find_skill_file", "parse_skill_md"], "nervous.kernel.skillmd"),
    # the side-effect vocabulary (tags, classes, hosts, credentials)
    **dict.fromkeys(["ASSUME_WORST", "CLASS_ORDER", "FLAGS", "classes_of", "is_credential_path", "is_secret_env",
                     "normalize_host", "normalize_tag", "normalize_tags"], "nervous.kernel.sideeffects"),
    # the one JSON converter for records
    **dict.fromkeys(["from_json", "to_json"], "nervous.kernel.serialize"),
    # the clock (tests can freeze it)
    **dict.fromkeys(["now", "utc_timestamp"], "nervous.kernel.clock"),
    # a plain text table for report formats written for people, and text made safe for a terminal
    **dict.fromkeys(["table", "terminal_safe"], "nervous.kernel.texttable"),
    # install targets: the install gate's proof that a write was admitted (every install passes the gate)
    **dict.fromkeys(["admitted", "require_admission"], "nervous.kernel.admission"),
    # the running nervous version
    "nervous_version": "nervous",
}

_ALIASES = {"nervous_version": "__version__"}

if TYPE_CHECKING:

    nervous_version: str


__getattr__, __dir__ = lazy_names(__name__, _SOURCES, _ALIASES)


__all__ = sorted(_SOURCES)
