"""``nervous search | inspect | install | uninstall | list``: registries and the skills folder."""

from __future__ import annotations

from typing import Any

import click

from .app import emit, get_app, json_option, table, terminal_safe


def _hit_json(hit: Any) -> dict[str, Any]:
    from ...kernel.serialize import to_json

    data: dict[str, Any] = to_json(hit)
    data["ref"] = str(hit.ref)
    return data


@click.command()
@click.argument("query")
@click.option("--registry", "registries", multiple=True, metavar="NAME",
              help="Query only this registry (repeatable); default: [registries] use.")
@click.option("--limit", type=click.IntRange(1, 100), default=10, show_default=True, help="Hits per registry.")
@json_option
def search(query: str, registries: tuple[str, ...], limit: int, as_json: bool) -> None:
    """Search the configured skill registries concurrently."""
    from ...engines.search import search as fan_out
    from ...kernel.serialize import to_json

    app = get_app()
    result = fan_out(app.manager, query, registries=registries or None, limit=limit)
    warnings = [f"{s.registry}: {s.status}: {s.message}" for s in result.registries if s.status != "ok"]
    data: dict[str, Any] = {"query": query, "hits": [_hit_json(h) for h in result.hits],
            "registries": [to_json(s) for s in result.registries]}

    failed = not result.ok and bool(result.registries)

    def human() -> None:
        if failed:
            click.echo("No registry answered (see the warnings above); check the network or the registry "
                       "configuration (nervous config show).")
            return
        if not result.hits:
            click.echo("No skills found.")
            return
        rows = [[h.registry, h.ref.qualified, h.version or "-", _num(h.downloads), _num(h.stars), h.scan.status,
                 ("" if h.reviewed else "[unreviewed] ") + h.summary] for h in result.hits]
        click.echo(table(rows, ["REGISTRY", "SKILL", "VERSION", "DOWNLOADS", "STARS", "SCAN", "SUMMARY"]))

    if failed:
        data["error"] = {"code": "all_registries_failed", "message": "no registry answered"}
    # one answer either way; exit 3 (unavailable) when no registry answered
    emit(as_json, data, human, warnings, exit_code=3 if failed else 0)


def _num(value: int | None) -> str:
    return "-" if value is None else str(value)


@click.command()
@click.argument("ref")
@click.option("--version", "version", metavar="V", help="A specific version (default: latest).")
@click.option("--files", "show_files", is_flag=True, help="List the version's files with their SHA-256.")
@json_option
def inspect(ref: str, version: str | None, show_files: bool, as_json: bool) -> None:
    """Show a skill's metadata, versions, registry scan and (with --files) files, without installing."""
    from ...engines.install.installer import Installer
    from ...errors import NotFound
    from ...kernel.records import SkillRef
    from ...kernel.serialize import to_json

    app = get_app()
    parsed = SkillRef.parse(ref)
    installer = Installer(app.manager)
    found: tuple[Any, Any] | None = None
    last: Exception | None = None
    for candidate in installer.registry_for(parsed):
        try:
            found = (candidate, candidate.resolve(parsed))
            break
        except NotFound as exc:
            last = exc
    if found is None:
        raise last or NotFound(f"{ref}: no configured registry knows this skill")
    registry, meta = found
    versions = registry.versions(meta.ref)
    wanted = version or parsed.revision or meta.latest_version
    detail = registry.version(meta.ref, wanted) if wanted else None
    data: dict[str, Any] = {"registry": registry.name, "skill": to_json(meta), "ref": str(meta.ref),
                            "versions": [to_json(v) for v in versions],
                            "version": to_json(detail) if detail else None}
    if not show_files and data["version"]:
        data["version"].pop("files", None)

    def human() -> None:
        def say(line: str) -> None:  # every field here is the registry's text: escaped for the terminal
            click.echo(terminal_safe(line))

        say(f"{meta.ref.qualified}  {meta.display_name}  ({registry.name})")
        if meta.summary:
            say(f"  {meta.summary}")
        say(f"  latest: {meta.latest_version or '-'}   moderation: {meta.moderation}   "
            f"downloads: {_num(meta.downloads)}   stars: {_num(meta.stars)}")
        if detail is not None:
            say(f"  version {detail.version}: registry scan {detail.scan.status}"
                + (f" ({detail.scan.reason})" if detail.scan.reason else ""))
            if detail.fingerprint:
                say(f"  fingerprint: {detail.fingerprint}")
        if versions:
            say("  versions: " + ", ".join(v.version for v in versions[:20]))
        if show_files and detail is not None:
            click.echo(table([[f.path, str(f.size), f.sha256 or "-"] for f in detail.files],
                             ["PATH", "SIZE", "SHA256"]))

    emit(as_json, data, human)


class _Progress:
    """One self-rewriting progress line on stderr (people only)."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.shown = False

    def __call__(self, done: int, total: int | None) -> None:
        text = f"{done / 1024:.0f} KiB" if total is None else f"{done * 100 // max(total, 1)}% of {total / 1024:.0f} KiB"
        click.echo(f"\r{self.label}: {text}   ", err=True, nl=False)
        self.shown = True

    def finish(self) -> None:
        if self.shown:
            click.echo("", err=True)


@click.command()
@click.argument("ref")
@click.option("--version", "version", metavar="V", help="Install this version (default: latest).")
@click.option("--yes", "-y", is_flag=True, help="Do not ask: the user approved this install (an agent relays it).")
@click.option("--confirm-suspicious", is_flag=True,
              help="The user also confirmed a skill its registry flags suspicious or an unverified one.")
@click.option("--accept-risk", "accept_risk", multiple=True, metavar="RULE",
              help="Override a refusal by naming each rule id you accept (a person at a terminal only; "
                   "written to the audit log).")
@click.option("--force", is_flag=True, help="Replace an existing install of nervous's own (never someone else's).")
@json_option
def install(ref: str, version: str | None, yes: bool, confirm_suspicious: bool, accept_risk: tuple[str, ...],
            force: bool, as_json: bool) -> None:
    """Install a skill into the skills directory through the install gate."""
    _install(ref, version, yes=yes, confirm=confirm_suspicious, accept_risk=accept_risk, force=force,
             as_json=as_json, update=False)


@click.command()
@click.argument("ref")
@click.option("--yes", "-y", is_flag=True, help="Do not ask: the user approved this update (an agent relays it).")
@click.option("--confirm-suspicious", is_flag=True,
              help="The user also confirmed a skill its registry flags suspicious or an unverified one.")
@click.option("--accept-risk", "accept_risk", multiple=True, metavar="RULE",
              help="Override a refusal by naming each rule id you accept (a person at a terminal only).")
@click.option("--force", is_flag=True,
              help="Replace the folder even if it changed since it was installed (local edits and added files "
                   "are lost); without it such an update is refused (exit 1, code modified).")
@json_option
def update(ref: str, yes: bool, confirm_suspicious: bool, accept_risk: tuple[str, ...], force: bool,
           as_json: bool) -> None:
    """Replace an installed skill of nervous's own with its latest version, through the install gate.

    A folder changed since it was installed (what ``nervous verify`` reports) is never replaced
    without --force.
    """
    _install(ref, None, yes=yes, confirm=confirm_suspicious, accept_risk=accept_risk, force=True,
             as_json=as_json, update=True, keep_local_changes=not force)


def _install(ref: str, version: str | None, *, yes: bool, confirm: bool, accept_risk: tuple[str, ...],
             force: bool, as_json: bool, update: bool, keep_local_changes: bool = False) -> None:
    from ...engines.install import gate
    from ...engines.install.installer import Installer
    from ...errors import NotFound, Refused
    from ...kernel.serialize import to_json
    from .confirm import ask_person, at_terminal, require_terminal_for

    require_terminal_for(accept_risk)
    app = get_app()
    target = app.manager.install_target()
    if update:
        installed = [r for r in target.installed() if r.slug == ref or str(r.ref) == ref]
        if not installed:
            raise NotFound(f"{ref} is not a skill nervous installed; install it first", code="not_installed")
        # local edits and added files are never thrown away unasked: refused before any download, and again
        # by the target under its lock just before the swap (the folder may change meanwhile)
        check_unchanged = getattr(target, "check_unchanged", None)
        if keep_local_changes and callable(check_unchanged):
            check_unchanged(installed[0].slug)
    installer = Installer(app.manager)
    plan = installer.plan(ref, version)
    label = f"{plan.ref.qualified}@{plan.version.version} from {plan.registry}"
    interactive = at_terminal() and not as_json
    if not yes and not interactive:
        raise Refused(f"installing {label} needs confirmation: rerun with --yes (no terminal to ask; "
                      "silence is never approval)", code="confirmation_required",
                      details={"warnings": list(plan.warnings)})
    progress = None if as_json else _Progress(f"downloading {plan.ref.qualified}@{plan.version.version}")
    try:
        bundle, verdict = installer.fetch(plan, progress=progress)
    finally:
        if progress is not None:
            progress.finish()
    warnings = list(plan.warnings)
    retry = f"nervous {'update' if update else 'install'} {ref}" + (f" --version {version}" if version else "")
    mode = gate.approval_mode(app.manager)
    ask = interactive and (not yes or bool(accept_risk) or (mode == "person" and verdict.needs_person))
    if ask and verdict.decision == "refuse" and not accept_risk:
        ask = False  # the gate refuses and says how a person overrides it
    if ask:
        for w in warnings:
            click.echo(click.style(f"warning: {w}", fg="yellow"), err=True)
        warnings = []
        click.echo(_verdict_line(verdict), err=True)
        if verdict.decision == "allow" and not verdict.needs_confirmation and not accept_risk:
            if not click.confirm(f"Install {label}?", default=False, err=True):
                raise Refused(f"installation of {label} cancelled", code="cancelled")
            approval = gate.Approval.person("terminal")
        else:  # riskier: the person types the name
            what = ("Accept the risk of " + ", ".join(accept_risk) + " and install" if verdict.decision == "refuse"
                    else "Install")
            approval = ask_person(f"{what} {label}?", plan.ref.name, accept_risk=accept_risk)
    elif yes:
        approval = gate.Approval("agent", "yes-flag", confirmed=confirm)
    else:  # a refusal at a terminal without --accept-risk: the gate says how a person overrides it
        approval = gate.Approval("none", "none")
    guard = update and hasattr(target, "keep_local_changes")
    if guard:
        target.keep_local_changes = keep_local_changes
    try:
        record = installer.install(plan, approval=approval, force=force, retry=retry, fetched=(bundle, verdict))
    finally:
        if guard:
            target.keep_local_changes = False
    # what the target had to say (an interrupted operation finished, a previous folder it could not remove)
    warnings += [w for w in getattr(target, "warnings", []) if isinstance(w, str) and w not in warnings]
    data = {"installed": to_json(record), "ref": str(plan.ref), "registry": plan.registry,
            "version": plan.version.version, "path": record.path, "registry_scan": plan.version.scan.status,
            "verified": verdict.verified, "decision": verdict.decision, "approved_by": approval.by}
    note = "" if verdict.verified else " [UNVERIFIED: the registry publishes no digests]"
    emit(as_json, data, f"{'Updated' if update else 'Installed'} {label} -> {record.path}{note}", warnings)


def _verdict_line(v: Any) -> str:
    """The gate's verdict in one line for the person being asked."""
    from ...engines.scan.engine import defang

    parts = [f"review: {v.decision} (risk {v.risk})"]
    if v.rule_ids:
        parts.append("rules: " + ", ".join(v.rule_ids))
    if v.suspicious:
        parts.append("flagged suspicious by its registry")
    if not v.verified:
        parts.append("UNVERIFIED: no published digests")
    return defang("; ".join(parts))


@click.command()
@click.argument("ref")
@json_option
def uninstall(ref: str, as_json: bool) -> None:
    """Remove a skill nervous installed (unmanaged skills are refused and left untouched)."""
    from ...engines.install.installer import Installer
    from ...kernel.serialize import to_json

    app = get_app()
    record = Installer(app.manager).uninstall(ref)
    # what the target had to say (a removed folder it could not delete whole)
    warnings = [w for w in getattr(app.manager.install_target(), "warnings", []) if isinstance(w, str)]
    emit(as_json, {"uninstalled": to_json(record), "path": record.path, "warnings": warnings},
         f"Uninstalled {record.slug} ({record.path})")


def _on_disk(target: Any, records: list[Any]) -> list[dict[str, Any]]:
    """Each managed install against what the folder holds now (tamper evidence)."""
    from pathlib import Path

    on_disk = getattr(target, "on_disk", None)  # optional: targets that can compare the folder with the record
    out = []
    for r in records:
        now: dict[str, Any] = on_disk(r) if callable(on_disk) else {
            "present": Path(r.path).exists(), "modified": None, "version": None}
        out.append({"name": r.slug, "managed": True, "registry": r.registry, "ref": str(r.ref),
                    "version": r.version, "path": r.path, "present": now["present"],
                    "modified": now["modified"], "changes": list(now.get("changes", [])),
                    "verified": now.get("verified", True),
                    "version_on_disk": now["version"] if now["version"] != r.version else None,
                    "installed_at": r.installed_at})
    return out


def _status(s: dict[str, Any]) -> str:
    if not s["managed"]:
        return f"unmanaged ({s['registry']} CLI)" if s["registry"] else "unmanaged"
    if not s["present"]:
        return "managed (missing)"
    flag = "" if s.get("verified", True) else ", unverified"
    if s["version_on_disk"]:
        return f"managed (now {s['version_on_disk']}, changed outside nervous{flag})"
    return f"managed (modified{flag})" if s["modified"] else f"managed{' (unverified)' if flag else ''}"


@click.command(name="list")
@json_option
def list_cmd(as_json: bool) -> None:
    """List installed skills: ours (with what changed since install), and unmanaged ones."""
    from pathlib import Path

    target = get_app().manager.install_target()
    skills = _on_disk(target, target.installed())
    info = getattr(target, "unmanaged_info", None)  # optional: what another tool (the clawhub CLI) recorded
    for n in target.unmanaged():
        other = info(n) if callable(info) else {}
        skills.append({"name": n, "managed": False, "registry": other.get("registry"), "ref": None,
                       "version": other.get("version"), "path": str(Path(getattr(target, "skills_dir", ".")) / n),
                       "present": True, "modified": None, "changes": [], "verified": None,
                       "version_on_disk": None, "installed_at": None})
    data = {"skills": skills, "skills_dir": str(getattr(target, "skills_dir", ""))}

    def human() -> None:
        if not skills:
            click.echo("No installed skills.")
            return
        rows = [[s["name"], s["version"] or "-", s["registry"] or "-", _status(s)] for s in skills]
        click.echo(table(rows, ["SKILL", "VERSION", "REGISTRY", "STATUS"]))
        for s in skills:
            for change in s["changes"]:
                click.echo(f"  {s['name']}: {_safe(change)}")

    emit(as_json, data, human, list(getattr(target, "warnings", [])))


@click.command(name="verify")
@click.argument("names", nargs=-1)
@json_option
def verify(names: tuple[str, ...], as_json: bool) -> None:
    """Compare every file of installed skills (or NAMES) with what was installed; exit 1 if any changed."""
    from ...errors import NotFound

    target = get_app().manager.install_target()
    records = target.installed()
    if names:
        unknown = [n for n in names if not any(n in (r.slug, str(r.ref)) for r in records)]
        if unknown:
            raise NotFound(f"not installed by nervous: {', '.join(unknown)}", code="not_installed")
        records = [r for r in records if r.slug in names or str(r.ref) in names]
    skills = _on_disk(target, records)
    changed = [s for s in skills if s["modified"] or not s["present"]]
    data = {"skills": skills, "changed": [s["name"] for s in changed]}

    def human() -> None:
        if not skills:
            click.echo("No installed skills.")
            return
        for s in skills:
            state = "missing" if not s["present"] else "CHANGED" if s["modified"] else "unchanged"
            click.echo(f"{s['name']}: {state}" + ("" if s.get("verified", True) else " (installed unverified)"))
            for change in s["changes"]:
                click.echo(f"  {_safe(change)}")

    emit(as_json, data, human, list(getattr(target, "warnings", [])), exit_code=1 if changed else 0)


def _safe(text: str) -> str:
    """Paths from a folder someone else may control: no control characters to the terminal."""
    return "".join(c if c.isprintable() else "?" for c in text)
