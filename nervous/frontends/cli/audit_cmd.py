"""``nervous audit``: the recent lifecycle events recorded by the audit plugin."""

from __future__ import annotations

import json

import click

from .app import emit, get_app, json_option, table


@click.command()
@json_option
@click.option("--limit", type=click.IntRange(1, 10_000), default=20, show_default=True,
              help="How many of the most recent events.")
@click.option("--kind", default=None, help="Only events of this kind (e.g. install, acquire.outcome).")
def audit(as_json: bool, limit: int, kind: str | None) -> None:
    """Show the audit log (oldest first)."""
    store = get_app().manager.storage()
    entries = store.read_log("audit")
    if kind:
        entries = [e for e in entries if e.get("kind") == kind]
    entries = entries[-limit:]

    def human() -> None:
        if not entries:
            click.echo("no audit events yet")
            return
        click.echo(table([[e.get("at", ""), e.get("kind", ""), e.get("source", ""),
                           json.dumps(e.get("data", {}), ensure_ascii=False, sort_keys=True)] for e in entries],
                         ["at", "kind", "source", "data"]))

    emit(as_json, {"events": entries}, human)
