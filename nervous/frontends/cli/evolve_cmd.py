"""``nervous evolve ...``: managed skill candidates from the command line (specs/evolver.md §10–§11).

Every subcommand takes ``--json`` and ``--workspace``. Consequential actions (approve, publish,
rollback, promote, set mode) need ``--yes``, which asserts that the user confirmed this exact
action. ``nervous evolve run "TEXT"`` accepts the direct review commands verbatim, so a host agent
can pass the user's message through; typing the exact command is the confirmation.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

import click

from ...kernel.texttable import terminal_lines, terminal_safe
from .app import _json_text, emit, get_app, json_option, table

_workspace_option = click.option("--workspace", "-w", type=click.Path(file_okay=False), default=None,
                                 help="Workspace root holding ./.skill-evolver/ and ./skills/ "
                                      "(default: config evolver.workspace).")
_yes_option = click.option("--yes", "user_confirmed", is_flag=True,
                           help="The user explicitly confirmed this action.")


def _evolver(workspace: str | None, *, ask: bool = False) -> Any:
    """The workspace's evolver; with ``ask``, a person at this terminal confirms by typing the name."""
    from ...engines.evolver import Evolver
    from ...engines.install import gate
    from .confirm import at_terminal

    app = get_app()
    ev = Evolver(app.manager, workspace if workspace is not None else app.config.evolver.workspace)
    if at_terminal() and (ask or gate.approval_mode(app.manager) == "person"):
        ev.confirmer = _ask_person
    return ev


def _ask_person(what: str, name: str) -> bool:
    from ...errors import Refused
    from .confirm import ask_person

    try:
        ask_person(f"Confirm {what}?", name)
    except Refused:
        return False
    return True


def _read_draft(path: str | None) -> str | None:
    if path is None:
        return None
    try:
        from ...kernel.durable import MAX_USER_FILE_BYTES, read_user_file

        data = sys.stdin.buffer.read(MAX_USER_FILE_BYTES + 1) if path == "-" else read_user_file(path)
        if len(data) > MAX_USER_FILE_BYTES:
            from ...engines.evolver import EvolverError

            raise EvolverError("DRAFT_TOO_LARGE", f"the draft on stdin is larger than {MAX_USER_FILE_BYTES:,} bytes")
    except OSError as exc:
        raise click.UsageError(f"cannot read draft {path}: {exc.strerror}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:  # bad input, not a size problem
        raise click.UsageError(f"draft {path} is not valid UTF-8 (byte {exc.start}); save it as UTF-8") from None


def _width() -> int:
    """The terminal's width: ``COLUMNS`` when set, else the terminal, else 80 (piped)."""
    import os
    import shutil

    env = os.environ.get("COLUMNS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    return shutil.get_terminal_size((80, 24)).columns if sys.stdout.isatty() else 80


def _id_table(rows: list[list[str]], headers: list[str]) -> str:
    """A table whose first column (a candidate id a person copies) is never shortened."""
    first = max(len(terminal_safe(r[0])) for r in [headers, *rows])
    rest = table([r[1:] for r in rows], headers[1:], width=max(_width() - first - 2, 8 * (len(headers) - 1)))
    ids = [terminal_safe(headers[0]), "-" * first, *(terminal_safe(r[0]) for r in rows)]
    return "\n".join(f"{i.ljust(first)}  {line}".rstrip() for i, line in zip(ids, rest.splitlines(), strict=True))


def _show(result: dict[str, Any]) -> Callable[[], None]:
    def human() -> None:
        record = result.get("record")
        if result.get("operation") == "show_candidate" and isinstance(record, dict):
            for label, key in (("candidate", "candidate_id"), ("status", "status"), ("target", "target_skill"),
                               ("change", "change_type"), ("risk", "risk_level"), ("signal", "signal_type"),
                               ("revisions", "revision_count")):
                if record.get(key) is not None:
                    click.echo(f"{label}: {terminal_safe(record[key])}")
        if result.get("candidates") is not None:
            rows = [[c["candidate_id"], c["target_skill"], c["change_type"], c["risk_level"], c["status"],
                     c["summary"]] for c in result["candidates"]]
            if rows:
                click.echo(_id_table(rows, ["candidate", "target", "change", "risk", "status", "summary"]))
                for c in result["candidates"]:
                    for note in c.get("merge_notes") or []:
                        click.echo(f"  {terminal_safe(c['candidate_id'])}: {terminal_lines(note)}")
        click.echo(terminal_lines(result.get("message", "")))
        if result.get("draft") is not None:  # stored text: escape sequences shown as \x1b, never run
            click.echo("")
            click.echo(terminal_lines(result["draft"]), nl=False)

    return human


def _out(as_json: bool, result: dict[str, Any]) -> None:
    data = {k: v for k, v in result.items() if k != "ok"}
    emit(as_json, data, _show(result))


@click.group()
def evolve() -> None:
    """Evolve reusable workflows into reviewed, versioned, reversible skills."""


@evolve.command("create")
@click.option("--target", "target_skill", required=True, help="Target skill (learned- prefix added if missing).")
@click.option("--change-type", type=click.Choice(["create_skill", "patch_skill", "deprecate_skill"]),
              default="create_skill", show_default=True)
@click.option("--risk", "risk_level", type=click.Choice(["low", "medium", "high"]), required=True,
              help="Declared risk; the effective risk is never lower than the derived one.")
@click.option("--summary", "source_summary", required=True, help="Why this was learned.")
@click.option("--signal-type", required=True, metavar="TEXT",
              help="What made it worth keeping: usually multi_tool_success, user_correction, repeated_request or "
                   "recovered_failure; any short label is kept.")
@click.option("--signal-count", type=int, default=1, show_default=True)
@click.option("--draft", "draft_file", required=True, help="Draft SKILL.md file ('-' for stdin).")
@click.option("--id", "candidate_id", default=None, help="Candidate id (default: generated).")
@click.option("--matched-rule", "matched_rules", multiple=True)
@click.option("--source-tool", "source_tools", multiple=True)
@click.option("--suggestion", "suggestions", multiple=True)
@click.option("--diff-summary", default=None)
@click.option("--dedupe-basis", default=None)
@_workspace_option
@json_option
def create_cmd(workspace: str | None, as_json: bool, draft_file: str, **kw: Any) -> None:
    """Record a proposed skill change as a candidate (the mode may auto-approve or auto-publish it)."""
    params = {k: (list(v) if isinstance(v, tuple) else v) for k, v in kw.items() if v is not None}
    params["proposed_skill_content"] = _read_draft(draft_file)
    _out(as_json, _evolver(workspace).create_candidate(**params))


@evolve.command("list")
@click.option("--status", "statuses", multiple=True, help="Statuses to list (default: open ones).")
@_workspace_option
@json_option
def list_cmd(workspace: str | None, as_json: bool, statuses: tuple[str, ...]) -> None:
    """List candidates waiting for review (or with the given statuses)."""
    _out(as_json, _evolver(workspace).list_candidates(list(statuses) or None))


@evolve.command("review")
@_workspace_option
@json_option
def review_cmd(workspace: str | None, as_json: bool) -> None:
    """Same as 'review skill candidates'."""
    _out(as_json, _evolver(workspace).list_candidates())


@evolve.command("show")
@click.argument("candidate_id")
@_workspace_option
@json_option
def show_cmd(workspace: str | None, as_json: bool, candidate_id: str) -> None:
    """Show one candidate's record and raw draft."""
    _out(as_json, _evolver(workspace).show_candidate(candidate_id))


@evolve.command("approve")
@click.argument("candidate_id")
@_yes_option
@_workspace_option
@json_option
def approve_cmd(workspace: str | None, as_json: bool, candidate_id: str, user_confirmed: bool) -> None:
    """Approve a pending candidate (does not publish)."""
    _out(as_json, _evolver(workspace, ask=not user_confirmed and not as_json).approve(candidate_id, user_confirmed=user_confirmed))


@evolve.command("reject")
@click.argument("candidate_id")
@click.option("--reason", "failure_reason", default="rejected by the user", show_default=True)
@_workspace_option
@json_option
def reject_cmd(workspace: str | None, as_json: bool, candidate_id: str, failure_reason: str) -> None:
    """Reject a candidate; published skills are unchanged."""
    _out(as_json, _evolver(workspace).reject(candidate_id, failure_reason))


@evolve.command("revise")
@click.argument("candidate_id")
@click.option("--suggestion", "suggestions", multiple=True, help="Revision feedback (repeatable).")
@click.option("--draft", "draft_file", default=None, help="Replacement draft file ('-' for stdin).")
@click.option("--diff-summary", default=None)
@_workspace_option
@json_option
def revise_cmd(workspace: str | None, as_json: bool, candidate_id: str, suggestions: tuple[str, ...],
               draft_file: str | None, diff_summary: str | None) -> None:
    """Record revision suggestions, optionally with a replacement draft."""
    _out(as_json, _evolver(workspace).revise(candidate_id, suggestions=list(suggestions),
                                             replacement_skill_content=_read_draft(draft_file),
                                             diff_summary=diff_summary))


@evolve.command("update-draft")
@click.argument("candidate_id")
@click.option("--draft", "draft_file", required=True, help="Revised draft file ('-' for stdin).")
@click.option("--diff-summary", default=None)
@_workspace_option
@json_option
def update_draft_cmd(workspace: str | None, as_json: bool, candidate_id: str, draft_file: str,
                     diff_summary: str | None) -> None:
    """Supply the revised draft of a candidate waiting for one."""
    _out(as_json, _evolver(workspace).update_draft(candidate_id, _read_draft(draft_file) or "",
                                                   diff_summary=diff_summary))


@evolve.command("merge")
@click.argument("candidate_id")
@click.argument("into_candidate_id")
@click.option("--reason", required=True, help="Why the candidates overlap.")
@click.option("--draft", "draft_file", default=None, help="Replacement draft for the target candidate.")
@click.option("--diff-summary", default=None)
@_workspace_option
@json_option
def merge_cmd(workspace: str | None, as_json: bool, candidate_id: str, into_candidate_id: str, reason: str,
              draft_file: str | None, diff_summary: str | None) -> None:
    """Merge CANDIDATE_ID into INTO_CANDIDATE_ID (the first becomes 'merged')."""
    _out(as_json, _evolver(workspace).merge_candidate(candidate_id, into_candidate_id, reason,
                                                      replacement_skill_content=_read_draft(draft_file),
                                                      diff_summary=diff_summary))


@evolve.command("publish")
@click.argument("candidate_id")
@click.option("--as", "publish_as", default=None, help="Publish under this name (create_skill only).")
@_yes_option
@_workspace_option
@json_option
def publish_cmd(workspace: str | None, as_json: bool, candidate_id: str, publish_as: str | None,
                user_confirmed: bool) -> None:
    """Publish an approved candidate (or a pending one the user confirmed) to ./skills/."""
    _out(as_json, _evolver(workspace, ask=not user_confirmed and not as_json).publish_candidate(candidate_id, publish_as, user_confirmed=user_confirmed))


@evolve.command("rollback")
@click.argument("skill_name")
@_yes_option
@_workspace_option
@json_option
def rollback_cmd(workspace: str | None, as_json: bool, skill_name: str, user_confirmed: bool) -> None:
    """Restore a managed skill's previous version (unpublish a first version)."""
    _out(as_json, _evolver(workspace, ask=not user_confirmed and not as_json).rollback_skill(skill_name, user_confirmed=user_confirmed))


@evolve.command("promote")
@click.argument("skill_name")
@_yes_option
@_workspace_option
@json_option
def promote_cmd(workspace: str | None, as_json: bool, skill_name: str, user_confirmed: bool) -> None:
    """Promote learned-<name>-canary to learned-<name>."""
    _out(as_json, _evolver(workspace, ask=not user_confirmed and not as_json).promote_canary(skill_name, user_confirmed=user_confirmed))


@evolve.command("mode")
@click.argument("mode", required=False, type=click.Choice(["manual", "assisted", "autonomous"]))
@_yes_option
@_workspace_option
@json_option
def mode_cmd(workspace: str | None, as_json: bool, mode: str | None, user_confirmed: bool) -> None:
    """Show the autonomy mode, or set it (with --yes)."""
    ev = _evolver(workspace, ask=mode is not None and not user_confirmed and not as_json)
    _out(as_json, ev.get_mode() if mode is None else ev.set_mode(mode, user_confirmed=user_confirmed))


@evolve.command("repair")
@_workspace_option
@json_option
def repair_cmd(workspace: str | None, as_json: bool) -> None:
    """Rebuild a lost or corrupt registry from the candidate sidecars."""
    _out(as_json, _evolver(workspace).repair_state())


@evolve.command("import")
@_workspace_option
@json_option
def import_cmd(workspace: str | None, as_json: bool) -> None:
    """Adopt an existing ./.skill-evolver/ (legacy candidate files get sidecars and raw drafts)."""
    _out(as_json, _evolver(workspace).import_state())


@evolve.command("dedupe")
@click.option("--target", "target_skill", required=True)
@click.option("--draft", "draft_file", required=True, help="Draft SKILL.md file ('-' for stdin).")
@_workspace_option
@json_option
def dedupe_cmd(workspace: str | None, as_json: bool, target_skill: str, draft_file: str) -> None:
    """Advise patch, merge or create for a draft (patch > merge > create)."""
    _out(as_json, _evolver(workspace).suggest_dedupe(target_skill, _read_draft(draft_file) or ""))


@evolve.command("run")
@click.argument("text", nargs=-1, required=True)
@_workspace_option
@json_option
@_yes_option
def run_cmd(workspace: str | None, as_json: bool, text: tuple[str, ...], user_confirmed: bool) -> None:
    """Run a direct command, e.g. 'approve candidate <id>' (anything else lists the commands).

    Approve, publish, rollback, promote and mode changes need --yes (or, at a terminal, the person
    types the name), exactly like the matching subcommands.
    """
    _out(as_json, _evolver(workspace, ask=not user_confirmed and not as_json).run_command(
        " ".join(text), user_confirmed=user_confirmed))


evolve.add_command(run_cmd, "do")


@evolve.command("tool")
@click.option("--params", "raw", default="-", show_default=True, help="Tool parameters as JSON ('-' for stdin).")
def tool_cmd(raw: str) -> None:
    """The skill_manage_managed tool: one JSON parameter object in, one JSON result out."""
    from ...engines.evolver.tool import handle
    from ...kernel.durable import MAX_USER_FILE_BYTES

    def refuse(code: str, message: str) -> click.exceptions.Exit:
        click.echo(json.dumps({"ok": False, "operation": None, "error_code": code, "message": message,
                               "blocking_record": None, "warnings": []}))
        return click.exceptions.Exit(2)

    text = sys.stdin.read(MAX_USER_FILE_BYTES + 1) if raw == "-" else raw
    if len(text) > MAX_USER_FILE_BYTES:
        raise refuse("DRAFT_TOO_LARGE", f"parameters larger than {MAX_USER_FILE_BYTES:,} characters; "
                     "nothing was read further")
    try:
        params = json.loads(text)
    except RecursionError:
        raise refuse("MISSING_FIELD", "parameters are JSON nested too deeply") from None
    except ValueError as exc:
        raise refuse("MISSING_FIELD", f"parameters are not valid JSON ({exc})") from None
    result = handle(get_app().manager, params)
    click.echo(_json_text(result, indent=2))
    if not result.get("ok"):
        from ...engines.evolver.errors import EXIT_CODES

        raise click.exceptions.Exit(EXIT_CODES.get(str(result.get("error_code")), 1))
