"""The MCP tools nervous offers: names, descriptions, input and output schemas, annotations.

Plain data (no SDK import) so the CLI can list the tools, the docs can show them and tests can
check them without starting a server. Input schemas are JSON Schema 2020-12 and precise: enums
for every closed vocabulary, ``required`` for what the engine needs, ``additionalProperties:
false`` so a misspelt argument is an error rather than silently ignored. Per-action requirements
of the ``goal`` and ``evolve`` tools are ``if``/``then`` rules under ``allOf``.

Annotations are honest hints: a tool that can uninstall, overwrite or replace state says
``destructiveHint: true``; anything that talks to a skill registry says ``openWorldHint: true``.
"""

from __future__ import annotations

from typing import Any

from attrs import frozen

OUTCOMES = ("success", "task_mismatch", "runtime_error", "auth_error", "dependency_missing", "api_error")

GOAL_STATUSES = ("analyzed", "planned", "executing", "verified", "needs_replan", "blocked", "needs_amygdala",
                 "completed", "cancelled")
GOAL_ACTIONS = ("analyze", "refine", "plan", "link", "verify", "complete", "block", "escalate", "accept_risk",
                "record_failure", "reopen", "cancel", "set_current", "drain", "get_config", "set_config", "get",
                "list", "summary", "import")
#: goal action -> arguments it requires (beyond ``action``)
GOAL_REQUIRED: dict[str, tuple[str, ...]] = {
    "analyze": ("prompt",), "plan": ("subtasks",), "link": ("links",), "verify": ("checks",),
    "block": ("reason", "evidence"), "escalate": ("reason", "evidence"), "accept_risk": ("reason", "evidence"),
    "record_failure": ("reason", "evidence"), "reopen": ("reason", "evidence"), "set_current": ("goal_id",),
    "import": ("path",),
}

EVOLVE_OPERATIONS = ("create_candidate", "merge_candidate", "review_candidate", "update_draft",
                     "publish_candidate", "rollback_skill", "promote_canary", "list_candidates",
                     "show_candidate", "get_mode", "set_mode", "repair_state")
EVOLVE_REQUIRED: dict[str, tuple[str, ...]] = {
    "create_candidate": ("source_summary", "signal_type", "signal_count", "proposed_skill_content",
                         "target_skill", "change_type", "risk_level"),
    "merge_candidate": ("candidate_id", "merge_into_candidate_id", "reason"),
    "review_candidate": ("candidate_id", "decision"),
    "update_draft": ("candidate_id", "replacement_skill_content"),
    "publish_candidate": ("candidate_id",),
    "rollback_skill": ("skill_name",),
    "promote_canary": ("skill_name",),
    "show_candidate": ("candidate_id",),
    "set_mode": ("autonomy_mode",),
}
EVOLVER_STATUSES = ("pending_review", "revision_requested", "approved", "published", "rejected", "merged",
                    "rolled_back")


@frozen
class ToolSpec:
    """One MCP tool as plain JSON-ready data."""

    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool

    def annotations(self) -> dict[str, Any]:
        return {"title": self.title, "readOnlyHint": self.read_only, "destructiveHint": self.destructive,
                "idempotentHint": self.idempotent, "openWorldHint": self.open_world}

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "title": self.title, "description": self.description,
                               "inputSchema": self.input_schema, "annotations": self.annotations()}
        if self.output_schema is not None:
            out["outputSchema"] = self.output_schema
        return out


# ------------------------------------------------------------------------------------ helpers


def _obj(properties: dict[str, Any], required: tuple[str, ...] = (), **extra: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = list(required)
    schema.update(extra)
    return schema


def _text(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "string", "minLength": 1, "description": description, **extra}


def _strings(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string"}, "description": description, **extra}


def _enum(values: tuple[str, ...], description: str) -> dict[str, Any]:
    return {"type": "string", "enum": list(values), "description": description}


def _flag(description: str) -> dict[str, Any]:
    return {"type": "boolean", "description": description}


def _per_action(field: str, required: dict[str, tuple[str, ...]]) -> list[dict[str, Any]]:
    return [{"if": {"properties": {field: {"const": name}}, "required": [field]},
             "then": {"required": list(needs)}} for name, needs in required.items()]


def _loose(properties: dict[str, Any], required: tuple[str, ...]) -> dict[str, Any]:
    """An output object: the listed fields typed and required, anything else allowed."""
    return {"type": "object", "properties": properties, "required": list(required), "additionalProperties": True}


_WARNINGS = {"type": "array", "items": {"type": "string"}}
_NULLABLE_STR = {"type": ["string", "null"]}

ACQUIRE_OUTPUT = _loose({
    "schema": {"const": "nervous.acquire.v1"},
    "session": {"type": "string", "pattern": "^[0-9a-f]{12}$"},
    "state": {"enum": ["awaiting_approval", "reflex", "installed", "retry", "awaiting_dependency", "retention",
                       "done", "cancelled", "failed", "refused", "no_candidates", "retained", "needs_person"]},
    "message": {"type": "string"},
    "next": {"type": "array", "items": {"enum": ["approve", "cancel", "done", "keep", "release"]}},
    "region": {"type": "string"},
    "hit": {"type": "boolean"},
    "mode": {"enum": ["standard", "reflex"]},
    "candidates": {"type": "array", "items": _loose({
        "index": {"type": "integer", "minimum": 0}, "name": {"type": "string"}, "ref": {"type": "string"},
        "registry": _NULLABLE_STR, "version": _NULLABLE_STR, "decision": {"enum": ["allow", "review", "refuse"]},
        "risk": {"type": "string"}, "reasons": _WARNINGS, "token": {"type": "string"},
        "needs_confirmation": {"type": "boolean"}, "verified": {"type": "boolean"}, "suspicious": {"type": "boolean"},
    }, ("index", "name", "ref", "decision", "reasons", "needs_confirmation"))},
    "installed": {"type": ["object", "null"]},
    "plan": {"type": ["object", "null"]},
    "warnings": _WARNINGS,
}, ("schema", "session", "state", "message", "next", "candidates", "warnings"))

SEARCH_OUTPUT = _loose({
    "query": {"type": "string"},
    "hits": {"type": "array", "items": _loose({"ref": {"type": "string"}, "registry": {"type": "string"}},
                                              ("ref", "registry"))},
    "registries": {"type": "array", "items": _loose({
        "registry": {"type": "string"}, "status": {"enum": ["ok", "error", "timeout"]},
        "message": {"type": "string"}}, ("registry", "status"))},
    "warnings": _WARNINGS,
}, ("query", "hits", "registries", "warnings"))

PERCEIVE_OUTPUT = _loose({
    "hit": {"type": "boolean"}, "region": _NULLABLE_STR, "score": {"type": "number"},
    "candidates": {"type": "array", "items": {"type": "object"}}, "reflex": {"type": "boolean"},
    "keywords": _WARNINGS, "proposed_region": _NULLABLE_STR, "warnings": _WARNINGS,
}, ("hit", "region", "candidates", "reflex", "keywords", "warnings"))

SCAN_OUTPUT = _loose({
    "schema": {"const": "nervous.skill-scan.v1"},
    "decision": {"enum": ["allow", "review", "refuse"]},
    "findings": {"type": "array", "items": {"type": "object"}},
    "warnings": _WARNINGS,
}, ("schema", "decision", "findings", "warnings"))

GOAL_OUTPUT = _loose({
    "ok": {"const": True}, "action": {"enum": list(GOAL_ACTIONS)}, "goal": {"type": "object"},
    "goals": {"type": "array", "items": {"type": "object"}}, "markdown": {"type": "string"},
    "next": {"type": "string"}, "warnings": _WARNINGS,
}, ("ok", "action", "markdown", "next", "warnings"))

EVOLVE_OUTPUT = _loose({
    "ok": {"const": True}, "operation": {"enum": list(EVOLVE_OPERATIONS)}, "message": {"type": "string"},
    "warnings": _WARNINGS,
}, ("ok", "operation", "warnings"))

# ------------------------------------------------------------------------------------ inputs

_TOKEN = _text("The approval token of one candidate, exactly as a previous result showed it.",
               pattern="^[0-9a-f]{12}-[A-Za-z0-9_-]+$", maxLength=80)

_GOAL_PROPERTIES: dict[str, Any] = {
    "action": _enum(GOAL_ACTIONS, "The goal action to run."),
    "goal_id": _text("Goal id (goal-NNN), 'current' (default) or 'latest'."),
    "prompt": _text("analyze: the user's request, as said."),
    "goal": {"type": "string", "description": "The objective in one sentence (default: the prompt)."},
    "intent_summary": {"type": "string", "description": "Intent summary (default: the prompt)."},
    "success_criteria": _strings("What must be true for the goal to be done."),
    "constraints": _strings("Limits the work must respect."),
    "risks": {"type": "array", "description": "Risks, as text or {description, severity}.",
              "items": {"anyOf": [{"type": "string", "minLength": 1}, _obj({
                  "description": _text("The risk."),
                  "severity": _enum(("low", "medium", "high"), "Default medium.")}, ("description",))]}},
    "expected_output": {"type": "string", "description": "What the user gets at the end."},
    "framing": _obj({**{k: _strings(f"Framing: {k.replace('_', ' ')}.") for k in
                        ("context", "scope", "non_goals", "assumptions", "open_questions", "candidate_options")},
                     "decision_needed": {"type": "string", "description": "The decision to make (empty clears)."}},
                    description="Task framing; refine merges it key by key."),
    "complexity": _enum(("low", "medium", "high"), "Default medium."),
    "needs_magi": _flag("Whether the goal needs deliberation (default: heuristic)."),
    "magi_rationale": {"type": "string"},
    "subtasks": {"type": "array", "minItems": 1, "description": "plan: the subtasks, in order.",
                 "items": {"anyOf": [{"type": "string", "minLength": 1}, _obj({
                     "title": _text("Short title (dependencies may name titles)."),
                     "description": {"type": "string"},
                     "dependencies": _strings("Titles, plan ids or external task ids."),
                     "priority": _enum(("low", "medium", "high", "critical"), "Default medium."),
                     "assigned_to": {"type": ["string", "null"]}}, ("title",))]}},
    "magi_used": _flag("plan: whether deliberation produced this plan."),
    "magi_output_ref": {"type": "string"},
    "links": {"type": "array", "minItems": 1, "description": "link: external task ids, optionally per subtask.",
              "items": {"anyOf": [{"type": "string", "minLength": 1}, _obj({
                  "plan_id": {"type": "string", "pattern": "^plan-[0-9]{3,}$"},
                  "axon_task_id": _text("The external task id.")}, ("axon_task_id",))]}},
    "checks": {"type": "array", "minItems": 1, "description": "verify: one check per success criterion.",
               "items": _obj({"criterion": _text("The criterion checked."), "passed": {"type": "boolean"},
                              "evidence": {"type": "string"}}, ("criterion", "passed"))},
    "all_axon_complete": _flag("verify: every linked external task is complete."),
    "recommendation": _enum(("approve", "revise", "replan", "escalate_to_magi"),
                            "verify: default approve when every check passed, else revise."),
    "concerns": _strings("verify: open concerns."),
    "override_evidence": {"type": "string", "description": "verify: evidence for approving over failing checks."},
    "actor": {"type": "string", "description": "Who decided (default user)."},
    "reason": _text("Why (block, escalate, accept_risk, record_failure, reopen, cancel)."),
    "evidence": {"description": "What shows it: a string; drain takes a list of strings.",
                 "anyOf": [{"type": "string", "minLength": 1}, {"type": "array", "items": {"type": "string"}}]},
    "related_ids": _strings("Related goal, task or run ids."),
    "next_revisit_at": {"type": "string", "format": "date-time", "description": "ISO 8601 time."},
    "unblock_conditions": _strings("What would unblock the goal."),
    "risk_gate_mode": _enum(("strict", "auto_deliberate", "user_accepted", "disabled"),
                            "accept_risk: the acceptance mode; set_config: the gate mode."),
    "scope": {"type": "string", "description": "accept_risk: what the acceptance covers (default the goal)."},
    "expires_at": {"type": "string", "format": "date-time", "description": "accept_risk: a future ISO 8601 time."},
    "retryability": _enum(("unknown", "retryable", "not_retryable"), "record_failure: can it be retried?"),
    "max_attempts": {"type": "integer", "minimum": 1, "maximum": 25, "description": "record_failure: default 3."},
    "next_retry_at": {"type": "string", "format": "date-time", "description": "record_failure: ISO 8601 time."},
    "policy_name": _text("drain: the drain policy (default: the configured one)."),
    "max_goals": {"type": "integer", "minimum": 1, "maximum": 250, "description": "drain: at most this many goals."},
    "force": _flag("drain: run even when the drain mode is off."),
    "explicit": _flag("drain: the user explicitly asked to drain."),
    "drain_mode": _enum(("off", "on_explicit_nervous", "always"), "set_config: when drain may run."),
    "default_drain_policy": _text("set_config: the default drain policy."),
    "risk_gate_evidence": {"type": "string", "description": "set_config: evidence for relaxing the gate."},
    "dangerous_opt_in": _flag("set_config: confirms disabling the risk gate."),
    "status_filter": {"description": "list: one status or several.",
                      "anyOf": [_enum(GOAL_STATUSES, "A status."),
                                {"type": "array", "items": {"enum": list(GOAL_STATUSES)}}]},
    "include_quarantined": _flag("list: include malformed goals set aside on load."),
    "path": _text("import: a goal file (cortex.json of the original, or a nervous goal file)."),
    "replace": _flag("import: replace the goals already in this scope."),
}

_EVOLVE_PROPERTIES: dict[str, Any] = {
    "operation": _enum(EVOLVE_OPERATIONS, "The evolver operation to run."),
    "workspace_root": _text("Absolute workspace directory holding .skill-evolver/ and skills/ "
                            "(default: the configured [evolver] workspace)."),
    "candidate_id": _text("A candidate id (candidate-...)."),
    "skill_name": _text("A learned skill name (learned-...)."),
    "reason": {"type": "string", "description": "Why (merge_candidate, and recorded in the audit)."},
    "user_confirmed": _flag("True only when the user typed the exact command or answered yes to a question "
                            "naming this candidate or skill. Required for approve, publish, rollback, "
                            "promote_canary and set_mode."),
    "source_summary": _text("create_candidate: what happened that is worth keeping."),
    "signal_type": _text("create_candidate: why this is a candidate, usually multi_tool_success, user_correction, "
                         "repeated_request or recovered_failure (any short label is kept).", maxLength=64,
                         examples=["multi_tool_success", "user_correction", "repeated_request", "recovered_failure"]),
    "signal_count": {"type": "integer", "minimum": 1, "description": "create_candidate: how often it was seen."},
    "proposed_skill_content": _text("create_candidate: the draft SKILL.md (at most 64 KiB)."),
    "target_skill": _text("create_candidate: the learned skill to create or patch (learned-<slug>)."),
    "change_type": _enum(("create_skill", "patch_skill", "deprecate_skill"), "create_candidate: kind of change."),
    "risk_level": _enum(("low", "medium", "high"), "create_candidate: declared risk (the effective risk is "
                        "the higher of this and the derived one)."),
    "matched_rules": _strings("create_candidate: rules the workflow matched."),
    "source_tools": _strings("create_candidate: tools the workflow used."),
    "diff_summary": {"type": "string", "description": "What changed in this draft."},
    "dedupe_basis": {"type": "string", "description": "create_candidate: why this is not a duplicate."},
    "suggestions": _strings("Review suggestions."),
    "autonomy_mode": _enum(("manual", "assisted", "autonomous"), "set_mode: the new mode."),
    "merge_into_candidate_id": _text("merge_candidate: the candidate that absorbs this one."),
    "replacement_skill_content": _text("A replacement draft SKILL.md."),
    "decision": _enum(("approve", "reject", "revise"), "review_candidate: the decision."),
    "failure_reason": {"type": "string", "description": "review_candidate reject: why."},
    "publish_as": _text("publish_candidate: publish under this learned-* name."),
    "statuses": {"type": "array", "items": {"enum": list(EVOLVER_STATUSES)},
                 "description": "list_candidates: statuses to list (default the open ones)."},
}


def tool_specs(registry_names: list[str] | None = None) -> list[ToolSpec]:
    """Every tool. ``registry_names`` (the configured registry providers) closes ``search.registries``."""
    registry_item: dict[str, Any] = {"type": "string", "minLength": 1}
    if registry_names:
        registry_item = {"enum": sorted(registry_names)}
    return [
        ToolSpec(
            "perceive", "Perceive a task",
            "Route a task to a learned region of the skill cortex. A hit lists proven candidates with their "
            "weights and lessons; a miss gives entity-filtered keywords to search with. Writes nothing.",
            _obj({"task": _text("The task, in one sentence.", maxLength=2000)}, ("task",)),
            PERCEIVE_OUTPUT, read_only=True, destructive=False, idempotent=True, open_world=False),
        ToolSpec(
            "search", "Search skill registries",
            "Search the configured skill registries concurrently. GitHub hits are unreviewed. Writes nothing.",
            _obj({"query": _text("What to search for.", maxLength=500),
                  "registries": {"type": "array", "items": registry_item, "minItems": 1, "uniqueItems": True,
                                 "description": "Only these registries (default: all configured)."},
                  "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10,
                            "description": "Hits per registry."}}, ("query",)),
            SEARCH_OUTPUT, read_only=True, destructive=False, idempotent=True, open_world=True),
        ToolSpec(
            "acquire", "Acquire a skill for a task",
            "Start the acquisition loop: perceive, search on a miss, fetch and scan every candidate in memory. "
            "Nothing is installed: the result lists candidates, each with a single-use approval token. Show "
            "them to the user (name, summary, source, scan status, risk, history) and wait for an explicit "
            "choice; in state 'reflex' tell the user which skill will be used and that they can say cancel.",
            _obj({"task": _text("The user's task, in one sentence.", maxLength=2000)}, ("task",)),
            ACQUIRE_OUTPUT, read_only=False, destructive=False, idempotent=False, open_world=True),
        ToolSpec(
            "request_install", "Request installing a named skill",
            "Vet one named skill (registry gates, integrity, our scan) and return an approval token for it. "
            "It installs nothing: nothing is installed until 'approve' is called with that token after the user "
            "explicitly agreed. A refused skill gets no token.",
            _obj({"ref": _text("A skill reference: slug, @owner/slug, registry:@owner/slug or "
                               "github:owner/repo[/path][@sha].", maxLength=300),
                  "version": _text("A version (default: latest)."),
                  "task": _text("What the skill is for (decides where its outcome is learned).", maxLength=2000)},
                 ("ref",)),
            ACQUIRE_OUTPUT, read_only=False, destructive=False, idempotent=False, open_world=True),
        ToolSpec(
            "approve", "Approve a candidate",
            "Install the candidate an approval token names and return its execution plan. Call it ONLY after "
            "the user explicitly chose that candidate (or, in reflex mode, did not cancel after being told); "
            "silence is never approval. Tokens are single-use and expire. A review-level, suspicious or "
            "unverified candidate is confirmed by the user in a form this server shows them (elicitation) when "
            "the client supports it; with [approval] mode = \"person\" and no such form the state is "
            "'needs_person': tell the user the command it names.",
            _obj({"token": _TOKEN,
                  "confirm_suspicious": _flag("The user explicitly confirmed installing a skill the registry "
                                              "flags suspicious, or an unverified one ('install anyway'). "
                                              "Default false.")},
                 ("token",)),
            ACQUIRE_OUTPUT, read_only=False, destructive=False, idempotent=False, open_world=True),
        ToolSpec(
            "cancel", "Cancel an acquisition",
            "Cancel the acquisition a token belongs to; a skill it installed is uninstalled.",
            _obj({"token": _TOKEN}, ("token",)),
            ACQUIRE_OUTPUT, read_only=False, destructive=True, idempotent=True, open_world=False),
        ToolSpec(
            "done", "Report an outcome",
            "Report how an acquired skill did, so the cortex learns; the result says what to do next (retry, "
            "fix dependencies, offer the next candidate with consent, or keep the skill). Pass 'keep' (without "
            "an outcome) to answer a retention suggestion. The cached skill is removed unless kept.",
            _obj({"slug": _text("The installed skill's slug (installed.slug)."),
                  "outcome": _enum(OUTCOMES, "What happened when the skill was used."),
                  "detail": {"type": "string", "maxLength": 2000, "description": "Failure detail (sanitised)."},
                  "session": {"type": "string", "pattern": "^[0-9a-f]{12}$",
                              "description": "The acquisition session (default: the latest for the slug)."},
                  "keep": _flag("Answer to a retention suggestion: true keeps the skill, false releases it.")},
                 ("slug",), anyOf=[{"required": ["outcome"]}, {"required": ["keep"]}]),
            ACQUIRE_OUTPUT, read_only=False, destructive=True, idempotent=False, open_world=False),
        ToolSpec(
            "scan", "Scan a skill",
            "Classify a skill's side effects and decide allow, review or refuse. The target is a local folder, "
            "SKILL.md or .zip, or a registry reference fetched in memory. Nothing is executed or installed.",
            _obj({"target": _text("A path or a skill reference.", maxLength=1000),
                  "version": _text("For a reference: the version (default: latest).")}, ("target",)),
            SCAN_OUTPUT, read_only=True, destructive=False, idempotent=True, open_world=True),
        ToolSpec(
            "goal", "Durable goals",
            "Durable goals for this project: analyze a request, plan, link tasks, verify, complete, block or "
            "escalate, accept risk, record failures, reopen, cancel, drain, configure, and query (get, list, "
            "summary). 'get' with goal_id 'current' resumes where work stopped. The result's 'next' says what "
            "to do next.",
            _obj(_GOAL_PROPERTIES, ("action",), allOf=_per_action("action", GOAL_REQUIRED)),
            GOAL_OUTPUT, read_only=False, destructive=True, idempotent=False, open_world=False),
        ToolSpec(
            "evolve", "Skill evolver",
            "Turn reusable workflows into reviewed learned-* skills: create, merge, review and update "
            "candidates, publish, roll back, promote canaries, list or show candidates, read or set the mode, "
            "repair state. Approve, publish, rollback, promote_canary and set_mode need user_confirmed=true, which "
            "means the user typed the exact command or said yes to a question naming the candidate or skill.",
            _obj(_EVOLVE_PROPERTIES, ("operation",), allOf=_per_action("operation", EVOLVE_REQUIRED)),
            EVOLVE_OUTPUT, read_only=False, destructive=True, idempotent=False, open_world=False),
    ]


INSTRUCTIONS = (
    "nervous acquires the skills you lack, safely. When your own tools cannot do a task: call acquire with "
    "the task, show the candidates to the user and wait for an explicit choice, then approve with that "
    "candidate's token, follow the installed skill's plan, and always report the outcome with done. "
    "Never approve on the user's behalf: silence is never approval. Show every warning to the user."
)

__all__ = ["ToolSpec", "tool_specs", "INSTRUCTIONS", "GOAL_ACTIONS", "EVOLVE_OPERATIONS", "OUTCOMES"]
