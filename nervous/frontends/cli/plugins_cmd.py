"""``nervous plugins``: what is loaded, from where, and which hooks each implements."""

from __future__ import annotations

import click

from .app import emit, get_app, json_option, table


@click.command()
@json_option
@click.option("--hook", "hook", default=None, help="Only plugins implementing this hook.")
def plugins(as_json: bool, hook: str | None) -> None:
    """List plugins: name, distribution and version, source, status, providers by kind and hooks."""
    pm = get_app().manager
    if hook is not None and hook not in pm.hook_names():
        raise click.UsageError(f"unknown hook {hook!r}; hooks: {', '.join(pm.hook_names())}")
    problems: list[str] = []
    infos = [p for p in pm.plugins(problems=problems) if hook is None or hook in p.hooks]
    rows = [
        {
            "name": p.name,
            "distribution": p.distribution,
            "version": p.version,
            "source": p.source,
            "status": p.status,
            "reason": p.reason,
            "module": p.module,
            "hooks": p.hooks,
            "providers": p.providers,
        }
        for p in infos
    ]

    def human() -> None:
        click.echo(table([[r["name"], f"{r['distribution'] or '-'} {r['version'] or ''}".strip(), r["source"],
                           r["status"] if not r["reason"] else f"{r['status']}: {r['reason']}",
                           "; ".join(f"{kind}: {', '.join(names)}" for kind, names in r["providers"].items())
                           or ", ".join(h.removeprefix("nervous_") for h in r["hooks"])] for r in rows],
                         ["name", "distribution", "source", "status", "providers (or hooks)"]))

    emit(as_json, {"plugins": rows}, human, problems)
