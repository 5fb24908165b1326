"""The evolver's typed error: one class whose ``code`` is one of the spec's codes (specs/evolver.md §13)."""

from __future__ import annotations

from typing import Any

from ...errors import EXIT_INTERNAL, EXIT_REFUSED, EXIT_UNAVAILABLE, EXIT_USAGE, NervousError

#: every code the evolver raises, with the CLI exit code it maps to
EXIT_CODES: dict[str, int] = {
    "MISSING_FIELD": EXIT_USAGE,
    "UNKNOWN_FIELD": EXIT_USAGE,
    "INVALID_WORKSPACE": EXIT_USAGE,
    "UNSUPPORTED_OPERATION": EXIT_USAGE,
    "INVALID_MODE": EXIT_USAGE,
    "INVALID_DECISION": EXIT_USAGE,
    "SHOULD_PATCH_EXISTING": EXIT_REFUSED,
    "UNMANAGED_TARGET": EXIT_REFUSED,
    "DUPLICATE_TARGET_SKILL": EXIT_REFUSED,
    "INVALID_SOURCE_STATUS": EXIT_REFUSED,
    "INVALID_TARGET_STATUS": EXIT_REFUSED,
    "MISSING_FAILURE_REASON": EXIT_USAGE,
    "MISSING_REVISION_INPUT": EXIT_USAGE,
    "CANDIDATE_NOT_FOUND": EXIT_REFUSED,
    "CANDIDATE_NOT_APPROVED": EXIT_REFUSED,
    "BACKUP_NOT_FOUND": EXIT_REFUSED,
    "PATH_OUT_OF_SCOPE": EXIT_REFUSED,
    "UNSAFE_PATH": EXIT_USAGE,
    "INTERNAL_ERROR": EXIT_INTERNAL,
    "INVALID_ID": EXIT_USAGE,
    "INVALID_NAME": EXIT_USAGE,
    "INVALID_CHANGE_TYPE": EXIT_USAGE,
    "INVALID_RISK_LEVEL": EXIT_USAGE,
    "HIGH_RISK_REJECTED": EXIT_REFUSED,
    "DRAFT_REFUSED": EXIT_REFUSED,
    "DRAFT_TOO_LARGE": EXIT_USAGE,
    "TARGET_NOT_FOUND": EXIT_REFUSED,
    "NOT_A_CANARY": EXIT_REFUSED,
    "EXPLICIT_CONFIRMATION_REQUIRED": EXIT_REFUSED,
    "NEEDS_PERSON": EXIT_REFUSED,
    "STATE_BUSY": EXIT_UNAVAILABLE,
    "STATE_CORRUPT": EXIT_REFUSED,
    "IO_ERROR": EXIT_UNAVAILABLE,
}


class EvolverError(NervousError):
    """A refused evolver operation. ``blocking_record`` names the record in the way, when there is one."""

    def __init__(self, code: str, message: str, *, blocking_record: dict[str, Any] | None = None,
                 details: dict[str, Any] | None = None):
        if code not in EXIT_CODES:
            raise ValueError(f"unknown evolver error code {code!r}")
        merged = dict(details or {})
        if blocking_record is not None:
            merged["blocking_record"] = blocking_record
        super().__init__(message, code=code, details=merged)
        self.exit_code = EXIT_CODES[code]
        self.blocking_record = blocking_record


def io_error(exc: OSError, what: str) -> EvolverError:
    """An operating-system failure without its raw errno number (spec §10: ``IO_ERROR``)."""
    import errno

    name = errno.errorcode.get(exc.errno or 0, "EIO")
    return EvolverError("IO_ERROR", f"{what}: {name} ({exc.strerror or 'I/O error'})")
