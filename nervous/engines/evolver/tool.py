"""``skill_manage_managed`` (§10): one parameter object in, one result object out.

:func:`handle` is the tool as an agent sees it: it validates ``workspace_root`` and never raises for
an expected failure, returning ``{ok: false, operation, error_code, message, blocking_record,
warnings}`` instead. :func:`dispatch` is the same mapping for callers that prefer exceptions.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .errors import EvolverError

if TYPE_CHECKING:
    from ...kernel.manager import PluginManager

OPERATIONS: dict[str, frozenset[str]] = {
    "create_candidate": frozenset({"source_summary", "signal_type", "signal_count", "proposed_skill_content",
                                   "target_skill", "change_type", "risk_level", "matched_rules", "source_tools",
                                   "diff_summary", "dedupe_basis", "suggestions", "candidate_id", "autonomy_mode"}),
    "merge_candidate": frozenset({"candidate_id", "merge_into_candidate_id", "reason", "replacement_skill_content",
                                  "diff_summary"}),
    "review_candidate": frozenset({"candidate_id", "decision", "failure_reason", "suggestions",
                                   "replacement_skill_content", "diff_summary", "user_confirmed", "reason"}),
    "update_draft": frozenset({"candidate_id", "replacement_skill_content", "diff_summary"}),
    "publish_candidate": frozenset({"candidate_id", "publish_as", "user_confirmed", "reason"}),
    "rollback_skill": frozenset({"skill_name", "user_confirmed", "reason"}),
    "promote_canary": frozenset({"skill_name", "user_confirmed", "reason"}),
    "list_candidates": frozenset({"statuses"}),
    "get_mode": frozenset(),
    "set_mode": frozenset({"autonomy_mode", "user_confirmed", "reason"}),
    "repair_state": frozenset({"reason"}),
    "show_candidate": frozenset({"candidate_id"}),
}

#: JSON Schema of the tool's parameters (for hosts that register it)
SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["workspace_root", "operation"],
    "properties": {
        "workspace_root": {"type": "string", "description": "absolute path of an existing workspace directory"},
        "operation": {"type": "string", "enum": sorted(OPERATIONS)},
        "candidate_id": {"type": "string"},
        "skill_name": {"type": "string"},
        "reason": {"type": "string"},
        "user_confirmed": {"type": "boolean"},
        "source_summary": {"type": "string"},
        "signal_type": {"type": "string"},
        "signal_count": {"type": "integer", "minimum": 1},
        "proposed_skill_content": {"type": "string"},
        "target_skill": {"type": "string"},
        "change_type": {"type": "string", "enum": ["create_skill", "patch_skill", "deprecate_skill"]},
        "risk_level": {"type": "string", "enum": ["low", "medium", "high"]},
        "matched_rules": {"type": "array", "items": {"type": "string"}},
        "source_tools": {"type": "array", "items": {"type": "string"}},
        "diff_summary": {"type": "string"},
        "dedupe_basis": {"type": "string"},
        "suggestions": {"type": "array", "items": {"type": "string"}},
        "autonomy_mode": {"type": "string", "enum": ["manual", "assisted", "autonomous"]},
        "merge_into_candidate_id": {"type": "string"},
        "replacement_skill_content": {"type": "string"},
        "decision": {"type": "string", "enum": ["approve", "reject", "revise"]},
        "failure_reason": {"type": "string"},
        "publish_as": {"type": "string"},
        "statuses": {"type": "array", "items": {"type": "string"}},
    },
}


def _need(params: Mapping[str, Any], key: str) -> Any:
    value = params.get(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise EvolverError("MISSING_FIELD", f"{key} is required for {params.get('operation')}")
    return value


def dispatch(evolver: Any, params: Mapping[str, Any]) -> dict[str, Any]:
    op = params.get("operation")
    if not isinstance(op, str) or op not in OPERATIONS:
        raise EvolverError("UNSUPPORTED_OPERATION", f"operation {op!r} is not one of {', '.join(sorted(OPERATIONS))}")
    extra = sorted(set(params) - OPERATIONS[op] - {"operation", "workspace_root"})
    if extra:
        raise EvolverError("UNKNOWN_FIELD", f"{op} does not take: {', '.join(extra)}")
    confirmed = params.get("user_confirmed") is True
    if op == "create_candidate":
        return evolver.create_candidate(**{k: v for k, v in params.items() if k in OPERATIONS[op]})  # type: ignore[no-any-return]
    if op == "merge_candidate":
        return evolver.merge_candidate(_need(params, "candidate_id"), _need(params, "merge_into_candidate_id"),  # type: ignore[no-any-return]
                                       _need(params, "reason"),
                                       replacement_skill_content=params.get("replacement_skill_content"),
                                       diff_summary=params.get("diff_summary"))
    if op == "review_candidate":
        return evolver.review_candidate(_need(params, "candidate_id"), _need(params, "decision"),  # type: ignore[no-any-return]
                                        failure_reason=params.get("failure_reason") or params.get("reason"),
                                        suggestions=params.get("suggestions"),
                                        replacement_skill_content=params.get("replacement_skill_content"),
                                        diff_summary=params.get("diff_summary"), user_confirmed=confirmed)
    if op == "update_draft":
        return evolver.update_draft(_need(params, "candidate_id"), _need(params, "replacement_skill_content"),  # type: ignore[no-any-return]
                                    diff_summary=params.get("diff_summary"))
    if op == "publish_candidate":
        return evolver.publish_candidate(_need(params, "candidate_id"), params.get("publish_as"),  # type: ignore[no-any-return]
                                         user_confirmed=confirmed)
    if op == "rollback_skill":
        return evolver.rollback_skill(_need(params, "skill_name"), user_confirmed=confirmed)  # type: ignore[no-any-return]
    if op == "promote_canary":
        return evolver.promote_canary(_need(params, "skill_name"), user_confirmed=confirmed)  # type: ignore[no-any-return]
    if op == "list_candidates":
        return evolver.list_candidates(params.get("statuses"))  # type: ignore[no-any-return]
    if op == "get_mode":
        return evolver.get_mode()  # type: ignore[no-any-return]
    if op == "set_mode":
        return evolver.set_mode(_need(params, "autonomy_mode"), user_confirmed=confirmed)  # type: ignore[no-any-return]
    if op == "show_candidate":
        return evolver.show_candidate(_need(params, "candidate_id"))  # type: ignore[no-any-return]
    return evolver.repair_state()  # type: ignore[no-any-return]


def handle(manager: PluginManager, params: object) -> dict[str, Any]:
    """Run the tool: always returns a result object, with ``ok: false`` and an error code on refusal."""
    import os

    op = params.get("operation") if isinstance(params, dict) else None
    try:
        if not isinstance(params, dict):
            raise EvolverError("MISSING_FIELD", "parameters must be a JSON object")
        root = params.get("workspace_root")
        if not isinstance(root, str) or not os.path.isabs(root) or not os.path.isdir(root):
            raise EvolverError("INVALID_WORKSPACE", f"workspace_root must be an existing absolute directory, not {root!r}")
        from .engine import Evolver

        return dispatch(Evolver(manager, root), params)
    except EvolverError as exc:
        return error_result(op, exc)
    except OSError as exc:
        from .errors import io_error

        return error_result(op, io_error(exc, "evolver state"))


def error_result(operation: object, exc: EvolverError) -> dict[str, Any]:
    out: dict[str, Any] = {"ok": False, "operation": operation if isinstance(operation, str) else None,
                           "error_code": exc.code, "message": exc.message,
                           "blocking_record": exc.blocking_record, "warnings": []}
    for key in ("rule_ids", "findings", "reasons"):
        if key in exc.details:
            out[key] = exc.details[key]
    return out
