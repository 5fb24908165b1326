"""The ``nervous`` console script: ``--version`` and ``perceive TASK --json`` answered without click.

A host agent perceives before every task, so this command line is the one that runs most; importing
click costs more than the rest of ``--version`` and a third of ``perceive``. This module is the
entry point (``python -m nervous`` too). It recognises exactly two command lines:

* ``nervous --version``;
* ``nervous perceive TASK --json`` (or ``--json TASK``), TASK not starting with ``-``;

and answers them with what the click application uses itself: the same :class:`App`, the same
:func:`perceive`, the same JSON and error reporting (:func:`json_result`, :func:`failed`). Anything
else — ``--help``, another option, another command, an argument longer than
:data:`MAX_ARGUMENT_CHARS`, a standard output that is not UTF-8, shell completion, a third-party
plugin that ``--version`` would have to load — goes to the click application unchanged, so its messages and
exit codes stay click's. Hooks still run through the pluggy plugin manager.

Nothing here imports click at module level (``tests/frontends/test_launch.py`` checks it).
"""

from __future__ import annotations

import errno
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import EXIT_INTERNAL, NervousError

#: the longest single command-line argument accepted (a task, a JSON parameter object...)
MAX_ARGUMENT_CHARS = 100_000


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
        """The state for the click group's global options (``-p no:NAME`` checked here)."""
        import click

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
            from ..kernel.config import load_config

            self._config = load_config(files=[Path(f) for f in self.files], overrides=self.overrides)
        return self._config

    #: commands that must work with a broken selection (to show and fix it)
    LENIENT = frozenset({"config", "plugins", None})

    @property
    def manager(self) -> Any:
        if self._manager is None:
            from ..kernel.manager import PluginManager

            manager = PluginManager(self.config, blocked=self.blocked, autoload=self.autoload)
            self._manager = manager
            self.warnings[:] = list(dict.fromkeys([*self.warnings, *manager.warnings]))  # (linear: logs can say much)
            if self.command not in self.LENIENT:
                # every selected provider is resolved before the command does anything
                manager.check_selection()
                self.warnings[:] = list(dict.fromkeys([*self.warnings, *manager.warnings]))  # (linear: logs can say much)
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
                self.warnings[:] = list(dict.fromkeys([*self.warnings, *found]))
        return self.warnings

    def all_warnings(self) -> list[str]:
        """Warnings for the user: this run's, and the plugin manager's (built now if the command did not).

        A plugin that failed to load is reported on every command, even one that needs no plugin.
        """
        if self._manager is None and self._config is not None:
            try:
                from ..kernel.manager import PluginManager

                self._manager = PluginManager(self.config, blocked=self.blocked, autoload=self.autoload)
            except Exception:  # noqa: BLE001 - reporting must never fail the command
                pass
        self.collect_store_warnings()
        extra = list(self._manager.warnings) if self._manager is not None else []
        return list(dict.fromkeys(self.warnings + extra))


# ------------------------------------------------------------------ what both parsers run and print


def perceive(app: App, task: str) -> Any:
    """Route ``task`` (``nervous perceive``): the :class:`~nervous.engines.cortex.Perception`."""
    from ..engines.cortex import Cortex

    return Cortex(app.manager).perceive(task)


def json_text(value: Any, indent: int | None = None) -> str:
    """JSON for standard output; text that is not valid Unicode (undecodable file names) as escapes."""
    text = json.dumps(value, indent=indent, ensure_ascii=False, default=str)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(value, indent=indent, ensure_ascii=True, default=str)
    return text


def json_result(data: dict[str, Any], warnings: list[str], exit_code: int = 0) -> str:
    """A command's ``--json`` answer: ``ok``, its data and every warning once."""
    out = {"ok": exit_code == 0, **data,
           "warnings": list(dict.fromkeys(warnings + list(data.get("warnings", []))))}
    return json_text(out, indent=2)


def error_json(err: dict[str, Any], warnings: list[str]) -> str:
    """A failed command's ``--json`` answer (message and warnings already made printable)."""
    return json_text({"ok": False, "error": err, "warnings": warnings})


def wants_json(argv: list[str]) -> bool:
    """Whether the command line asks for JSON (an argument after ``--`` is data, even one named ``--json``)."""
    options = argv[:argv.index("--")] if "--" in argv else argv
    return "--json" in options or "--format=json" in options


def failed(exc: BaseException, argv: list[str], pending: Callable[[], list[str]],
           report: Callable[[dict[str, Any], list[str], list[str] | None], None],
           say: Callable[[str], None]) -> int:
    """The exit code of a command that raised ``exc``, after reporting it (no traceback when expected).

    ``pending()`` gives the warnings gathered before the failure, ``report(err, argv, warnings)``
    prints an error, ``say`` writes a line to standard error. Exceptions that end the process
    otherwise (``SystemExit``...) are raised again.
    """
    if isinstance(exc, NervousError):
        report(exc.to_json(), argv, list(dict.fromkeys(pending() + exc.warnings)))
        return exc.exit_code
    if isinstance(exc, KeyboardInterrupt):
        if wants_json(argv):  # the envelope a --json caller waits for, even now
            try:
                warnings = pending()
            except (Exception, KeyboardInterrupt):  # (gathering them may be what was interrupted)
                warnings = []
            report({"code": "interrupted", "message": "interrupted"}, argv, warnings)
        else:
            say("interrupted")
        return 130
    if isinstance(exc, BrokenPipeError):
        return 0
    if isinstance(exc, (OSError, RecursionError, UnicodeError, MemoryError)):
        # the environment or the input, not a bug: a path too long or not a folder, nesting too deep
        if os.environ.get("NERVOUS_TRACEBACK"):
            raise exc
        from ..errors import input_error

        err = input_error(exc)
        report(err.to_json(), argv, pending())
        return err.exit_code
    if isinstance(exc, Exception):  # a bug: say so, with the one line that matters
        if os.environ.get("NERVOUS_TRACEBACK"):
            raise exc
        from ..errors import PluginError

        plugin = exc.__cause__ if isinstance(exc, PluginError) else None
        msg = f"internal error: {type(exc).__name__}: {exc} (set NERVOUS_TRACEBACK=1 for details)"
        report({"code": "internal", "message": msg if plugin is None else str(exc)}, argv, None)
        return EXIT_INTERNAL
    raise exc


# ------------------------------------------------------------------ the two fast command lines


def _out(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def _err(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def _utf8(stream: Any) -> bool:
    """click rewraps a stream it finds misconfigured (ASCII...); only a UTF-8 one is written as click would."""
    encoding = getattr(stream, "encoding", None) or ""
    return encoding.lower().replace("_", "-") in ("utf-8", "utf8")


def _version_lines() -> list[str] | None:
    """``nervous --version``'s two lines, when the plugin list needs no plugin loaded (else None).

    The active plugins are the built-ins not blocked by the configuration or the environment, as
    the plugin manager would register them; a third-party plugin that is not blocked must be loaded
    to know whether it loads, so that case is the full command's.
    """
    if os.environ.get("NERVOUS_TRACE_PLUGINS", "") not in ("", "0"):
        return None
    try:
        from .. import __version__
        from ..kernel.builtins import BUILTINS, norm_name
        from ..kernel.config import load_config
        from ..kernel.entrypoints import ENTRY_POINT_GROUP, entry_points_for, user_cache_dir
        from ..kernel.paths import Paths

        config = load_config(files=[], overrides=[])
        if config.paths is None:
            Paths.from_env()  # what the plugin manager computes (an error there is the full command's)
        blocked = {norm_name(b) for b in config.plugins.disable if b}
        blocked |= {norm_name(b) for b in os.environ.get("NERVOUS_DISABLE_PLUGINS", "").split(",") if b.strip()}
        if config.plugins.autoload and os.environ.get("NERVOUS_DISABLE_PLUGIN_AUTOLOAD", "") in ("", "0"):
            for ep in entry_points_for(ENTRY_POINT_GROUP, user_cache_dir()):
                if norm_name(ep.name) not in blocked and (ep.dist is None or norm_name(ep.dist) not in blocked):
                    return None
        active = sorted(b.name for b in BUILTINS if norm_name(b.name) not in blocked)
    except Exception:  # noqa: BLE001 - the full command reports it ("plugins: unavailable ...")
        return None
    return [f"nervous {__version__}", f"active plugins: {', '.join(active) or 'none'}"]


def _perceive_task(argv: list[str]) -> str | None:
    """The TASK of ``perceive TASK --json`` / ``perceive --json TASK``, None for any other command line."""
    if len(argv) != 3 or argv[0] != "perceive":
        return None
    if argv[1] == "--json":
        task = argv[2]
    elif argv[2] == "--json":
        task = argv[1]
    else:
        return None
    if task.startswith("-") or len(task) > MAX_ARGUMENT_CHARS:
        return None  # an option (or "-"), or too long: click's messages
    return task


def _perceive_json(task: str) -> int:
    app = App([], None, [], [])
    app.command = "perceive"

    def report(err: dict[str, Any], _argv: list[str], warnings: list[str] | None) -> None:
        from ..errors import printable

        err = {**err, "message": printable(str(err.get("message", "")))}
        _out(error_json(err, [printable(w) for w in warnings or []]))

    from .envelope import only_envelope

    try:
        with only_envelope():  # what a plugin prints goes to stderr: the envelope stays the only output
            data = perceive(app, task).to_json()
        _out(json_result(data, app.all_warnings()))
        return 0
    except (EOFError, KeyboardInterrupt):  # as click's main reports them
        _err("")
        _err("aborted")
        return 1
    except OSError as exc:
        if exc.errno == errno.EPIPE:
            return _broken_pipe()
        return failed(exc, ["perceive", task, "--json"], app.all_warnings, report, _err)
    except BaseException as exc:  # noqa: BLE001 - failed() raises again what it does not report
        return failed(exc, ["perceive", task, "--json"], app.all_warnings, report, _err)


def _broken_pipe() -> int:
    """The reader went away: exit 1 without a second error when Python flushes at exit (as click does)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return 1


def _fast(args: list[str]) -> int | None:
    """The exit code of a command line answered here, after answering it; None for click's."""
    if _utf8(sys.stdout) and _utf8(sys.stderr) and "_NERVOUS_COMPLETE" not in os.environ:
        if args == ["--version"]:
            lines = _version_lines()
            if lines is not None:
                try:
                    for line in lines:
                        _out(line)
                except BrokenPipeError:
                    return _broken_pipe()
                return 0
        task = _perceive_task(args)
        if task is not None:
            return _perceive_json(task)
    return None


def _before_exit() -> None:
    """Leave the objects of this run to the collector's permanent generation: the process is ending.

    The interpreter's last collections at exit then skip the tens of thousands of objects the
    imports made (modules, functions, classes, code), which cost a fifth of ``perceive --json``.
    Everything is still freed by reference counting as the modules are cleared, and ``atexit``
    handlers still run; only reference cycles still alive at exit go uncollected, whose finalisers
    Python does not promise to run at exit anyway. Done only when :func:`main` runs as the program.
    """
    import gc

    gc.freeze()


def _closed_streams_to_null() -> None:
    """Started with standard output or error closed (``>&-``), Python has ``None`` there: write to nothing."""
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115 - for the process's life


def main(argv: list[str] | None = None) -> int:
    """Run ``nervous`` with ``argv`` (default: the process's arguments); the exit code."""
    args = sys.argv[1:] if argv is None else list(argv)
    _closed_streams_to_null()
    code = _fast(args)
    if code is not None:
        if argv is None:
            _before_exit()
        return code
    from .cli import cli

    return int(cli(args))


__all__ = ["App", "MAX_ARGUMENT_CHARS", "error_json", "failed", "json_result", "json_text", "main", "perceive",
           "wants_json"]
