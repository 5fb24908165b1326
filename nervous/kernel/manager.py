"""The plugin manager facade: loads plugins, resolves providers, and calls every hook.

Engines call the typed methods here and never ``pm.hook`` directly. Exceptions raised inside a
plugin reach the caller as :class:`PluginError` naming the plugin (the original is chained).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

import pluggy

from ..errors import PluginError, ProviderError
from ..plugin import hookspecs
from .blame import RESULT_CHECKS, Blamed, failure
from .builtins import BUILTINS, LazyBuiltin, lazy_plugin, norm_name
from .config import Config
from .entrypoints import ENTRY_POINT_GROUP
from .messages import AppendOnce
from .paths import Paths

if TYPE_CHECKING:
    from ..plugin.protocols import DrainPolicy, InstallTarget, Matcher, RankingPolicy, Registry, ReviewPolicy
    from ..plugin.provider import Provider
    from .records import IntentVerdict, RiskAssessment, ScanContext, SideEffects, SkillBundle
    from .storage import Store

#: Built-in plugins (name, module), registered from the static table in :mod:`nervous.kernel.builtins`
#: without importing them. They use only the plugin API and can be blocked like any third-party
#: plugin (``-p no:NAME``).
BUILTIN_PLUGINS: tuple[tuple[str, str], ...] = tuple((b.name, b.module) for b in BUILTINS)

PROVIDER_HOOKS = {
    "registry": "nervous_registries",
    "install target": "nervous_install_targets",
    "review policy": "nervous_review_policies",
    "report format": "nervous_report_formats",
    "storage backend": "nervous_storage_backends",
    "matcher": "nervous_matchers",
    "ranking policy": "nervous_ranking_policies",
    "drain policy": "nervous_drain_policies",
}


#: ``(before, after)`` pairs given to every new manager's :meth:`pluggy.PluginManager.add_hookcall_monitoring`
#: (see :func:`add_hookcall_monitoring`); tests use it to check that every hook is exercised.
_MONITORS: list[tuple[Callable[..., None], Callable[..., None]]] = []


def add_hookcall_monitoring(before: Callable[..., None], after: Callable[..., None]) -> Callable[[], None]:
    """Monitor the hook calls of every plugin manager created from now on (pluggy's monitoring).

    ``before(hook_name, hook_impls, kwargs)`` and ``after(outcome, hook_name, hook_impls, kwargs)``
    are pluggy's signatures. Returns a function that stops monitoring for managers created later.
    """
    pair = (before, after)
    _MONITORS.append(pair)
    return lambda: _MONITORS.remove(pair) if pair in _MONITORS else None


_norm = norm_name


class _PluggyManager(pluggy.PluginManager):
    """pluggy's manager, told where a built-in's stand-in keeps its hooks.

    pluggy looks at every attribute of a plugin with :func:`inspect.getattr_static`; a built-in's
    stand-in (:class:`~nervous.kernel.builtins.LazyBuiltin`) has its hook implementations in its own class
    and nothing else, so the other thirty-odd attributes are skipped without looking (start-up).
    """

    def parse_hookimpl_opts(self, plugin: Any, name: str) -> Any:
        if isinstance(plugin, LazyBuiltin) and name not in type(plugin).__dict__:
            return None
        return super().parse_hookimpl_opts(plugin, name)


class PluginInfo:
    """One row of ``nervous plugins`` (a plain class: built for every plugin on every start-up)."""

    __slots__ = ("name", "source", "status", "distribution", "version", "module", "reason", "hooks", "providers")

    def __init__(self, name: str, source: str, status: str, distribution: str | None = None,
                 version: str | None = None, module: str | None = None, reason: str | None = None,
                 hooks: list[str] | None = None, providers: dict[str, list[str]] | None = None) -> None:
        self.name = name
        self.source = source  # built-in | entry point | registered
        self.status = status  # active | blocked | failed
        self.distribution = distribution
        self.version = version
        self.module = module
        self.reason = reason
        self.hooks: list[str] = [] if hooks is None else hooks
        #: the providers it offers, by kind (``{"registry": ["clawhub"]}``)
        self.providers: dict[str, list[str]] = {} if providers is None else providers

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__)
        return f"PluginInfo({inner})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    __hash__ = None  # type: ignore[assignment]


class PluginManager:
    """Facade over :class:`pluggy.PluginManager` with one typed method per hook."""

    def __init__(
        self,
        config: Config | None = None,
        *,
        paths: Paths | None = None,
        blocked: Iterable[str] = (),
        autoload: bool | None = None,
        builtins: bool = True,
    ) -> None:
        from .config import Config as _Config

        self.config = config or _Config()
        self.paths = paths or self.config.paths or Paths.from_env()
        self._pm = _PluggyManager("nervous")
        self._pm.add_hookspecs(hookspecs)
        for before, after in _MONITORS:
            self._pm.add_hookcall_monitoring(before, after)
        if os.environ.get("NERVOUS_TRACE_PLUGINS", "") not in ("", "0"):
            self._pm.trace.root.setwriter(sys.stderr.write)
            self._pm.enable_tracing()
        self._infos: dict[str, PluginInfo] = {}
        self._blocked = {_norm(b) for b in (*blocked, *self.config.plugins.disable) if b}
        env_blocked = os.environ.get("NERVOUS_DISABLE_PLUGINS", "")
        self._blocked |= {_norm(b) for b in env_blocked.split(",") if b.strip()}
        self._strict = os.environ.get("NERVOUS_STRICT_PLUGINS", "") not in ("", "0")
        self._providers: dict[str, dict[str, Provider]] = {}
        self._instances: dict[tuple[str, str], Any] = {}
        self._caller_cache: dict[str, list[tuple[str, Any]]] = {}
        #: what the user should hear about on every command (a plugin that failed to load...)
        self.warnings: list[str] = []
        if autoload is None:
            autoload = self.config.plugins.autoload and os.environ.get(
                "NERVOUS_DISABLE_PLUGIN_AUTOLOAD", ""
            ) in ("", "0")
        if builtins:
            self._load_builtins()
        if autoload:
            self._load_entry_points()
        try:
            self._pm.check_pending()
        except pluggy.PluginValidationError as exc:
            self._fail_validation(exc)
        if autoload:  # without autoload an unknown name may be an entry point never scanned
            self._warn_unknown_blocked()

    def _warn_unknown_blocked(self) -> None:
        known = {_norm(n) for n in self._infos} | {_norm(i.distribution) for i in self._infos.values()
                                                     if i.distribution and i.source != "built-in"}
        for name in sorted(self._blocked - known):
            self.warnings.append(f"plugin {name!r} named in a disable list (-p no:, [plugins] disable, "
                                 f"NERVOUS_DISABLE_PLUGINS) is unknown; known plugins: "
                                 f"{', '.join(sorted(self._infos)) or 'none'}")

    # ---------------------------------------------------------------- loading

    def _is_blocked(self, *names: str | None) -> bool:
        return any(n is not None and _norm(n) in self._blocked for n in names)

    def _load_builtins(self) -> None:
        for builtin in BUILTINS:
            name, module = builtin.name, builtin.module
            if self._is_blocked(name):
                self._infos[name] = PluginInfo(name, "built-in", "blocked", "nervous", _version(), module)
                continue
            self._register(lazy_plugin(builtin), name, "built-in", "nervous", _version(), module)

    def _load_entry_points(self) -> None:
        from .entrypoints import entry_points_for, user_cache_dir

        for ep in entry_points_for(ENTRY_POINT_GROUP, user_cache_dir()):
            dist_name, dist_version = ep.dist, ep.version
            if self._is_blocked(ep.name, dist_name):
                key = ep.name if ep.name not in self._infos else f"{ep.name} ({dist_name})"
                self._infos[key] = PluginInfo(key, "entry point", "blocked", dist_name, dist_version, ep.value)
                continue
            clash = self._infos.get(ep.name)
            if clash is not None and clash.status != "blocked":
                theirs = f"{dist_name or 'unknown distribution'} {dist_version or ''}".strip()
                ours = f"{clash.distribution or 'registered in-process'} {clash.version or ''}".strip()
                self._record_failure(
                    f"{ep.name} ({theirs})", "entry point", dist_name, dist_version, ep.value,
                    PluginError(f"entry point name {ep.name!r} of distribution {theirs} clashes with the "
                                f"{clash.source} plugin {ep.name!r} of {ours}; it was not loaded (the distribution "
                                f"must rename its entry point; block it with -p no:{dist_name or ep.name})"))
                continue
            try:
                with _quiet_stdout():
                    plugin = ep.load()
            except (Exception, SystemExit) as exc:  # (sys.exit() at import: a failed plugin, not nervous's exit)
                self._record_failure(ep.name, "entry point", dist_name, dist_version, ep.value, exc)
                continue
            self._register(plugin, ep.name, "entry point", dist_name, dist_version, ep.value)

    def _record_failure(
        self, name: str, source: str, dist: str | None, version: str | None, module: str, exc: BaseException
    ) -> None:
        reason = str(exc) if isinstance(exc, PluginError) else f"{type(exc).__name__}: {exc}"
        self._infos[name] = PluginInfo(name, source, "failed", dist, version, module, reason)
        origin = f" ({dist} {version})" if dist and version else (f" ({dist})" if dist else "")
        self.warnings.append(f"plugin {name!r}{origin} failed to load and is skipped: {reason}"
                             if not isinstance(exc, PluginError) else reason)
        if self._strict:
            raise PluginError(f"plugin {name!r} ({dist or 'unknown distribution'}) failed to load: {reason}",
                              plugin=name) from exc

    def _register(
        self, plugin: Any, name: str, source: str, dist: str | None, version: str | None, module: str | None
    ) -> None:
        try:
            self._pm.register(plugin, name=name)
        except (ValueError, pluggy.PluginValidationError) as exc:
            self._record_failure(name, source, dist, version, module or "", exc)
            return
        self._infos[name] = PluginInfo(name, source, "active", dist, version, module)

    def _fail_validation(self, exc: pluggy.PluginValidationError) -> None:
        name = self._pm.get_name(exc.plugin) or "?"
        self._pm.unregister(exc.plugin)
        info = self._infos.get(name)
        if info:
            info.status, info.reason = "failed", str(exc)
        self.warnings.append(f"plugin {name!r} is skipped: {exc} (block it with -p no:{name})")
        if self._strict:
            raise PluginError(f"plugin {name!r}: {exc}", plugin=name) from exc
        try:
            self._pm.check_pending()
        except pluggy.PluginValidationError as again:
            self._fail_validation(again)

    def register(self, plugin: Any, name: str) -> None:
        """Register an in-process plugin (host agents, tests).

        The plugin is validated first (every hook known, every argument offered by the hookspec):
        an invalid plugin raises :class:`PluginError` naming it and leaves nothing registered.
        """
        if self._is_blocked(name):
            self._infos[name] = PluginInfo(name, "registered", "blocked")
            return
        problems = self.validate(plugin)
        if problems:
            raise PluginError(f"plugin {name!r} cannot be registered: {'; '.join(problems)}", plugin=name)
        try:
            self._pm.register(plugin, name=name)
        except (ValueError, pluggy.PluginValidationError) as exc:
            if self._pm.get_plugin(name) is plugin:
                self._pm.unregister(plugin)
            raise PluginError(f"plugin {name!r} cannot be registered: {exc}", plugin=name) from exc
        self._infos[name] = PluginInfo(name, "registered", "active", module=getattr(plugin, "__name__", None))
        self._providers.clear()
        self._caller_cache.clear()
        self._instances.clear()

    def validate(self, plugin: Any) -> list[str]:
        """What is wrong with ``plugin``'s hook implementations (empty when it can be registered)."""
        import inspect

        problems = []
        for attr in dir(plugin):
            try:
                opts = self._pm.parse_hookimpl_opts(plugin, attr)
            except Exception:
                continue
            if opts is None:
                continue
            caller = getattr(self._pm.hook, attr, None)
            if caller is None or caller.spec is None:
                known = ", ".join(self.hook_names())
                problems.append(f"unknown hook {attr!r} (known hooks: {known})")
                continue
            function = getattr(plugin, attr)
            try:
                params = inspect.signature(function).parameters.values()
            except (TypeError, ValueError):
                problems.append(f"hook {attr!r} is not a function")
                continue
            extra = [p.name for p in params if p.default is p.empty and p.name not in caller.spec.argnames
                     and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
            if extra:
                problems.append(f"hook {attr!r} asks for {', '.join(map(repr, extra))}, which the hookspec does not "
                                f"offer (it offers: {', '.join(caller.spec.argnames) or 'nothing'})")
            if opts.get("wrapper") and opts.get("hookwrapper"):
                problems.append(f"hook {attr!r} is both wrapper and hookwrapper")
            if (opts.get("wrapper") or opts.get("hookwrapper")) and not inspect.isgeneratorfunction(function):
                problems.append(f"hook {attr!r} is a wrapper but not a generator function")
        return problems

    def unregister(self, name: str) -> None:
        self._pm.unregister(name=name)
        self._infos.pop(name, None)
        self._providers.clear()
        self._caller_cache.clear()
        self._instances.clear()

    def plugins(self, *, providers: bool = True, problems: list[str] | None = None) -> list[PluginInfo]:
        """Every known plugin with its status and the hooks it implements.

        ``providers=False`` skips asking each plugin for its providers (``--version`` needs only the
        names and statuses; the rows' ``providers`` stay empty). A kind whose providers cannot be
        listed (a plugin's hook raised, returned the wrong type, or reused a name) is said in ``problems``.
        """
        offered: dict[str, dict[str, list[str]]] = {}
        for kind in PROVIDER_HOOKS if providers else ():
            try:
                provs = self.providers(kind)
            except (PluginError, ProviderError) as exc:
                if problems is not None:
                    problems.append(f"{kind} providers could not be listed: {exc.message}")
                continue
            for prov in provs.values():
                offered.setdefault(prov.plugin, {}).setdefault(kind, []).append(prov.name)
        out = []
        for name, info in self._infos.items():
            plugin = self._pm.get_plugin(name)
            if plugin is not None:
                callers = self._pm.get_hookcallers(plugin) or []
                info.hooks = sorted(c.name for c in callers)
            info.providers = {kind: sorted(names) for kind, names in offered.get(name, {}).items()}
            out.append(info)
        return sorted(out, key=lambda i: (i.source != "built-in", i.name))

    def hook_names(self) -> list[str]:
        return sorted(n for n in dir(hookspecs) if n.startswith("nervous_"))

    # ---------------------------------------------------------------- calling

    def _blame(self, hook_name: str, exc: BaseException) -> str | None:
        """The plugin whose hook implementation raised ``exc``: the innermost implementation frame."""
        caller = getattr(self._pm.hook, hook_name)
        owners = {impl.function.__code__: impl.plugin_name for impl in caller.get_hookimpls()
                  if hasattr(impl.function, "__code__")}
        found = None
        tb = exc.__traceback__
        while tb is not None:
            found = owners.get(tb.tb_frame.f_code, found)
            tb = tb.tb_next
        return found

    def _hook(self, hook_name: str, caller: Any = None, **kwargs: Any) -> Any:
        """Call a hook through pluggy; an exception is re-raised as a :class:`PluginError` naming its plugin."""
        try:
            return (caller or getattr(self._pm.hook, hook_name))(**kwargs)
        except PluginError:
            raise
        except SystemExit as exc:  # a hook's sys.exit() must not end nervous (exit 0, nothing printed)
            raise failure(self._blame(hook_name, exc) or "?", hook_name, exc) from exc
        except Exception as exc:
            from ..errors import NervousError

            plugin = self._blame(hook_name, exc)
            if plugin is None:
                if isinstance(exc, NervousError):
                    raise
                plugin = "?"
            raise failure(plugin, hook_name, exc) from exc

    def _callers(self, hook_name: str) -> list[tuple[str, Any]]:
        """One pluggy caller per implementing plugin (call order), so each result keeps its provenance."""
        impls = getattr(self._pm.hook, hook_name).get_hookimpls()
        names = list(dict.fromkeys(impl.plugin_name for impl in reversed(impls)))
        cached = self._caller_cache.get(hook_name)
        if cached is not None and [n for n, _c in cached] == names:
            return cached
        plugins = {n: self._pm.get_plugin(n) for n in names}
        callers = [(name, self._pm.subset_hook_caller(
                       hook_name, remove_plugins=[p for n, p in plugins.items() if n != name and p is not None]))
                   for name in names]
        self._caller_cache[hook_name] = callers
        return callers

    def _per_plugin(self, hook_name: str, **kwargs: Any) -> Iterator[tuple[str, Any]]:
        for name, caller in self._callers(hook_name):
            result = self._hook(hook_name, caller, **kwargs)
            if result is not None:
                yield name, result

    # ---------------------------------------------------------------- providers

    def providers(self, kind: str) -> dict[str, Provider]:
        """All providers of one kind (``"registry"``, ``"storage backend"``...), by name."""
        if kind not in self._providers:
            from ..plugin.provider import Provider

            found: dict[str, Provider] = {}
            for plugin, results in self._per_plugin(PROVIDER_HOOKS[kind]):
                for provs in results:
                    if provs is not None and not isinstance(provs, (list, tuple)):
                        raise PluginError(f"plugin {plugin!r} returned {_describe(provs)} from {PROVIDER_HOOKS[kind]}; "
                                          f"expected a list of nervous.Provider records (disable it with -p no:{plugin})",
                                          plugin=plugin)
                for p in (item for provs in results for item in (provs or ())):
                    if not isinstance(p, Provider):
                        raise PluginError(f"plugin {plugin!r} returned {p!r} from {PROVIDER_HOOKS[kind]}; "
                                          "expected nervous.Provider records", plugin=plugin)
                    p = Provider(p.name, p.description, p.factory, plugin)
                    if p.name in found:
                        raise ProviderError(
                            f"{kind} {p.name!r} is defined twice: by plugin {found[p.name].plugin!r} "
                            f"and by plugin {plugin!r}; disable one with -p no:NAME"
                        )
                    found[p.name] = p
            self._providers[kind] = found
        return self._providers[kind]

    def provider(self, kind: str, name: str) -> Provider:
        provs = self.providers(kind)
        if name not in provs:
            available = ", ".join(sorted(provs)) or "none"
            raise ProviderError(f"unknown {kind} {name!r}; available: {available}")
        return provs[name]

    def _named_registry(self, name: str) -> tuple[Provider, dict[str, Any]] | None:
        """A ``[registries.<name>]`` entry: its protocol provider and the settings it is created with."""
        block = self.config.registries.named.get(name)
        if block is None:
            return None
        if name in self.providers("registry"):
            raise ProviderError(f"[registries.{name}] shadows the registry provider {name!r}; choose another name")
        prov = self.provider("registry", block.provider)
        token = block.token or (os.environ.get(block.token_env) if block.token_env else None)
        settings = {**self.config.plugin_settings(prov.plugin), **self.config.plugin_settings(block.provider),
                    "registry_name": name, "registry": block.url, "site": block.site, "token": token}
        return prov, settings

    def registry_names(self) -> list[str]:
        """Registry providers and ``[registries.<name>]`` entries."""
        return sorted({*self.providers("registry"), *self.config.registries.named})

    def create(self, kind: str, name: str) -> Any:
        """Instantiate (once per manager) the named provider of ``kind``."""
        key = (kind, name)
        if key not in self._instances:
            named = self._named_registry(name) if kind == "registry" else None
            if named is not None:
                prov, settings = named
            else:
                prov = self.provider(kind, name)
                settings = {**self.config.plugin_settings(prov.plugin), **self.config.plugin_settings(name)}
            from ..plugin.context import ProviderContext

            ctx = ProviderContext(config=self.config, paths=self.paths, manager=self, settings=settings)
            try:
                made = prov.factory(ctx)
                self._instances[key] = Blamed(made, prov.plugin, f"{kind} {name!r}", RESULT_CHECKS.get(kind))
            except (PluginError, ProviderError):
                raise
            except (OSError, RecursionError, UnicodeError, MemoryError):
                # the environment or the input (an unreadable data folder, a path too long): the
                # documented codes, as for the provider's methods (nervous.kernel.blame), not a plugin bug
                raise
            except (Exception, SystemExit) as exc:
                from ..errors import NervousError

                if isinstance(exc, NervousError):
                    raise
                raise PluginError(
                    f"plugin {prov.plugin!r} could not create {kind} {name!r}: {type(exc).__name__}: {exc}",
                    plugin=prov.plugin,
                ) from exc
        return self._instances[key]

    #: configuration key of each selectable kind (lists select several, in order)
    SELECTION_KEYS: dict[str, str] = {
        "registry": "registries.use",
        "storage backend": "storage.backend",
        "install target": "install.target",
        "review policy": "review.policy",
        "matcher": "cortex.matcher",
        "ranking policy": "cortex.ranking_policy",
    }

    def check_selection(self, *, build: bool = False) -> dict[str, list[str]]:
        """Resolve every provider the configuration selects; raise :class:`ProviderError` on a bad name.

        Surfaces duplicate provider names of every kind. A registry that a *default* ``[registries]
        use`` names but whose plugin the user blocked drops out of the stack with a warning. With
        ``build``, every selected provider is also created (its factory checks its settings).
        """
        cfg = self.config
        for kind in PROVIDER_HOOKS:
            self.providers(kind)
        known = set(self._infos) | {name for kind in PROVIDER_HOOKS for name in self.providers(kind)}
        warn = AppendOnce(self.warnings)  # a configuration with many unknown sections stays linear
        listed = ", ".join(sorted(known))
        for name in sorted(set(cfg.plugins.settings) - known):
            warn(f"[plugins.{name}] configures no known plugin or provider; known: {listed}")
        registries = list(cfg.registries.use)
        if cfg.origin("registries.use") == "defaults":
            dropped = [n for n in registries if n not in self.providers("registry") and self._is_blocked(n)]
            for name in dropped:
                self.warnings.append(f"registry {name!r} is left out of the default [registries] use: "
                                     f"its plugin is blocked")
            kept = [n for n in registries if n not in dropped]
            if dropped and kept:
                cfg.registries.use = registries = kept
        selected = {
            "registry": registries,
            "storage backend": [cfg.storage.backend],
            "install target": [cfg.install.target],
            "review policy": [cfg.review.policy],
            "matcher": [cfg.cortex.matcher],
            "ranking policy": [cfg.cortex.ranking_policy],
        }
        for kind, names in selected.items():
            for name in names:
                if kind == "registry" and self._named_registry(name) is not None:
                    continue
                try:
                    self.provider(kind, name)
                except ProviderError as exc:
                    key = self.SELECTION_KEYS[kind]
                    blocked = " (its plugin is blocked: -p no:NAME, [plugins] disable or NERVOUS_DISABLE_PLUGINS)" \
                        if self._is_blocked(name) else ""
                    raise ProviderError(f"{key} = {name!r} (set by {cfg.origin(key)}): {exc.message}{blocked}") from None
        if build:
            for kind, names in selected.items():
                for name in names:
                    self.create(kind, name)
        return selected

    def registries(self, names: Iterable[str] | None = None) -> list[Registry]:
        """The configured registries, in order (``[registries] use``)."""
        return [self.create("registry", n) for n in (names or self.config.registries.use)]

    def registry(self, name: str) -> Registry:
        return self.create("registry", name)  # type: ignore[no-any-return]

    def storage(self) -> Store:
        """The configured storage backend (``[storage] backend``), a :class:`nervous.kernel.storage.Store`."""
        return self.create("storage backend", self.config.storage.backend)  # type: ignore[no-any-return]

    def install_target(self) -> InstallTarget:
        return self.create("install target", self.config.install.target)  # type: ignore[no-any-return]

    def review_policy(self) -> ReviewPolicy:
        return self.create("review policy", self.config.review.policy)  # type: ignore[no-any-return]

    def report_format(self, name: str) -> Callable[[dict[str, Any]], str]:
        return self.create("report format", name)  # type: ignore[no-any-return]

    def matcher(self) -> Matcher:
        return self.create("matcher", self.config.cortex.matcher)  # type: ignore[no-any-return]

    def ranking_policy(self, name: str | None = None) -> RankingPolicy:
        return self.create("ranking policy", name or self.config.cortex.ranking_policy)  # type: ignore[no-any-return]

    def drain_policy(self, name: str) -> DrainPolicy:
        return self.create("drain policy", name)  # type: ignore[no-any-return]

    # ---------------------------------------------------------------- contributions

    def _contributions(self, hook_name: str, expected: type, what: str, **kwargs: Any) -> list[Any]:
        """Every plugin's answer to a contribution hook, each checked against ``expected`` and blamed on its plugin."""
        out = []
        for plugin, values in self._per_plugin(hook_name, **kwargs):
            for value in values:
                if not isinstance(value, expected):
                    raise _wrong_result(plugin, hook_name, value, what)
                out.append(value)
        return out

    def classify(self, bundle: SkillBundle, context: ScanContext) -> SideEffects:
        """Union of every classifier's side effects; with no classifier, assume the worst."""
        from .records import SideEffects

        result: SideEffects | None = None
        for se in self._contributions("nervous_classify", SideEffects, "a nervous.SideEffects record",
                                      bundle=bundle, context=context):
            result = se if result is None else result.merge(se)
        if result is None:
            return SideEffects(tags=("delete:?", "network:*", "shell:*", "write:?"), flags=("incomplete",),
                               complete=False)
        return result

    def score_risk(self, bundle: SkillBundle, side_effects: SideEffects, context: ScanContext) -> RiskAssessment:
        """The highest contributed risk level, all reasons kept; ``high`` when nobody scores."""
        from .records import RiskAssessment

        result: RiskAssessment | None = None
        for ra in self._contributions("nervous_score_risk", RiskAssessment, "a nervous.RiskAssessment record",
                                      bundle=bundle, side_effects=side_effects, context=context):
            result = ra if result is None else result.merge(ra)
        return result or RiskAssessment("high", ("no risk scorer is active: assuming the worst",))

    def judge_intent(self, bundle: SkillBundle, side_effects: SideEffects, context: ScanContext) -> IntentVerdict | None:
        """The first plugin's verdict (``firstresult``), checked and blamed on the plugin that returned it."""
        from .records import IntentVerdict

        for plugin, caller in self._callers("nervous_judge_intent"):
            verdict = self._hook("nervous_judge_intent", caller, bundle=bundle, side_effects=side_effects,
                                 context=context, manager=self)
            if verdict is None:
                continue
            if not isinstance(verdict, IntentVerdict):
                raise _wrong_result(plugin, "nervous_judge_intent", verdict, "a nervous.IntentVerdict record or None")
            return verdict
        return None

    def hard_stop_terms(self) -> dict[str, list[str]]:
        merged: dict[str, list[str]] = {}
        what = "a table of category -> list of strings"
        for plugin, answers in self._per_plugin("nervous_hard_stop_terms"):
            for terms in answers:
                if not isinstance(terms, dict) or not all(
                        isinstance(c, str) and isinstance(ws, (list, tuple)) and all(isinstance(w, str) for w in ws)
                        for c, ws in terms.items()):
                    raise _wrong_result(plugin, "nervous_hard_stop_terms", terms, what)
                for category, words in terms.items():
                    bucket = merged.setdefault(category, [])
                    bucket.extend(w for w in words if w not in bucket)
        return merged

    def emit(self, kind: str, data: dict[str, Any] | None = None, *, source: str = "nervous") -> list[str]:
        """Broadcast a lifecycle event. Observer failures are returned as warnings, never raised."""
        from .clock import utc_timestamp
        from .records import Event

        event = Event(kind=kind, at=utc_timestamp(), data=dict(data or {}), source=source)
        warnings = []
        for _name, caller in self._callers("nervous_event"):  # one failure does not silence the others
            try:
                self._hook("nervous_event", caller, event=event, manager=self)
            except PluginError as exc:
                warnings.append(exc.message)
        return warnings

    def close(self) -> None:
        for inst in self._instances.values():
            closer = getattr(inst, "close", None)
            if callable(closer):
                try:
                    closer()
                except Exception:
                    pass
        self._instances.clear()


def _describe(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text[:60] + '...' if len(text) > 60 else text}"


def _wrong_result(plugin: str, hook_name: str, value: Any, what: str) -> PluginError:
    return PluginError(f"plugin {plugin!r} returned {_describe(value)} from {hook_name}; expected {what} "
                       f"(disable it with -p no:{plugin})", plugin=plugin)


@contextlib.contextmanager
def _quiet_stdout() -> Iterator[None]:
    """A plugin that prints while loading must not corrupt ``--json`` output or the MCP stream."""
    with contextlib.redirect_stdout(sys.stderr):
        yield


def _version() -> str:
    from .. import __version__

    return __version__


def get_plugin_manager(config: Config | None = None, **kw: Any) -> PluginManager:
    """Build a plugin manager for ``config`` (loaded from the usual layers when omitted)."""
    if config is None:
        from .config import load_config

        config = load_config()
    return PluginManager(config, **kw)


__all__ = ["PluginManager", "PluginInfo", "BUILTIN_PLUGINS", "get_plugin_manager"]
