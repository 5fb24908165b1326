"""Shared CLI plumbing: the lazily built config and plugin manager, output, and error handling."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import click

from ...errors import EXIT_USAGE
from ...kernel.texttable import table as table  # the CLI's table helper, shared with report formats
from ...kernel.texttable import terminal_lines
from ...kernel.texttable import terminal_safe as terminal_safe
from ..launch import MAX_ARGUMENT_CHARS as MAX_ARGUMENT_CHARS
from ..launch import App as App
from ..launch import error_json, failed, json_result, json_text
from ..launch import wants_json as _wants_json

#: JSON for standard output (the evolve and goal commands print with it)
_json_text = json_text


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
        echo_json(json_result(data, app_warnings, exit_code))
    else:
        for w in dict.fromkeys(app_warnings + list(data.get("warnings", []))):
            click.echo(click.style(f"warning: {terminal_safe(w)}", fg="yellow"), err=True)
        if callable(human):
            human()
        elif human is not None:
            from ...errors import printable

            click.echo(terminal_lines(printable(human)))  # (it may quote a registry's answer)
    if exit_code:
        raise click.exceptions.Exit(exit_code)


def run_main(main: click.Group, argv: list[str]) -> int:
    """Run the CLI with nervous's error contract: no tracebacks for expected failures.

    Under ``--json`` whatever else is written to standard output (a plugin's print from a hook or
    a thread, a program it runs) goes to standard error: the one JSON envelope is the only thing on
    standard output (:mod:`nervous.frontends.envelope`).
    """
    if not _wants_json(argv):
        return _run_main(main, argv)
    from ..envelope import only_envelope

    with only_envelope():
        return _run_main(main, argv)


def echo_json(text: str) -> None:
    """Print the ``--json`` envelope: the one thing that reaches standard output."""
    from ..envelope import envelope

    with envelope():
        click.echo(text)


def _run_main(main: click.Group, argv: list[str]) -> int:
    try:
        _check_argument_sizes(argv)
        rc = main.main(args=argv, prog_name="nervous", standalone_mode=False)
        return rc if isinstance(rc, int) else 0
    except click.exceptions.Exit as exc:
        return int(exc.exit_code or 0)
    except click.exceptions.Abort as exc:
        if isinstance(exc.__cause__ or exc.__context__, KeyboardInterrupt):  # (click turns it into Abort)
            return failed(KeyboardInterrupt(), argv, lambda: _pending_warnings(main), _report_error,
                          lambda m: click.echo(m, err=True))
        click.echo("aborted", err=True)
        return 1
    except click.ClickException as exc:
        from ...engines.scan.engine import mask_secrets

        # a usage message quotes the user's own argument, which may be a token given in the wrong place
        setattr(exc, "message", mask_secrets(exc.message))  # noqa: B010 - (click's stubs make it final)
        if _wants_json(argv):
            echo_json(json.dumps({"ok": False, "error": {"code": "usage", "message": exc.format_message()},
                                  "warnings": []}))
        else:
            setattr(exc, "message", terminal_lines(exc.message))  # noqa: B010
            exc.show()
        return EXIT_USAGE if isinstance(exc, click.UsageError) else exc.exit_code
    except (KeyboardInterrupt, Exception) as exc:  # reported as the fast command lines report it
        return failed(exc, argv, lambda: _pending_warnings(main), _report_error, lambda m: click.echo(m, err=True))


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
        echo_json(error_json(err, warnings))
    else:  # (a message may quote a registry's answer or the user's own argument: escaped for the terminal)
        for w in warnings:
            click.echo(click.style(f"warning: {terminal_safe(w)}", fg="yellow"), err=True)
        click.echo(click.style("error: ", fg="red", bold=True) + terminal_lines(err["message"]), err=True)
