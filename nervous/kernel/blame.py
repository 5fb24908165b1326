"""Blame a failing provider's plugin: a method exception becomes a :class:`PluginError` naming it.

Providers (registries, stores, policies...) are objects a plugin's factory returns; engines call
their methods directly. Without this, a bug in a third-party registry's ``search`` reaches the
user as an anonymous ``RuntimeError`` or an "internal error". The manager hands out providers
wrapped in :class:`Blamed`, which converts any exception that is not part of the contract
(:class:`nervous.errors.NervousError`) into a :class:`PluginError` saying which plugin failed in
which operation and how to disable it. Exceptions raised by callbacks the caller passed in (the
function given to ``Store.update``) are the caller's and pass through unchanged.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from ..errors import NervousError, PluginError

_CALLER = "__nervous_raised_by_caller__"


def failure(plugin: str, what: str, exc: BaseException) -> PluginError:
    """The one message for a plugin's failure: who, where, what, and how to turn it off."""
    detail = exc.message if isinstance(exc, PluginError) else f"{type(exc).__name__}: {exc}"
    return PluginError(f"plugin {plugin!r} failed in {what}: {detail} (disable it with -p no:{plugin})",
                       plugin=plugin)


def _mark_caller(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            try:
                setattr(exc, _CALLER, True)
            except AttributeError:
                pass
            raise

    return call


def _guard(plugin: str, what: str, method: Callable[..., Any],
           check: Callable[[Any], str | None] | None = None) -> Callable[..., Any]:
    @functools.wraps(method)
    def call(*args: Any, **kwargs: Any) -> Any:
        args = tuple(_mark_caller(a) if _is_callback(a) else a for a in args)
        kwargs = {k: _mark_caller(v) if _is_callback(v) else v for k, v in kwargs.items()}
        try:
            result = method(*args, **kwargs)
        except (NervousError, KeyboardInterrupt):
            raise
        except (OSError, RecursionError, UnicodeError, MemoryError):
            raise  # the input or the environment (a path too long, a full disk): documented codes, not a bug
        except SystemExit as exc:  # a plugin's sys.exit() must not end nervous (exit 0, nothing printed)
            raise failure(plugin, what, exc) from exc
        except Exception as exc:
            if getattr(exc, _CALLER, False):
                raise
            raise failure(plugin, what, exc) from exc
        if check is not None:
            problem = check(result)
            if problem is not None:
                raise PluginError(f"plugin {plugin!r} failed in {what}: it returned {problem} "
                                  f"(disable it with -p no:{plugin})", plugin=plugin)
        return result

    return call


def _describe(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text[:60] + '...' if len(text) > 60 else text}"


def _record_check(type_name: str) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        from . import records

        expected = getattr(records, type_name)
        return None if isinstance(value, expected) else f"{_describe(value)}; expected a {type_name}"

    return check


def _list_check(type_name: str) -> Callable[[Any], str | None]:
    def check(value: Any) -> str | None:
        from . import records

        expected = getattr(records, type_name)
        if not isinstance(value, (list, tuple)):
            return f"{_describe(value)}; expected a list of {type_name}"
        for item in value:
            if not isinstance(item, expected):
                return f"a list holding {_describe(item)}; expected a list of {type_name}"
        return None

    return check


def _text_check(value: Any) -> str | None:
    return None if isinstance(value, str) else f"{_describe(value)}; expected the report as a string"


def _is_callback(value: Any) -> bool:
    return callable(value) and not isinstance(value, type) and not isinstance(value, Blamed)


#: what a provider's methods must return, by provider kind: a wrong type is the plugin's bug,
#: reported as :class:`PluginError` naming it, not a ``TypeError`` deep in an engine (exit 70)
RESULT_CHECKS: dict[str, dict[str, Callable[[Any], str | None]]] = {
    "registry": {
        "search": _list_check("SearchHit"),
        "resolve": _record_check("SkillMetadata"),
        "versions": _list_check("SkillVersion"),
        "version": _record_check("SkillVersion"),
        "fetch": _record_check("SkillBundle"),
    },
    "report format": {"__call__": _text_check},
}


class Blamed:
    """A provider seen through its plugin's name: methods raise :class:`PluginError` on a bug."""

    __slots__ = ("_target", "_plugin", "_label", "_checks")

    def __init__(self, target: Any, plugin: str, label: str,
                 checks: dict[str, Callable[[Any], str | None]] | None = None) -> None:
        object.__setattr__(self, "_target", target)
        object.__setattr__(self, "_plugin", plugin)
        object.__setattr__(self, "_label", label)
        object.__setattr__(self, "_checks", checks or {})

    @property  # type: ignore[misc]
    def __class__(self) -> type:  # isinstance() sees the provider's own class
        return type(object.__getattribute__(self, "_target"))

    def __getattr__(self, attr: str) -> Any:
        value = getattr(self._target, attr)
        if attr.startswith("__") or not inspect.ismethod(value):  # only the provider's own methods
            return value
        return _guard(self._plugin, f"{attr}() of {self._label}", value, self._checks.get(attr))

    def __setattr__(self, attr: str, value: Any) -> None:
        setattr(self._target, attr, value)

    def __delattr__(self, attr: str) -> None:
        delattr(self._target, attr)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _guard(self._plugin, self._label, self._target, self._checks.get("__call__"))(*args, **kwargs)

    def __repr__(self) -> str:
        return repr(self._target)

    def __eq__(self, other: object) -> bool:
        target = other._target if isinstance(other, Blamed) else other
        return bool(self._target == target)

    def __hash__(self) -> int:
        return hash(self._target)


def unwrap(provider: Any) -> Any:
    """The provider object itself (for code that needs its concrete type's internals)."""
    return object.__getattribute__(provider, "_target") if type(provider) is Blamed else provider


__all__ = ["Blamed", "RESULT_CHECKS", "failure", "unwrap"]
