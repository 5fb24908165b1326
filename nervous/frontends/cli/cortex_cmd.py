"""``nervous perceive``, ``nervous report`` and ``nervous cortex ...``: the skill cortex from a shell."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from .app import emit, get_app, json_option, table, terminal_safe

_OUTCOMES = ("success", "task_mismatch", "runtime_error", "auth_error", "dependency_missing", "api_error")


def _cortex() -> Any:
    from ...engines.cortex import Cortex

    return Cortex(get_app().manager)


@click.command("perceive")
@click.argument("task")
@json_option
def perceive(task: str, as_json: bool) -> None:
    """Route TASK to a learned region (hit) or answer miss (search the registries)."""
    from ..launch import perceive as perceive_task  # also what ``perceive TASK --json`` runs without click

    result = perceive_task(get_app(), task)
    data = result.to_json()

    def human() -> None:
        if not result.hit:
            where = f" (region {result.region} has no eligible candidate)" if result.region else ""
            click.echo(f"miss{where}: search the registries"
                       + (f" for: {' '.join(result.keywords)}" if result.keywords else ""))
            return
        click.echo(terminal_safe(f"hit: {result.region} (score {result.score:.3f})"))
        rows = [[c.slug, c.source, c.version or "", f"{c.effective_weight:.3f}", f"{c.weight:.3f}",
                 f"{c.successes}/{c.failures}", "yes" if c.reflex else ""] for c in result.candidates]
        click.echo(table(rows, ["candidate", "source", "version", "effective", "weight", "ok/fail", "reflex"]))
        click.echo(f"reflex fast path: {'yes' if result.reflex else 'no'} — " + "; ".join(result.reflex_reasons))
        for lesson in result.lessons:
            click.echo(terminal_safe(f"lesson: {lesson.get('type')} {lesson.get('key') or lesson.get('slug')} "
                                     f"(confidence {lesson.get('confidence')})"))

    emit(as_json, data, human)


@click.command("report")
@click.argument("slug")
@click.option("--region", required=True, help="The region (kind of task) the skill was used for.")
@click.option("--outcome", required=True, type=click.Choice(_OUTCOMES), help="The final outcome of the attempt.")
@click.option("--task", default=None, help="The task text (only entity-filtered words are kept, never the text).")
@click.option("--version", "version", default=None, help="The skill version used.")
@click.option("--source", default=None, help="The registry the skill came from (default: its install record, "
              "else clawhub).")
@click.option("--detail", default=None, help="Failure detail (sanitised, at most 120 characters kept).")
@click.option("--fingerprint", default=None, help="The fingerprint of the files used (reflexes need it).")
@click.option("--tag", "tags", multiple=True, help="A side-effect tag of those files (repeat; reflexes need them).")
@click.option("--scan-decision", type=click.Choice(["allow", "review", "refuse"]), default=None,
              help="The scan decision for those files (a reflex needs allow).")
@click.option("--missing-dep", "deps_missing", multiple=True, help="A missing program (repeat): a dependency lesson.")
@click.option("--env-present", multiple=True, help="An environment variable that was set (repeat): readiness lesson.")
@click.option("--env-missing", multiple=True, help="An environment variable that was missing (repeat).")
@click.option("--misleading", is_flag=True, help="With task_mismatch: the description promised what it cannot do.")
@click.option("--no-lookup", is_flag=True, help="Do not read the install record of a skill nervous installed.")
@json_option
def report(slug: str, region: str, outcome: str, task: str | None, version: str | None, source: str | None,
           detail: str | None, fingerprint: str | None, tags: tuple[str, ...], scan_decision: str | None,
           deps_missing: tuple[str, ...], env_present: tuple[str, ...], env_missing: tuple[str, ...],
           misleading: bool, no_lookup: bool, as_json: bool) -> None:
    """Record the outcome of using SLUG and print the updated candidate.

    For a skill nervous installed, the version, registry, fingerprint, side-effect tags and scan
    decision come from its install record and its files; options override them.
    """
    from ...errors import UsageError

    if misleading and outcome != "task_mismatch":
        raise UsageError("--misleading goes with --outcome task_mismatch")
    found: dict[str, Any] = {}
    if not no_lookup:
        from ...engines.cortex.installed import facts

        found = facts(get_app().manager, slug) or {}
    given = {"source": source, "version": version, "fingerprint": fingerprint, "tags": list(tags) or None,
             "scan_decision": scan_decision}
    kwargs = {k: v for k, v in found.items() if k != "warnings"} | {k: v for k, v in given.items() if v is not None}
    kwargs.setdefault("source", "clawhub")
    result = _cortex().record_outcome(region, slug, outcome, task=task, detail=detail, deps_missing=deps_missing,
                                      env_present=env_present, env_missing=env_missing,
                                      description_misleading=misleading, **kwargs)

    def human() -> None:
        click.echo(f"{result.slug} in {result.region}: {result.outcome}; weight {result.weight:.4f}, "
                   f"effective {result.effective_weight:.4f}, reflex {'on' if result.reflex else 'off'} "
                   f"({result.successes} ok / {result.failures} failed)")
        if result.signals_added:
            click.echo(f"signals learned: {', '.join(result.signals_added)}")
        if result.retention_suggested:
            click.echo("suggestion: keep this skill installed (it has proven itself)")
        for event in result.lesson_events:
            click.echo(f"lesson: {event}")

    emit(as_json, {"candidate": result.to_json(), "install_record": bool(found),
                   "warnings": list(found.get("warnings", [])) + list(result.warnings)}, human)


@click.group("cortex")
def cortex() -> None:
    """Inspect and manage the skill cortex memory."""


@cortex.command("show")
@json_option
def show(as_json: bool) -> None:
    """Regions, candidates (with effective weights), signals and lessons."""
    data = _cortex().show()

    def human() -> None:
        if not data["regions"]:
            click.echo("the cortex is empty")
        for name, region in sorted(data["regions"].items()):
            signals = ", ".join(str(x) for x in region["signals"]) or "-"
            click.echo(terminal_safe(f"{name}  (last used {region['last_used']}; signals: {signals})"))
            rows = [[c["slug"], c["source"], c["version"] or "", f"{c['effective_weight']:.3f}",
                     f"{c['weight']:.3f}", f"{c['successes']}/{c['failures']}", "yes" if c["reflex"] else "",
                     "yes" if c["blacklisted"] else ""] for c in region["candidates"]]
            click.echo(table(rows, ["candidate", "source", "version", "effective", "weight", "ok/fail", "reflex",
                                    "blacklisted"]))
        for lesson in data["lessons"]:
            click.echo(terminal_safe(f"lesson: {lesson.get('type')} {lesson.get('region') or ''} "
                                     f"{lesson.get('key') or lesson.get('slug') or ''} "
                                     f"confidence {lesson.get('confidence')}"))

    emit(as_json, data, human)


@cortex.command("stats")
@json_option
def stats(as_json: bool) -> None:
    """Counts, limits and the v1 stats counters."""
    data = _cortex().stats()
    lines = [f"{k}: {data[k]}" for k in ("regions", "candidates", "reflex_candidates", "patterns", "signals",
                                          "lessons", "blacklist", "store")]
    lines += [f"stats.{k}: {v}" for k, v in data["stats"].items()]
    emit(as_json, data, "\n".join(lines))


@cortex.command("prune")
@json_option
def prune(as_json: bool) -> None:
    """Apply the pruning rules now (they also run after every change)."""
    data = _cortex().prune()
    emit(as_json, data, "\n".join(f"removed {r}" for r in data["removed"]) or "nothing to prune")


@cortex.group("blacklist")
def blacklist() -> None:
    """Never rank or install these skills."""


@blacklist.command("add")
@click.argument("identifier")
@click.argument("reason", required=False)
@json_option
def blacklist_add(identifier: str, reason: str | None, as_json: bool) -> None:
    """Blacklist IDENTIFIER (slug, @owner/slug or owner/repo[/path])."""
    data = _cortex().blacklist_add(identifier, reason)
    emit(as_json, data, f"blacklisted {identifier}" if data["added"] else f"{identifier} was already blacklisted")


@blacklist.command("remove")
@click.argument("identifier")
@json_option
def blacklist_remove(identifier: str, as_json: bool) -> None:
    """Remove IDENTIFIER from the blacklist."""
    data = _cortex().blacklist_remove(identifier)
    emit(as_json, data, f"removed {identifier} from the blacklist")


@blacklist.command("list")
@json_option
def blacklist_list(as_json: bool) -> None:
    """Blacklisted identifiers with their provenance."""
    data = _cortex().blacklist_list()
    rows = [[e["identifier"], e.get("source", ""), e.get("reason", ""), e.get("added_at", "")]
            for e in data["blacklist"]]
    emit(as_json, data, table(rows, ["identifier", "source", "reason", "added"]) if rows else "the blacklist is empty")


@cortex.group("quarantine")
def quarantine() -> None:
    """Malformed memory entries set aside: list them, or clear them once looked at."""


@quarantine.command("list")
@json_option
def quarantine_list(as_json: bool) -> None:
    """Every quarantined entry: where it was, why, and when."""
    from ...engines.goals.quarantine import plain

    data = _cortex().quarantine_list()
    rows = [[plain(e.get("path", "?")), plain(e.get("reason", "?")),
             "next change" if e.get("pending") else plain(e.get("at", "")),
             plain(json.dumps(e.get("value"), ensure_ascii=False), 60)] for e in data["quarantine"]]
    emit(as_json, data, table(rows, ["path", "reason", "since", "value"]) if rows else "nothing is quarantined")


@quarantine.command("clear")
@click.option("--yes", is_flag=True, help="Confirm: the entries are discarded for good.")
@json_option
def quarantine_clear(yes: bool, as_json: bool) -> None:
    """Discard every quarantined entry (export the memory first to keep a copy)."""
    if not yes:
        raise click.UsageError("clearing discards the quarantined entries for good; add --yes to confirm "
                               "(nervous cortex export FILE keeps a copy)")
    data = _cortex().quarantine_clear()
    emit(as_json, data, f"cleared {data['cleared']} quarantined entr{'y' if data['cleared'] == 1 else 'ies'}")


@cortex.command("forget")
@click.argument("region")
@json_option
def forget(region: str, as_json: bool) -> None:
    """Remove REGION with its candidates, signals, lessons and counters."""
    data = _cortex().forget(region)
    emit(as_json, data, f"forgot {region} ({data['candidates_removed']} candidates)")


@cortex.command("import")
@click.argument("path", required=False, type=click.Path(dir_okay=False, path_type=Path))
@json_option
def import_cmd(path: Path | None, as_json: bool) -> None:
    """Import an original skill-cortex cortex.json (default ~/.openclaw/skill-cortex/cortex.json)."""
    from ...engines.cortex.transfer import DEFAULT_ORIGINAL_PATH

    source = path or Path(DEFAULT_ORIGINAL_PATH).expanduser()
    data = _cortex().import_v1(source)
    emit(as_json, {"path": str(source), **data}, f"imported {source} ({data['mode']})")


@cortex.command("export")
@click.argument("path", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["native", "skill-cortex-v1"]), default="native",
              show_default=True, help="skill-cortex-v1 writes exactly the original schema.")
@click.option("--force", is_flag=True, help="Replace PATH if it is an existing regular file.")
@json_option
def export(path: Path | None, fmt: str, force: bool, as_json: bool) -> None:
    """Export the memory to PATH (or print it). An existing PATH is replaced only with --force."""
    from ...engines.cortex.transfer import dumps
    from ...kernel.durable import write_user_file

    data = _cortex().export(fmt)
    text = dumps(data["document"])
    if path is None:
        if as_json:
            emit(True, data)
        else:
            click.echo(text, nl=False)
        return
    write_user_file(path, text.encode("utf-8"), force=force)
    emit(as_json, {"path": str(path), "format": fmt, "warnings": data["warnings"]}, f"exported to {path}")
