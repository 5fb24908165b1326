"""``nervous integrations``: install host integrations (OpenClaw skills, the pi package) into a workspace."""

from __future__ import annotations

import click

from .app import emit, json_option, table


@click.group("integrations")
def integrations() -> None:
    """Install host integrations (OpenClaw skills, the pi package) that call the nervous CLI."""


@integrations.command("install")
@click.argument("host", type=click.Choice(["openclaw", "pi"]), metavar="HOST")
@click.option("--workspace", type=click.Path(file_okay=False), default=".", show_default=True,
              help="The agent workspace: OpenClaw skills go to <workspace>/skills/<name>/SKILL.md, the pi "
              "package to <workspace>/.pi/extensions/nervous/.")
@click.option("--force", is_flag=True, help="Replace a same-named skill or extension nervous did not install.")
@json_option
def install(host: str, workspace: str, force: bool, as_json: bool) -> None:
    """Copy HOST's files (openclaw or pi) into a workspace (re-running updates nervous's own copies)."""
    from ...engines.install import gate
    from ..integrations import install as do_install
    from .app import get_app
    from .confirm import ask_person, at_terminal

    pm = get_app().manager
    approval = gate.Approval("agent", "command")
    if at_terminal() and not as_json and gate.approval_mode(pm) == "person":
        approval = ask_person(f"Install the {host} integration skills into {workspace}?", host)
    result = do_install(host, workspace, force=force, pm=pm, approval=approval)

    def human() -> None:
        click.echo(table([[s["name"], s["action"], s["path"]] for s in result["skills"]],
                         ["FILE" if host == "pi" else "SKILL", "ACTION", "PATH"]))
        click.echo("Start a new agent session (in pi: /reload) so they are loaded.")

    emit(as_json, result, human)
