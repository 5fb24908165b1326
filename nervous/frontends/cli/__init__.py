"""The ``nervous`` command line. Commands load lazily so start-up stays fast.

Every command a host agent calls takes ``--json`` and prints one JSON object:
``{"ok": true, "warnings": [...], ...}`` on success and
``{"ok": false, "error": {"code", "message"}, "warnings": [...]}`` on failure.
Exit codes: see :mod:`nervous.errors` and docs/cli.md.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

import click

from .app import App, run_main, terminal_safe

#: command name -> "module:attribute" (imported only when the command runs)
COMMANDS: dict[str, str] = {
    "plugins": "nervous.frontends.cli.plugins_cmd:plugins",
    "config": "nervous.frontends.cli.config_cmd:config",
    "storage": "nervous.frontends.cli.storage_cmd:storage",
    "search": "nervous.frontends.cli.registry_cmd:search",
    "inspect": "nervous.frontends.cli.registry_cmd:inspect",
    "install": "nervous.frontends.cli.registry_cmd:install",
    "update": "nervous.frontends.cli.registry_cmd:update",
    "uninstall": "nervous.frontends.cli.registry_cmd:uninstall",
    "verify": "nervous.frontends.cli.registry_cmd:verify",
    "list": "nervous.frontends.cli.registry_cmd:list_cmd",
    "scan": "nervous.frontends.cli.scan_cmd:scan",
    "perceive": "nervous.frontends.cli.cortex_cmd:perceive",
    "report": "nervous.frontends.cli.cortex_cmd:report",
    "cortex": "nervous.frontends.cli.cortex_cmd:cortex",
    "goal": "nervous.frontends.cli.goal_cmd:goal",
    "evolve": "nervous.frontends.cli.evolve_cmd:evolve",
    "acquire": "nervous.frontends.cli.acquire_cmd:acquire",
    "approve": "nervous.frontends.cli.acquire_cmd:approve",
    "cancel": "nervous.frontends.cli.acquire_cmd:cancel",
    "done": "nervous.frontends.cli.acquire_cmd:done",
    "mcp": "nervous.frontends.cli.mcp_cmd:mcp",
    "integrations": "nervous.frontends.cli.integrations_cmd:integrations",
    "audit": "nervous.frontends.cli.audit_cmd:audit",
    "registry": "nervous.frontends.cli.registry_server_cmd:registry",
    "publish": "nervous.frontends.cli.registry_server_cmd:publish",
}

_HELP = {
    "plugins": "List plugins, their status and hooks.",
    "config": "Show, locate and validate configuration.",
    "storage": "Inspect, check and migrate the storage backend.",
    "search": "Search the configured skill registries.",
    "inspect": "Show a skill's metadata, versions and files.",
    "install": "Install a skill into the skills directory.",
    "update": "Update an installed skill to its latest version.",
    "uninstall": "Remove a skill nervous installed.",
    "verify": "Compare installed skills with what was installed.",
    "list": "List installed skills (ours and unmanaged).",
    "scan": "Classify a skill's side effects and decide allow/review/refuse.",
    "perceive": "Route a task to a learned region of the skill cortex.",
    "report": "Record the outcome of using a skill.",
    "cortex": "Inspect and manage the skill cortex memory.",
    "goal": "Durable goals: analyze, plan, verify, drain.",
    "evolve": "Evolve reusable workflows into reviewed skills.",
    "acquire": "Acquire a skill for a task: perceive, search, vet, install, plan.",
    "approve": "Approve a pending acquisition step with its token.",
    "cancel": "Cancel a pending acquisition with its token.",
    "done": "Report the outcome of an acquired skill and clean up.",
    "mcp": "Run the Model Context Protocol server over stdio.",
    "integrations": "Install host integrations (OpenClaw skills, the pi package).",
    "audit": "Show the audit log of lifecycle events.",
    "registry": "Run and administer a self-hosted ClawHub-compatible registry.",
    "publish": "Publish a skill folder to a ClawHub-protocol registry.",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        target = COMMANDS.get(name)
        if target is None:
            return None
        module, _, attr = target.partition(":")
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise

            @click.command(name=name, help=_HELP.get(name, ""))
            def unavailable() -> None:
                raise click.UsageError(f"command {name!r} is not available in this build")

            return unavailable
        cmd = getattr(mod, attr)
        assert isinstance(cmd, click.Command)
        return cmd

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(n, _HELP.get(n, "")) for n in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def _version_callback(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from ... import __version__

    app = App.from_params(ctx.params)
    try:
        active = [p.name for p in app.manager.plugins(providers=False) if p.status == "active"]
        click.echo(f"nervous {__version__}")
        click.echo(f"active plugins: {', '.join(active) or 'none'}")
        for w in app.all_warnings():  # a plugin that failed to load, as every command says
            click.echo(click.style(f"warning: {terminal_safe(w)}", fg="yellow"), err=True)
    except Exception as exc:  # a broken config must not hide the version
        click.echo(f"nervous {__version__}")
        click.echo(f"plugins: unavailable ({exc})")
    ctx.exit(0)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-p", "plugin_opts", multiple=True, metavar="no:NAME",
              help="Block a plugin by entry-point or distribution name (repeatable).", is_eager=True)
@click.option("--disable-plugin-autoload", is_flag=True, is_eager=True,
              help="Load only built-in plugins (also NERVOUS_DISABLE_PLUGIN_AUTOLOAD=1).")
@click.option("--config", "config_files", multiple=True, type=click.Path(dir_okay=False), is_eager=True,
              help="Extra TOML configuration file (highest file precedence).")
@click.option("-c", "overrides", multiple=True, metavar="SECTION.KEY=VALUE", is_eager=True,
              help="Override one configuration value (TOML syntax).")
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_version_callback,
              help="Show the version and active plugins.")
@click.pass_context
def main(ctx: click.Context, plugin_opts: tuple[str, ...], disable_plugin_autoload: bool,
         config_files: tuple[str, ...], overrides: tuple[str, ...]) -> None:
    """nervous: acquire the skills an agent lacks, safely, and learn from every use."""
    if os.environ.get("NERVOUS_NOW"):
        from ...kernel.clock import now

        now()  # a fixed clock nervous cannot use is refused before any command touches stored state
    ctx.obj = App.from_params(ctx.params)
    ctx.obj.command = ctx.invoked_subcommand
    main.last_app = ctx.obj  # type: ignore[attr-defined]  # lets run_main report warnings on failure


def cli(argv: list[str] | None = None) -> Any:
    return run_main(main, argv if argv is not None else sys.argv[1:])
