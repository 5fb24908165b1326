"""Shared CLI plumbing: the lazily built config and plugin manager, output, and error handling."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from ...errors import EXIT_INTERNAL, EXIT_USAGE, NervousError
from ...kernel.texttable import table as table  # the CLI's table helper, shared with report formats
from ...kernel.texttable import terminal_safe as terminal_safe


class App:
    """Per-invocation state: flags, configuration and plugin manager, built on first use."""

    def __init__(self, blocked: list[str], autoload: bool | None, files: list[str], overrides: list[str]):
        self.blocked = blocked
        self.autoload = autoload
        self.files = files
        self.overrides = overrides
        self._config: Any = None
        self._manager: Any = None
        self.warnings: list[str] = []
        #: the command being run (set by the group), e.g. ``"install"``
        self.command: str | None = None

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> App:
        blocked = []
        for opt in params.get("plugin_opts") or ():
            if not opt.startswith("no:") or len(opt) <= 3:
                raise click.UsageError(f"-p {opt!r}: expected no:NAME")
            blocked.append(opt[3:])
        autoload = False if params.get("disable_plugin_autoload") else None
        return cls(blocked, autoload, list(params.get("config_files") or ()), list(params.get("overrides") or ()))

    @property
    def config(self) -> Any:
        if self._config is None:
            from ...kernel.config import load_config

            self._config = load_config(files=[Path(f) for f in self.files], overrides=self.overrides)
        return self._config

    #: commands that must work with a broken selection (to show and fix it)
    LENIENT = frozenset({"config", "plugins", None})

    @property
    def manager(self) -> Any:
        if self._manager is None:
            from ...kernel.manager import PluginManager

            manager = PluginManager(self.config, blocked=self.blocked, autoload=self.autoload)
            self._manager = manager
            self.warnings.extend(w for w in manager.warnings if w not in self.warnings)
            if self.command not in self.LENIENT:
                # every selected provider is resolved before the command does anything
                manager.check_selection()
                self.warnings.extend(w for w in manager.warnings if w not in self.warnings)
        return self._manager

    def collect_store_warnings(self) -> list[str]:
        """Move what an opened storage backend noticed (an empty database...) into :attr:`warnings`."""
        instances = getattr(self._manager, "_instances", None) or {}
        for (kind, _name), store in list(instances.items()):
            if kind == "storage backend" and hasattr(store, "pop_warnings"):
                try:
                    found = store.pop_warnings()
                except Exception:  # noqa: BLE001  (a warning must never turn success into failure)
                    continue
                self.warnings.extend(w for w in found if w not in self.warnings)
        return self.warnings

    def all_warnings(self) -> list[str]:
        """Warnings for the user: this run's, and the plugin manager's (built now if the command did not).

        A plugin that failed to load is reported on every command, even one that needs no plugin.
        """
        if self._manager is None and self._config is not None:
            try:
                from ...kernel.manager import PluginManager

                self._manager = PluginManager(self.config, blocked=self.blocked, autoload=self.autoload)
            except Exception:  # noqa: BLE001 - reporting must never fail the command
                pass
        self.collect_store_warnings()
        extra = list(self._manager.warnings) if self._manager is not None else []
        return list(dict.fromkeys(self.warnings + extra))


def get_app() -> App:
    ctx = click.get_current_context()
    app = ctx.find_root().obj
    assert isinstance(app, App)
    return app


json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON object (for agents).")


def emit(as_json: bool, data: dict[str, Any], human: Callable[[], None] | str | None = None,
         warnings: list[str] | tuple[str, ...] = (), *, exit_code: int = 0) -> None:
    """Print a command's result: JSON for agents, ``human()`` (or a string) for people.

    A non-zero ``exit_code`` (a check that found problems, a refusal that still has a full
    answer) sets ``"ok": false`` and ends the command with that code after printing.
    """
    app_warnings = list(warnings)
    try:
        app_warnings = get_app().all_warnings() + app_warnings
    except (RuntimeError, AssertionError):
        pass
    if as_json:
        out = {"ok": exit_code == 0, **data,
               "warnings": list(dict.fromkeys(app_warnings + list(data.get("warnings", []))))}
        click.echo(_json_text(out, indent=2))
    else:
        for w in dict.fromkeys(app_warnings + list(data.get("warnings", []))):
            click.echo(click.style(f"warning: {terminal_safe(w)}", fg="yellow"), err=True)
        if callable(human):
            human()
        elif human is not None:
            from ...errors import printable

            click.echo(printable(human))
    if exit_code:
        raise click.exceptions.Exit(exit_code)


def _json_text(value: Any, indent: int | None = None) -> str:
    """JSON for standard output; text that is not valid Unicode (undecodable file names) as escapes."""
    text = json.dumps(value, indent=indent, ensure_ascii=False, default=str)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(value, indent=indent, ensure_ascii=True, default=str)
    return text


def _wants_json(argv: list[str]) -> bool:
    return "--json" in argv or "--format=json" in argv


def run_main(main: click.Group, argv: list[str]) -> int:
    """Run the CLI with nervous's error contract: no tracebacks for expected failures."""
    try:
        _check_argument_sizes(argv)
        rc = main.main(args=argv, prog_name="nervous", standalone_mode=False)
        return rc if isinstance(rc, int) else 0
    except click.exceptions.Exit as exc:
        return int(exc.exit_code or 0)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        return 1
    except click.ClickException as exc:
        if _wants_json(argv):
            click.echo(json.dumps({"ok": False, "error": {"code": "usage", "message": exc.format_message()},
                                   "warnings": []}))
        else:
            exc.show()
        return EXIT_USAGE if isinstance(exc, click.UsageError) else exc.exit_code
    except NervousError as exc:
        _report_error(exc.to_json(), argv, list(dict.fromkeys(_pending_warnings(main) + exc.warnings)))
        return exc.exit_code
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        return 130
    except BrokenPipeError:
        return 0
    except (OSError, RecursionError, UnicodeError, MemoryError) as exc:
        # the environment or the input, not a bug: a path too long or not a folder, nesting too deep
        if os.environ.get("NERVOUS_TRACEBACK"):
            raise
        from ...errors import input_error

        err = input_error(exc)
        _report_error(err.to_json(), argv, _pending_warnings(main))
        return err.exit_code
    except Exception as exc:  # a bug: say so, with the one line that matters
        if os.environ.get("NERVOUS_TRACEBACK"):
            raise
        from ...errors import PluginError

        plugin = exc.__cause__ if isinstance(exc, PluginError) else None
        msg = f"internal error: {type(exc).__name__}: {exc} (set NERVOUS_TRACEBACK=1 for details)"
        _report_error({"code": "internal", "message": msg if plugin is None else str(exc)}, argv)
        return EXIT_INTERNAL


#: the longest single command-line argument accepted (a task, a JSON parameter object...)
MAX_ARGUMENT_CHARS = 100_000


def _check_argument_sizes(argv: list[str]) -> None:
    for i, arg in enumerate(argv, 1):
        if len(arg) > MAX_ARGUMENT_CHARS:
            raise click.UsageError(f"argument {i} is {len(arg):,} characters long; at most "
                                   f"{MAX_ARGUMENT_CHARS:,} are accepted")


def _pending_warnings(main: click.Group) -> list[str]:
    """Warnings gathered before a failure (a quarantined file...), so they are not lost."""
    app = getattr(main, "last_app", None)
    return app.all_warnings() if isinstance(app, App) else []


def _report_error(err: dict[str, Any], argv: list[str], warnings: list[str] | None = None) -> None:
    from ...errors import printable

    warnings = [printable(w) for w in warnings or []]
    err = {**err, "message": printable(str(err.get("message", "")))}
    if _wants_json(argv):
        click.echo(_json_text({"ok": False, "error": err, "warnings": warnings}))
    else:
        for w in warnings:
            click.echo(click.style(f"warning: {w}", fg="yellow"), err=True)
        click.echo(click.style("error: ", fg="red", bold=True) + err["message"], err=True)
