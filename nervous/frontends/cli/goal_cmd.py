"""``nervous goal ACTION``: durable goals from the command line (specs/goals.md).

Every action takes ``--json`` (one envelope object) and ``--args JSON`` (the flat parameter object
of the single-tool interface, merged under the options); the default output is the Markdown
summary with the "what's next" hint. ``nervous goal get current`` resumes where work stopped.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

import click

from .app import _json_text, emit, get_app, json_option

_RISK_LEVELS = ("low", "medium", "high")


class _Group(click.Group):
    """Accept ``accept_risk`` as well as ``accept-risk`` (the spec spells actions with ``_``)."""

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        return super().get_command(ctx, name) or super().get_command(ctx, name.replace("_", "-"))


@click.group(cls=_Group)
def goal() -> None:
    """Durable goals: analyze, plan, link, verify, complete, block, drain."""


def _goals() -> Any:
    from ...engines.goals import Goals

    return Goals(get_app().manager)


#: the most text ``--args``, ``--goal`` or ``goal call`` accept (a goal's own texts are far smaller)
MAX_ARGS_CHARS = 16 << 20


def _parse_object(raw: str, what: str) -> dict[str, Any]:
    """A JSON object from ``raw`` ('-' reads stdin, bounded); :class:`GoalError` ``invalid_arg`` or
    ``too_large`` otherwise, with ``what`` naming the input in the message."""
    from ...engines.goals.errors import GoalError

    text = sys.stdin.read(MAX_ARGS_CHARS + 1) if raw == "-" else raw
    if len(text) > MAX_ARGS_CHARS:
        raise GoalError("too_large", f"{what}: larger than {MAX_ARGS_CHARS:,} characters; nothing was read further")
    try:
        data = json.loads(text)
    except RecursionError:
        raise GoalError("invalid_arg", f"{what}: JSON nested too deeply") from None
    except ValueError as exc:
        raise GoalError("invalid_arg", f"{what}: not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise GoalError("invalid_arg", f"{what}: expected a JSON object, got a JSON {type(data).__name__}")
    return data


def _extra_args(raw: str | None, what: str = "--args") -> dict[str, Any]:
    if not raw:
        return {}
    from ...errors import NervousError

    try:
        return _parse_object(raw, what)
    except NervousError as exc:
        if exc.code == "too_large":
            raise
        raise click.UsageError(exc.message) from None


def _show(as_json: bool, result: Any) -> None:
    env = result.to_json()
    env.pop("ok", None)
    text = result.markdown
    if result.next and "**Next:**" not in text:
        text += f"\n\n**Next:** {result.next}"
    emit(as_json, env, text)


def _run(as_json: bool, raw_args: str | None, call: Callable[[Any, dict[str, Any]], Any],
         given: dict[str, Any]) -> None:
    kwargs = _extra_args(raw_args)
    kwargs.update({k: v for k, v in given.items() if v is not None and v != () and v != []})
    _show(as_json, call(_goals(), kwargs))


args_option = click.option("--args", "raw_args", metavar="JSON",
                           help="Action parameters as a JSON object ('-' reads stdin); options override.")
goal_id_option = click.option("-g", "--goal-id", help="Goal id, 'current' (default) or 'latest'.")


def _intent_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    opts = [
        click.option("--objective", "goal_text", help="The goal in one sentence (default: the prompt)."),
        click.option("--summary", "intent_summary", help="Intent summary (default: the prompt)."),
        click.option("-s", "--criterion", "success_criteria", multiple=True, help="A success criterion (repeat)."),
        click.option("--constraint", "constraints", multiple=True, help="A constraint (repeat)."),
        click.option("--risk", "risks", multiple=True, metavar="[SEVERITY:]TEXT",
                     help="A risk, e.g. 'high: schema churn' (repeat; severity defaults to medium)."),
        click.option("--expected-output", help="What the result should look like."),
        click.option("--complexity", type=click.Choice(_RISK_LEVELS)),
        click.option("--needs-magi/--no-needs-magi", default=None, help="Override the deliberation heuristic."),
        click.option("--magi-rationale", help="Why deliberation is (not) needed."),
        click.option("--scope", multiple=True, help="Framing: in scope (repeat)."),
        click.option("--non-goal", "non_goals", multiple=True, help="Framing: out of scope (repeat)."),
        click.option("--assumption", "assumptions", multiple=True, help="Framing: assumption (repeat)."),
        click.option("--context", "context_items", multiple=True, help="Framing: context (repeat)."),
        click.option("--open-question", "open_questions", multiple=True, help="Framing: open question (repeat)."),
        click.option("--option", "candidate_options", multiple=True, help="Framing: candidate option (repeat)."),
        click.option("--decision-needed", help="Framing: the decision deliberation must make."),
    ]
    for opt in reversed(opts):
        fn = opt(fn)
    return fn


def _intent_kwargs(opts: dict[str, Any]) -> dict[str, Any]:
    risks = []
    for text in opts.pop("risks", ()):
        head, sep, tail = text.partition(":")
        if sep and head.strip().lower() in _RISK_LEVELS:
            risks.append({"severity": head.strip().lower(), "description": tail.strip()})
        else:
            risks.append({"description": text})
    framing: dict[str, Any] = {}
    for key, name in (("scope", "scope"), ("non_goals", "non_goals"), ("assumptions", "assumptions"),
                      ("context_items", "context"), ("open_questions", "open_questions"),
                      ("candidate_options", "candidate_options")):
        values = opts.pop(key, ())
        if values:
            framing[name] = list(values)
    decision = opts.pop("decision_needed", None)
    if decision is not None:
        framing["decision_needed"] = decision
    out = {k: (list(v) if isinstance(v, tuple) else v) for k, v in opts.items()}
    out["goal"] = out.pop("goal_text", None)
    out["risks"] = risks or None
    out["framing"] = framing or None
    return out


# ------------------------------------------------------------------------------------ lifecycle


@goal.command()
@click.argument("prompt")
@_intent_options
@args_option
@json_option
def analyze(prompt: str, raw_args: str | None, as_json: bool, **opts: Any) -> None:
    """Turn PROMPT into a durable goal (it becomes current)."""
    _run(as_json, raw_args, lambda g, kw: g.analyze(**kw), {"prompt": prompt, **_intent_kwargs(opts)})


@goal.command()
@goal_id_option
@_intent_options
@args_option
@json_option
def refine(goal_id: str | None, raw_args: str | None, as_json: bool, **opts: Any) -> None:
    """Amend an analyzed goal's intent or framing in place."""
    _run(as_json, raw_args, lambda g, kw: g.refine(**kw), {"goal_id": goal_id, **_intent_kwargs(opts)})


def _subtask(text: str) -> dict[str, Any]:
    """``"Title | after=A,B | priority=high | description=..."``."""
    title, *parts = [p.strip() for p in text.split("|")]
    out: dict[str, Any] = {"title": title}
    for part in parts:
        key, sep, value = part.partition("=")
        key = key.strip().lower()
        if not sep or key not in ("after", "priority", "description", "assigned_to"):
            raise click.UsageError(f"--subtask {text!r}: expected 'Title | after=A,B | priority=P | description=D'")
        if key == "after":
            out["dependencies"] = [d.strip() for d in value.split(",") if d.strip()]
        else:
            out[key] = value.strip()
    return out


@goal.command()
@goal_id_option
@click.option("--subtask", "subtasks", multiple=True, metavar="'TITLE[ | after=A,B][ | priority=P]'",
              help="A subtask (repeat, in order); dependencies by title or plan id.")
@click.option("--magi-used", is_flag=True, default=None, help="The plan follows a deliberation.")
@click.option("--magi-output-ref", help="Reference to the deliberation's output.")
@args_option
@json_option
def plan(goal_id: str | None, subtasks: tuple[str, ...], magi_used: bool | None, magi_output_ref: str | None,
         raw_args: str | None, as_json: bool) -> None:
    """Store the execution plan (replanning archives the previous one)."""
    given = {"goal_id": goal_id, "subtasks": [_subtask(s) for s in subtasks] or None, "magi_used": magi_used,
             "magi_output_ref": magi_output_ref}
    _run(as_json, raw_args, lambda g, kw: g.plan(**kw), given)


@goal.command()
@goal_id_option
@click.argument("links", nargs=-1, metavar="[PLAN_ID=]TASK_ID...")
@args_option
@json_option
def link(goal_id: str | None, links: tuple[str, ...], raw_args: str | None, as_json: bool) -> None:
    """Link external task ids to the plan (``plan-001=task-17`` or just ``task-17``)."""
    parsed = []
    for text in links:
        pid, sep, task = text.partition("=")
        parsed.append({"plan_id": pid.strip(), "axon_task_id": task.strip()} if sep else {"axon_task_id": text})
    _run(as_json, raw_args, lambda g, kw: g.link(**kw), {"goal_id": goal_id, "links": parsed or None})


def _check(text: str, passed: bool) -> dict[str, Any]:
    criterion, _sep, evidence = text.partition("::")
    return {"criterion": criterion.strip(), "passed": passed, "evidence": evidence.strip()}


@goal.command()
@goal_id_option
@click.option("--pass", "passes", multiple=True, metavar="'CRITERION[ :: EVIDENCE]'", help="A passed check.")
@click.option("--fail", "fails", multiple=True, metavar="'CRITERION[ :: EVIDENCE]'", help="A failed check.")
@click.option("--all-tasks-complete", "all_axon_complete", is_flag=True, default=None,
              help="Every linked task is done.")
@click.option("--recommendation", type=click.Choice(("approve", "revise", "replan", "escalate_to_magi")))
@click.option("--concern", "concerns", multiple=True, help="A concern (repeat).")
@click.option("--override-evidence", help="Approve despite failing checks, with this evidence (recorded).")
@click.option("--actor", help="Who overrides (default: user).")
@args_option
@json_option
def verify(goal_id: str | None, passes: tuple[str, ...], fails: tuple[str, ...], raw_args: str | None,
           as_json: bool, **opts: Any) -> None:
    """Record verification against the success criteria."""
    checks = [_check(p, True) for p in passes] + [_check(f, False) for f in fails]
    given = {"goal_id": goal_id, "checks": checks or None, **{k: (list(v) if isinstance(v, tuple) else v)
                                                               for k, v in opts.items()}}
    _run(as_json, raw_args, lambda g, kw: g.verify(**kw), given)


@goal.command()
@click.argument("ref", required=False)
@args_option
@json_option
def complete(ref: str | None, raw_args: str | None, as_json: bool) -> None:
    """Complete a verified goal (REF: id, 'current' or 'latest')."""
    _run(as_json, raw_args, lambda g, kw: g.complete(**kw), {"goal_id": ref})


def _blocker_command(name: str, doc: str) -> None:
    @goal.command(name=name, help=doc)
    @goal_id_option
    @click.option("--reason", help="Why (required).")
    @click.option("--evidence", help="Evidence (required).")
    @click.option("--related", "related_ids", multiple=True, help="A related id (repeat).")
    @click.option("--revisit-at", "next_revisit_at", metavar="TIME", help="When to look again (default: now).")
    @click.option("--unblock", "unblock_conditions", multiple=True, help="An unblock condition (repeat).")
    @args_option
    @json_option
    def command(raw_args: str | None, as_json: bool, **opts: Any) -> None:
        given = {k: (list(v) if isinstance(v, tuple) else v) for k, v in opts.items()}
        _run(as_json, raw_args, lambda g, kw: getattr(g, name)(**kw), given)


_blocker_command("block", "Block a goal on a dependency or tooling problem, with evidence.")
_blocker_command("escalate", "Escalate a goal for risk review (unsafe uncertainty), with evidence.")


@goal.command(name="accept-risk")
@goal_id_option
@click.option("--reason", help="Why the risk is accepted (required).")
@click.option("--evidence", help="Approval evidence, e.g. a ticket (required).")
@click.option("--mode", "risk_gate_mode", type=click.Choice(("auto_deliberate", "user_accepted", "disabled")),
              help="Acceptance mode (default: derived from the configured gate).")
@click.option("--actor", help="Who accepts (default: user).")
@click.option("--scope", help="What it covers: the goal id (default) or a hard-stop category.")
@click.option("--related", "related_ids", multiple=True, help="A related id (repeat).")
@click.option("--expires-at", metavar="TIME", help="When the acceptance lapses (must be in the future).")
@args_option
@json_option
def accept_risk(raw_args: str | None, as_json: bool, **opts: Any) -> None:
    """Record a scoped, optionally expiring risk acceptance."""
    given = {k: (list(v) if isinstance(v, tuple) else v) for k, v in opts.items()}
    _run(as_json, raw_args, lambda g, kw: g.accept_risk(**kw), given)


@goal.command(name="record-failure")
@goal_id_option
@click.option("--reason", help="What failed (required).")
@click.option("--evidence", help="Evidence, e.g. a run id (required).")
@click.option("--related", "related_ids", multiple=True, help="A related id (repeat).")
@click.option("--retryability", type=click.Choice(("unknown", "retryable", "not_retryable")))
@click.option("--max-attempts", type=click.IntRange(1, 25), help="Attempt limit, 1-25 (default 3).")
@click.option("--next-retry-at", metavar="TIME", help="Earliest retry time.")
@args_option
@json_option
def record_failure(raw_args: str | None, as_json: bool, **opts: Any) -> None:
    """Record a failed attempt (repeat calls count attempts)."""
    given = {k: (list(v) if isinstance(v, tuple) else v) for k, v in opts.items()}
    _run(as_json, raw_args, lambda g, kw: g.record_failure(**kw), given)


@goal.command()
@goal_id_option
@click.option("--reason", help="Why work can continue (required).")
@click.option("--evidence", help="Evidence of the resolution (required).")
@click.option("--related", "related_ids", multiple=True, help="A related id (repeat).")
@args_option
@json_option
def reopen(raw_args: str | None, as_json: bool, **opts: Any) -> None:
    """Move a blocked or escalated goal back to needs_replan."""
    given = {k: (list(v) if isinstance(v, tuple) else v) for k, v in opts.items()}
    _run(as_json, raw_args, lambda g, kw: g.reopen(**kw), given)


@goal.command()
@click.argument("ref", required=False)
@click.option("--reason", help="Why (kept on the blocker, if any).")
@args_option
@json_option
def cancel(ref: str | None, reason: str | None, raw_args: str | None, as_json: bool) -> None:
    """Cancel a goal (REF: id, 'current' or 'latest')."""
    _run(as_json, raw_args, lambda g, kw: g.cancel(**kw), {"goal_id": ref, "reason": reason})


# ------------------------------------------------------------------------------------ drain and config


@goal.command()
@click.option("--policy", "policy_name", help="Drain policy (default: the configured one).")
@click.option("--max-goals", type=int, help="Snapshot size, 1-250 (default 25).")
@click.option("--evidence", multiple=True, help="Caller evidence recorded on the run (repeat).")
@click.option("--explicit", is_flag=True, default=None, help="The user explicitly asked to drain.")
@click.option("--force", is_flag=True, default=None, help="Run even when drain_mode is off.")
@args_option
@json_option
def drain(raw_args: str | None, as_json: bool, **opts: Any) -> None:
    """List what can be worked next, enforcing budgets and the risk gate."""
    given = {k: (list(v) if isinstance(v, tuple) else v) for k, v in opts.items()}
    _run(as_json, raw_args, lambda g, kw: g.drain(**kw), given)


@goal.command(name="get-config")
@json_option
def get_config(as_json: bool) -> None:
    """Show the drain mode, default policy and risk gate."""
    _show(as_json, _goals().get_config())


@goal.command(name="set-config")
@click.argument("tokens", nargs=-1, metavar="KEY=VALUE...")
@args_option
@json_option
def set_config(tokens: tuple[str, ...], raw_args: str | None, as_json: bool) -> None:
    """Change settings: drain=, policy=, risk=, evidence=, dangerous_opt_in=true."""
    from ...engines.goals.settings import parse_tokens

    _run(as_json, raw_args, lambda g, kw: g.set_config(**kw), dict(parse_tokens(tokens)))


# ------------------------------------------------------------------------------------ queries


@goal.command()
@click.argument("ref", required=False)
@json_option
def get(ref: str | None, as_json: bool) -> None:
    """Show a goal and what to do next (REF: 'current' (default), 'latest' or an id)."""
    _show(as_json, _goals().get(ref))


@goal.command(name="list")
@click.option("--status", "statuses", multiple=True, help="Only these statuses (repeat).")
@click.option("--include-quarantined", is_flag=True, help="Also show quarantined (malformed) goals.")
@json_option
def list_cmd(statuses: tuple[str, ...], include_quarantined: bool, as_json: bool) -> None:
    """List goals, oldest first (* marks the current one)."""
    _show(as_json, _goals().list(list(statuses) or None, include_quarantined=include_quarantined))


@goal.command()
@json_option
def summary(as_json: bool) -> None:
    """Counts, the current goal, and what needs attention."""
    _show(as_json, _goals().summary())


@goal.command(name="set-current")
@click.argument("ref")
@json_option
def set_current(ref: str, as_json: bool) -> None:
    """Make a non-terminal goal the current one."""
    _show(as_json, _goals().set_current(ref))


@goal.command(name="import")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--replace", is_flag=True, help="Replace the goals already in this scope.")
@json_option
def import_cmd(path: str, replace: bool, as_json: bool) -> None:
    """Import an original NERVous cortex.json goal file into this project/context."""
    _show(as_json, _goals().import_file(path, replace=replace))


@goal.command()
@click.argument("params", metavar="JSON|-")
def call(params: str) -> None:
    """The single-tool interface: a JSON object with 'action' and flat parameters; prints the envelope."""
    from ...errors import NervousError

    try:
        data = _parse_object(params, "parameters")
    except NervousError as exc:  # bad input is one result object on stdout, like every other failure
        out: dict[str, Any] = {"ok": False, "action": "", "code": exc.code, "message": exc.message, "warnings": []}
    else:
        out = _goals().dispatch(data)
    click.echo(_json_text(out, indent=2))
    if not out.get("ok"):
        from ...engines.goals.errors import EXIT_CODES

        sys.exit(EXIT_CODES.get(out.get("code", ""), 1))


# ------------------------------------------------------------------------------------ quarantine, export, reset


@goal.group()
def quarantine() -> None:
    """Goals set aside because they could not be loaded: list, repair or drop them."""


@quarantine.command(name="list")
@json_option
def quarantine_list(as_json: bool) -> None:
    """Every quarantined goal with its reason."""
    _show(as_json, _goals().quarantined())


@quarantine.command()
@click.argument("goal_id")
@click.option("--goal", "goal_json", metavar="JSON|-", help="The corrected goal object ('-' reads stdin); "
              "default: retry the stored value.")
@json_option
def repair(goal_id: str, goal_json: str | None, as_json: bool) -> None:
    """Put a quarantined goal back among the goals, if it now loads."""
    _show(as_json, _goals().repair(goal_id, _extra_args(goal_json, "--goal") if goal_json else None))


@quarantine.command()
@click.argument("goal_id")
@click.option("--yes", is_flag=True, help="Confirm: the goal is discarded for good.")
@json_option
def drop(goal_id: str, yes: bool, as_json: bool) -> None:
    """Discard a quarantined goal (its id is never reused)."""
    if not yes:
        raise click.UsageError(f"dropping {goal_id} discards it for good; add --yes to confirm "
                               "(or export the goals first: nervous goal export -o FILE)")
    _show(as_json, _goals().drop(goal_id))


@goal.command()
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write to this file instead of stdout.")
@click.option("--archive", "archive_id", help="Export an archive made by reset (see goal archives).")
@click.option("--force", is_flag=True, help="Replace an existing output file.")
def export(output: str | None, archive_id: str | None, force: bool) -> None:
    """Print (or write) this project's goal document, in the format 'goal import' reads."""
    from ...kernel.durable import write_user_file

    goals = _goals()
    result = goals.archived(archive_id) if archive_id else goals.export()
    for w in result.warnings:
        click.echo(click.style(f"warning: {w}", fg="yellow"), err=True)
    text = json.dumps(result.data["document"], indent=2, ensure_ascii=False) + "\n"
    if output is None:
        click.echo(text, nl=False)
        return
    # (a link, folder, device or pipe is never replaced; an existing file only with --force)
    path = write_user_file(output, text.encode("utf-8"), force=force)
    click.echo(f"wrote {path}", err=True)


@goal.command()
@json_option
def archives(as_json: bool) -> None:
    """The archives 'goal reset' made of this project's goals."""
    _show(as_json, _goals().archives())


@goal.command()
@click.option("--yes", is_flag=True, help="Confirm: archive every goal and start empty.")
@json_option
def reset(yes: bool, as_json: bool) -> None:
    """Archive this project's goals and start empty (settings kept; restore with export --archive + import)."""
    if not yes:
        raise click.UsageError("reset archives every goal of this project and starts empty; add --yes to confirm")
    _show(as_json, _goals().reset())
