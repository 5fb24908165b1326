"""The goal store's typed error: one class whose ``code`` is the spec's (specs/goals.md §5)."""

from __future__ import annotations

from typing import Any

from ...errors import EXIT_REFUSED, EXIT_UNAVAILABLE, EXIT_USAGE, NervousError

#: spec code -> CLI exit code
EXIT_CODES = {
    "not_found": EXIT_REFUSED,
    "invalid_transition": EXIT_REFUSED,
    "invalid_arg": EXIT_USAGE,
    "unverified": EXIT_REFUSED,
    "exists": EXIT_REFUSED,
    "not_permitted": EXIT_REFUSED,
    "storage_busy": EXIT_UNAVAILABLE,
    "config_error": EXIT_USAGE,
    "bad_path": EXIT_USAGE,
    "too_large": EXIT_USAGE,
    "unsupported_version": EXIT_REFUSED,
}


class GoalError(NervousError):
    """A refused goal action. ``code`` is one of :data:`EXIT_CODES`."""

    def __init__(self, code: str, message: str, *, details: dict[str, Any] | None = None):
        super().__init__(message, code=code, details=details)
        self.exit_code = EXIT_CODES.get(code, EXIT_REFUSED)


def invalid_arg(message: str) -> GoalError:
    return GoalError("invalid_arg", message)
