"""What each MCP tool does, over :class:`nervous.frontends.api.Nervous`. No SDK here: plain dicts in and out.

A handler returns the structured result (what the CLI prints with ``--json``, minus ``ok`` where
the engine's envelope has none) or raises :class:`ToolFailure` / :class:`nervous.errors.NervousError`;
:func:`call` turns either into the error envelope the server flags as a tool error.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ...errors import NervousError, UsageError

Handler = Callable[..., dict[str, Any]]
#: asks the person through the client (MCP elicitation): ``(message, schema) -> (action, content)``;
#: ``None`` when the client cannot ask
Ask = Callable[[str, dict[str, Any]], tuple[str, dict[str, Any]]]


class ToolFailure(Exception):
    """A refused call whose error envelope is already built (goal and evolver envelopes)."""

    def __init__(self, envelope: dict[str, Any]) -> None:
        super().__init__(envelope.get("message", ""))
        self.envelope = envelope


def error_envelope(exc: NervousError, **extra: Any) -> dict[str, Any]:
    return {"ok": False, **extra, "error": exc.to_json(), "warnings": []}


# ------------------------------------------------------------------------------------ acquisition


def perceive(nv: Any, args: dict[str, Any]) -> dict[str, Any]:
    return dict(nv.perceive(args["task"]).to_json())


def search(nv: Any, args: dict[str, Any]) -> dict[str, Any]:
    from ...kernel.serialize import to_json

    result = nv.search(args["query"], registries=args.get("registries"), limit=args.get("limit", 10))
    hits = []
    for hit in result.hits:
        data = to_json(hit)
        data["ref"] = str(hit.ref)
        hits.append(data)
    warnings = [f"{s.registry}: {s.status}: {s.message}" for s in result.registries if s.status != "ok"]
    if result.registries and not result.ok:
        from ...errors import RegistryError

        raise RegistryError("no registry answered: " + "; ".join(warnings), code="all_registries_failed")
    return {"query": result.query, "hits": hits, "registries": [to_json(s) for s in result.registries],
            "warnings": warnings}


def acquire(nv: Any, args: dict[str, Any]) -> dict[str, Any]:
    return dict(nv.acquire(args["task"]).to_json())


def request_install(nv: Any, args: dict[str, Any]) -> dict[str, Any]:
    return dict(nv.request_install(args["ref"], version=args.get("version"), task=args.get("task")).to_json())


def approve(nv: Any, args: dict[str, Any], ask: Ask | None = None) -> dict[str, Any]:
    """Approve with the agent's token; a riskier candidate is confirmed by the person through elicitation.

    Where the client can ask the user (elicitation), a review-level, suspicious or unverified candidate
    installs only on the user's own *accept* in that form, whatever ``confirm_suspicious`` says.
    """
    from ...engines.acquire.session import session_of
    from ...engines.install.gate import Approval
    from ...errors import Refused

    token = args["token"]
    if ask is not None:
        state = nv.status(session_of(token))
        cand = next((c for c in state.data.get("candidates", []) if c.get("token") == token), None)
        if cand is not None and _needs_person(cand):
            message = _elicit_message(cand)
            action, content = ask(message, {"type": "object", "properties": {"install": {
                "type": "boolean", "title": f"Install {cand['name']} v{cand['version']}",
                "description": "Yes only if you want this skill installed now."}}, "required": ["install"]})
            if action == "accept" and content.get("install") is True:
                return dict(nv.acquirer.approve(token, approval=Approval.person("elicitation")).to_json())
            said = {"accept": "declined", "decline": "declined", "cancel": "cancelled"}.get(action, "cancelled")
            raise Refused(f"the user {said} installing {cand['name']}; nothing was installed (the token stays "
                          "open: approve again only if they change their mind)", code=f"user_{said}")
    state = nv.approve(token, confirm_suspicious=bool(args.get("confirm_suspicious", False)))
    return dict(state.to_json())


def _needs_person(cand: dict[str, Any]) -> bool:
    return bool(cand.get("decision") == "review" or cand.get("suspicious") or cand.get("verified") is False)


def _elicit_message(cand: dict[str, Any]) -> str:
    from ...engines.scan.engine import defang

    why = [w for w, bad in (("review-level (risk " + str(cand.get("risk")) + ")", cand.get("decision") == "review"),
                            ("flagged suspicious by its registry", cand.get("suspicious")),
                            ("UNVERIFIED: its registry publishes no digests", cand.get("verified") is False)) if bad]
    rules = ", ".join(cand.get("rule_ids") or [])
    return defang(f"Your agent asks to install {cand['name']} v{cand['version']} from {cand.get('registry')}: "
                  f"{'; '.join(why)}" + (f" (rules: {rules})" if rules else "") + ". Install it?")


def cancel(nv: Any, args: dict[str, Any]) -> dict[str, Any]:
    return dict(nv.cancel(args["token"]).to_json())


def done(nv: Any, args: dict[str, Any]) -> dict[str, Any]:
    outcome = args.get("outcome")
    keep = args.get("keep")
    if outcome is not None and keep is not None:
        raise UsageError("done takes an outcome or keep (answer to a retention suggestion), not both")
    state = nv.done(args["slug"], outcome, detail=args.get("detail"), session=args.get("session"), keep=keep)
    return dict(state.to_json())


def scan(nv: Any, args: dict[str, Any]) -> dict[str, Any]:
    report = nv.scan(args["target"], version=args.get("version"))
    data = dict(report.to_json())
    data.setdefault("decision", report.decision)
    data.setdefault("warnings", [])
    return data


# ------------------------------------------------------------------------------------ goals and evolver


def goal(nv: Any, args: dict[str, Any]) -> dict[str, Any]:
    action = args["action"]
    goals = nv.goals
    if action == "import":
        unknown = sorted(set(args) - {"action", "path", "replace"})
        if unknown:
            envelope = {"ok": False, "action": action, "code": "invalid_arg",
                        "message": f"import: unknown argument(s) {', '.join(unknown)}; accepted: path, replace"}
            raise ToolFailure(_goal_error(envelope))
        try:
            result = goals.import_file(args["path"], replace=bool(args.get("replace", False)))
        except NervousError as exc:
            raise ToolFailure(_goal_error({"ok": False, "action": action, "code": exc.code,
                                           "message": exc.message, "warnings": []})) from None
        return dict(result.to_json())
    envelope = dict(goals.dispatch(args))
    if not envelope.get("ok"):
        raise ToolFailure(_goal_error(envelope))
    return envelope


def _goal_error(envelope: dict[str, Any]) -> dict[str, Any]:
    """The goal envelope (specs/goals.md §5) plus the ``error`` object every tool error carries."""
    out = {"ok": False, **{k: v for k, v in envelope.items() if k != "ok"}}
    out["error"] = {"code": envelope.get("code", "error"), "message": envelope.get("message", "")}
    out.setdefault("warnings", [])
    return out


def evolve(nv: Any, args: dict[str, Any], ask: Ask | None = None) -> dict[str, Any]:
    params = dict(args)
    workspace = params.pop("workspace_root", None)
    operation = params["operation"]
    try:
        evolver = nv.evolver_for(workspace) if workspace is not None else nv.evolver
    except NervousError as exc:
        raise ToolFailure(_evolve_error(operation, exc.code, exc.message)) from None
    evolver.confirmer = _elicit_confirmer(ask) if ask is not None else None
    try:
        result = evolver.call(params)
    except NervousError as exc:
        envelope = _evolve_error(operation, exc.code, exc.message)
        blocking = getattr(exc, "blocking_record", None)
        if blocking is not None:
            envelope["blocking_record"] = blocking
        raise ToolFailure(envelope) from None
    data = result.to_json() if hasattr(result, "to_json") else dict(result)
    if data.get("ok") is False:
        envelope = dict(data)
        envelope.setdefault("error", {"code": data.get("error_code", "error"), "message": data.get("message", "")})
        envelope.setdefault("warnings", [])
        raise ToolFailure(envelope)
    data.setdefault("ok", True)
    data.setdefault("operation", operation)
    data.setdefault("warnings", [])
    return dict(data)


def _elicit_confirmer(ask: Ask) -> Callable[[str, str], bool]:
    """The evolver's person confirmation as an elicitation: the user accepts a yes/no form."""

    def confirm(what: str, name: str) -> bool:
        from ...engines.scan.engine import defang

        action, content = ask(defang(f"Your agent asks for: {what}. Do you confirm?"), {
            "type": "object", "properties": {"confirm": {"type": "boolean", "title": f"Confirm {name}"}},
            "required": ["confirm"]})
        return action == "accept" and content.get("confirm") is True

    return confirm


def _evolve_error(operation: str, code: str, message: str) -> dict[str, Any]:
    """The evolver envelope (specs/evolver.md §10) plus the common ``error`` object."""
    return {"ok": False, "operation": operation, "error_code": code, "message": message, "blocking_record": None,
            "error": {"code": code, "message": message}, "warnings": []}


HANDLERS: Mapping[str, Handler] = {
    "perceive": perceive, "search": search, "acquire": acquire, "request_install": request_install,
    "approve": approve,
    "cancel": cancel, "done": done, "scan": scan, "goal": goal, "evolve": evolve,
}


#: tools that may ask the person through the client
ASKING = frozenset({"approve", "evolve"})


def call(nv: Any, name: str, args: dict[str, Any], ask: Ask | None = None) -> tuple[dict[str, Any], bool]:
    """Run one tool: ``(structured result, is_error)``. Never raises for an expected failure."""
    handler = HANDLERS.get(name)
    if handler is None:
        return error_envelope(UsageError(f"unknown tool {name!r}", code="unknown_tool")), True
    try:
        return (handler(nv, args, ask) if name in ASKING else handler(nv, args)), False
    except ToolFailure as failure:
        return failure.envelope, True
    except NervousError as exc:
        return error_envelope(exc), True


__all__ = ["HANDLERS", "call", "ToolFailure", "error_envelope"]
