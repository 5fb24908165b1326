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
    # numbers in someone else's JSON (finite only)
    **dict.fromkeys(["answer_int", "answer_number", "text_number"], "nervous.kernel.numbers"),
    # durable files: atomic writes, lock files, backups
    **dict.fromkeys(["NotRegularFile", "atomic_write_bytes", "atomic_write_json", "backup_path", "dumps_json",
                     "ensure_dir", "file_kind", "fsync_dir", "load_json", "parse_object", "read_regular"],
                    "nervous.kernel.durable"),
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
    # warnings gathered once each, in order, in linear time
    "AppendOnce": "nervous.kernel.messages",
    # the running nervous version
    "nervous_version": "nervous",
}

_ALIASES = {"nervous_version": "__version__"}

if TYPE_CHECKING:
    from ..kernel.admission import (
        admitted,
        require_admission,
    )
    from ..kernel.bundle import (
        Limits,
        check_listing,
        load_directory,
        load_zip,
        make_bundle,
    )
    from ..kernel.clock import (
        now,
        utc_timestamp,
    )
    from ..kernel.durable import (
        NotRegularFile,
        atomic_write_bytes,
        atomic_write_json,
        backup_path,
        dumps_json,
        ensure_dir,
        file_kind,
        fsync_dir,
        load_json,
        parse_object,
        read_regular,
    )
    from ..kernel.filelock import (
        FileLock,
        lock_is_stale,
        pid_alive,
        read_lock_holder,
        remove_stale_lock,
    )
    from ..kernel.fingerprint import (
        bundle_fingerprint,
        folder_fingerprint,
        is_fingerprinted_path,
        skill_fingerprint,
    )
    from ..kernel.http import (
        HttpClient,
        HttpStatusError,
        Response,
        clean_error_text,
    )
    from ..kernel.messages import AppendOnce
    from ..kernel.numbers import (
        answer_int,
        answer_number,
        text_number,
    )
    from ..kernel.serialize import (
        from_json,
        to_json,
    )
    from ..kernel.sideeffects import (
        ASSUME_WORST,
        CLASS_ORDER,
        FLAGS,
        classes_of,
        is_credential_path,
        is_secret_env,
        normalize_host,
        normalize_tag,
        normalize_tags,
    )
    from ..kernel.skillmd import (
        SkillDoc,
        find_skill_file,
        parse_skill_md,
    )
    from ..kernel.texttable import (
        table,
        terminal_safe,
    )

    nervous_version: str


__getattr__, __dir__ = lazy_names(__name__, _SOURCES, _ALIASES)


__all__ = [
    "AppendOnce", "ASSUME_WORST", "CLASS_ORDER", "FLAGS", "FileLock", "NotRegularFile", "HttpClient", "HttpStatusError", "Limits", "Response",
    "SkillDoc", "admitted", "answer_int", "answer_number", "atomic_write_bytes", "atomic_write_json", "backup_path", "bundle_fingerprint",
    "check_listing", "classes_of", "file_kind", "clean_error_text", "dumps_json", "ensure_dir", "find_skill_file",
    "folder_fingerprint", "from_json", "fsync_dir", "is_credential_path", "is_fingerprinted_path",
    "is_secret_env", "load_directory", "load_json", "load_zip", "lock_is_stale", "make_bundle",
    "nervous_version", "normalize_host", "normalize_tag", "normalize_tags", "now", "parse_object",
    "parse_skill_md", "pid_alive", "read_regular", "read_lock_holder", "remove_stale_lock", "require_admission",
    "skill_fingerprint", "table", "terminal_safe", "text_number", "to_json", "utc_timestamp",
]
