"""Typed errors. Every error the CLI can meet carries a stable ``code`` and a message for people.

The CLI maps :attr:`NervousError.exit_code` to the process exit code and never shows a traceback
for these; anything else is an internal failure and is reported as such.
"""

from __future__ import annotations

from typing import Any

#: Exit codes shared by every command (documented in docs/cli.md).
EXIT_OK = 0
EXIT_REFUSED = 1  # refused, failed, or a check that did not pass
EXIT_USAGE = 2  # usage error or bad input (config, arguments, files)
EXIT_UNAVAILABLE = 3  # a needed service (registry, database, lock) is unavailable or busy
EXIT_INTERNAL = 70  # a bug: an unexpected exception


class NervousError(Exception):
    """Base class: a failure with a stable ``code``, a message and optional details."""

    code: str = "error"
    exit_code: int = EXIT_REFUSED

    def __init__(self, message: str, *, code: str | None = None, details: dict[str, Any] | None = None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.details: dict[str, Any] = dict(details or {})
        #: what was noticed before the failure (a recovered document, an ignored field): still reported
        self.warnings: list[str] = []

    def with_exit(self, code: int) -> NervousError:
        """This error, ending the command with ``code`` (for errors built from another exception)."""
        self.exit_code = code
        return self

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.details:
            out["details"] = self.details
        return out


class UsageError(NervousError):
    code = "invalid_arg"
    exit_code = EXIT_USAGE


class ConfigError(NervousError):
    """A configuration file, variable or value is wrong. Names the file and key path."""

    code = "config_error"
    exit_code = EXIT_USAGE


class PluginError(NervousError):
    """A plugin failed to load, register or run; names the plugin."""

    code = "plugin_error"
    exit_code = EXIT_REFUSED

    def __init__(self, message: str, *, plugin: str | None = None, **kw: Any):
        super().__init__(message, **kw)
        self.plugin = plugin


class ProviderError(ConfigError):
    """Duplicate or unknown provider name (registry, storage backend, policy...)."""

    code = "provider_error"


class StorageError(NervousError):
    code = "storage_error"
    exit_code = EXIT_REFUSED


class StorageBusy(StorageError):
    code = "storage_busy"
    exit_code = EXIT_UNAVAILABLE


class UnsupportedVersion(StorageError):
    code = "unsupported_version"


class RegistryError(NervousError):
    """A registry answered with an error or could not be reached."""

    code = "registry_error"
    exit_code = EXIT_UNAVAILABLE


class NotFound(NervousError):
    code = "not_found"
    exit_code = EXIT_REFUSED


class Refused(NervousError):
    """A safety rule, moderation state or policy refused the operation."""

    code = "refused"
    exit_code = EXIT_REFUSED


class BadInput(NervousError):
    """Input data (a file, an archive, a network answer) is malformed or unsafe."""

    code = "bad_input"
    exit_code = EXIT_USAGE


def printable(text: str) -> str:
    """``text`` safe to print and encode: undecodable bytes of file names shown as escapes."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


#: errno values that mean the input (a path, a name) is unusable rather than a service being down
_INPUT_ERRNOS = {"ENAMETOOLONG", "ENOTDIR", "EISDIR", "ENOENT", "EACCES", "EPERM", "ELOOP", "EINVAL",
                 "EROFS", "EEXIST", "ENXIO", "ENODEV", "ENOTEMPTY", "EXDEV", "EFBIG", "ENOEXEC", "EBADF"}


def input_error(exc: BaseException) -> NervousError:
    """A typed error for an exception the operating system or the parser raised on bad input.

    An unusable path (too long, not a folder, not readable) and input nested too deeply or not
    valid UTF-8 are bad input (exit 2); an I/O failure such as a full disk is an unavailable
    service (exit 3). The message names the file when there is one.
    """
    import errno as _errno

    if isinstance(exc, RecursionError):
        return BadInput("input is nested too deeply to process (a JSON or TOML value with thousands of levels)",
                        code="too_deep")
    if isinstance(exc, MemoryError):
        return BadInput("input is too large to process in memory", code="too_large")
    if isinstance(exc, UnicodeError):
        return BadInput(printable(f"a name or text is not valid UTF-8: {exc}"), code="bad_encoding")
    assert isinstance(exc, OSError)
    name = _errno.errorcode.get(exc.errno or 0, "")
    where = exc.filename if exc.filename is not None else None
    shown = printable(str(where)) if where is not None else ""
    if len(shown) > 200:
        shown = shown[:120] + f"…({len(shown)} characters)"
    what = exc.strerror or str(exc) or type(exc).__name__
    message = f"cannot use {shown}: {what}" if shown else f"operating system error: {what}"
    details: dict[str, Any] = {"errno": name or exc.errno}
    if where is not None:
        details["path"] = shown
    if name in _INPUT_ERRNOS or not name:
        return BadInput(message, code="bad_path" if where is not None else "os_error", details=details)
    return NervousError(message, code="io_error", details=details).with_exit(EXIT_UNAVAILABLE)
