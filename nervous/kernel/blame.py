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


def _guard(plugin: str, what: str, method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def call(*args: Any, **kwargs: Any) -> Any:
        args = tuple(_mark_caller(a) if _is_callback(a) else a for a in args)
        kwargs = {k: _mark_caller(v) if _is_callback(v) else v for k, v in kwargs.items()}
        try:
            return method(*args, **kwargs)
        except (NervousError, KeyboardInterrupt):
            raise
        except (OSError, RecursionError, UnicodeError, MemoryError):
            raise  # the input or the environment (a path too long, a full disk): documented codes, not a bug
        except Exception as exc:
            if getattr(exc, _CALLER, False):
                raise
            raise failure(plugin, what, exc) from exc

    return call


def _is_callback(value: Any) -> bool:
    return callable(value) and not isinstance(value, type) and not isinstance(value, Blamed)


class Blamed:
    """A provider seen through its plugin's name: methods raise :class:`PluginError` on a bug."""

    __slots__ = ("_target", "_plugin", "_label")

    def __init__(self, target: Any, plugin: str, label: str) -> None:
        object.__setattr__(self, "_target", target)
        object.__setattr__(self, "_plugin", plugin)
        object.__setattr__(self, "_label", label)

    @property  # type: ignore[misc]
    def __class__(self) -> type:  # isinstance() sees the provider's own class
        return type(object.__getattribute__(self, "_target"))

    def __getattr__(self, attr: str) -> Any:
        value = getattr(self._target, attr)
        if attr.startswith("__") or not inspect.ismethod(value):  # only the provider's own methods
            return value
        return _guard(self._plugin, f"{attr}() of {self._label}", value)

    def __setattr__(self, attr: str, value: Any) -> None:
        setattr(self._target, attr, value)

    def __delattr__(self, attr: str) -> None:
        delattr(self._target, attr)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _guard(self._plugin, self._label, self._target)(*args, **kwargs)

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


__all__ = ["Blamed", "failure", "unwrap"]
