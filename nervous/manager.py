"""The plugin manager facade: loads plugins, resolves providers, and calls every hook.

Engines call the typed methods here and never ``pm.hook`` directly. Exceptions raised inside a
plugin reach the caller as :class:`PluginError` naming the plugin (the original is chained).
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

import pluggy
from attrs import define, field, frozen

from . import hookspecs
from .config import Config
from .context import ProviderContext
from .errors import PluginError, ProviderError
from .paths import Paths
from .provider import Provider

if TYPE_CHECKING:
    from .records import IntentVerdict, RiskAssessment, ScanContext, SideEffects, SkillBundle

#: Built-in plugins, registered from this explicit list (name, module). They use only the public
#: hookspecs and records and can be blocked like any third-party plugin (``-p no:NAME``).
BUILTIN_PLUGINS: tuple[tuple[str, str], ...] = (
    ("file", "nervous_plugins.builtin.file"),
    ("sqlite", "nervous_plugins.builtin.sqlite"),
    ("postgres", "nervous_plugins.builtin.postgres"),
    ("clawhub", "nervous_plugins.builtin.clawhub"),
    ("github", "nervous_plugins.builtin.github"),
    ("local", "nervous_plugins.builtin.local"),
    ("skills-dir", "nervous_plugins.builtin.skills_dir"),
    ("review-policy", "nervous_plugins.review_policy"),
    ("reports", "nervous_plugins.reports"),
    ("ranking", "nervous_plugins.builtin.ranking"),
    ("lexical", "nervous_plugins.builtin.lexical"),
    ("semantic", "nervous_plugins.builtin.semantic"),
    ("drain-policies", "nervous_plugins.drain_policies"),
    ("audit", "nervous_plugins.audit"),
    ("intent-command", "nervous_plugins.intent_command"),
)

ENTRY_POINT_GROUP = "nervous"
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


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@define
class PluginInfo:
    """One row of ``nervous plugins``."""

    name: str
    source: str  # built-in | entry point | registered
    status: str  # active | blocked | failed
    distribution: str | None = None
    version: str | None = None
    module: str | None = None
    reason: str | None = None
    hooks: list[str] = field(factory=list)


@frozen
class _Impl:
    plugin: str
    function: Callable[..., Any]
    #: the arguments this implementation asks for (pluggy lets it take a subset of the spec's)
    argnames: tuple[str, ...] = ()


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
        self._pm = pluggy.PluginManager("nervous")
        self._pm.add_hookspecs(hookspecs)
        self._infos: dict[str, PluginInfo] = {}
        self._blocked = {_norm(b) for b in (*blocked, *self.config.plugins.disable) if b}
        env_blocked = os.environ.get("NERVOUS_DISABLE_PLUGINS", "")
        self._blocked |= {_norm(b) for b in env_blocked.split(",") if b.strip()}
        self._strict = os.environ.get("NERVOUS_STRICT_PLUGINS", "") not in ("", "0")
        self._providers: dict[str, dict[str, Provider]] = {}
        self._instances: dict[tuple[str, str], Any] = {}
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

    # ---------------------------------------------------------------- loading

    def _is_blocked(self, *names: str | None) -> bool:
        return any(n is not None and _norm(n) in self._blocked for n in names)

    def _load_builtins(self) -> None:
        for name, module in BUILTIN_PLUGINS:
            if self._is_blocked(name):
                self._infos[name] = PluginInfo(name, "built-in", "blocked", "nervous", _version(), module)
                continue
            try:
                mod = importlib.import_module(module)
            except ModuleNotFoundError as exc:
                if exc.name == module:  # not shipped in this build: not an error
                    continue
                self._record_failure(name, "built-in", "nervous", _version(), module, exc)
                continue
            except Exception as exc:
                self._record_failure(name, "built-in", "nervous", _version(), module, exc)
                continue
            self._register(mod, name, "built-in", "nervous", _version(), module)

    def _load_entry_points(self) -> None:
        from .entrypoints import entry_points_for

        for ep in entry_points_for(ENTRY_POINT_GROUP, self.paths.cache_dir):
            dist_name, dist_version = ep.dist, ep.version
            if ep.name in self._infos and self._infos[ep.name].source == "built-in":
                continue
            if self._is_blocked(ep.name, dist_name):
                self._infos[ep.name] = PluginInfo(ep.name, "entry point", "blocked", dist_name, dist_version, ep.value)
                continue
            try:
                plugin = ep.load()
            except Exception as exc:
                self._record_failure(ep.name, "entry point", dist_name, dist_version, ep.value, exc)
                continue
            self._register(plugin, ep.name, "entry point", dist_name, dist_version, ep.value)

    def _record_failure(
        self, name: str, source: str, dist: str | None, version: str | None, module: str, exc: BaseException
    ) -> None:
        reason = f"{type(exc).__name__}: {exc}"
        self._infos[name] = PluginInfo(name, source, "failed", dist, version, module, reason)
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
        if self._strict:
            raise PluginError(f"plugin {name!r}: {exc}", plugin=name) from exc
        try:
            self._pm.check_pending()
        except pluggy.PluginValidationError as again:
            self._fail_validation(again)

    def register(self, plugin: Any, name: str) -> None:
        """Register an in-process plugin (host agents, tests)."""
        if self._is_blocked(name):
            self._infos[name] = PluginInfo(name, "registered", "blocked")
            return
        self._pm.register(plugin, name=name)
        self._pm.check_pending()
        self._infos[name] = PluginInfo(name, "registered", "active", module=getattr(plugin, "__name__", None))
        self._providers.clear()
        self._instances.clear()

    def unregister(self, name: str) -> None:
        self._pm.unregister(name=name)
        self._infos.pop(name, None)
        self._providers.clear()
        self._instances.clear()

    def plugins(self) -> list[PluginInfo]:
        """Every known plugin with its status and the hooks it implements."""
        out = []
        for name, info in self._infos.items():
            plugin = self._pm.get_plugin(name)
            if plugin is not None:
                callers = self._pm.get_hookcallers(plugin) or []
                info.hooks = sorted(c.name for c in callers)
            out.append(info)
        return sorted(out, key=lambda i: (i.source != "built-in", i.name))

    def hook_names(self) -> list[str]:
        return sorted(n for n in dir(hookspecs) if n.startswith("nervous_"))

    # ---------------------------------------------------------------- calling

    def _impls(self, hook_name: str) -> list[_Impl]:
        caller = getattr(self._pm.hook, hook_name)
        # pluggy calls implementations last-registered-first; keep that order
        return [_Impl(impl.plugin_name, impl.function, tuple(impl.argnames))
                for impl in reversed(caller.get_hookimpls())]

    def _call(self, hook_name: str, impl: _Impl, kwargs: dict[str, Any]) -> Any:
        try:
            return impl.function(**{k: v for k, v in kwargs.items() if k in impl.argnames})
        except PluginError:
            raise
        except Exception as exc:
            err = PluginError(
                f"plugin {impl.plugin!r} failed in {hook_name}: {type(exc).__name__}: {exc}"
                f" (disable it with -p no:{impl.plugin})",
                plugin=impl.plugin,
            )
            raise err from exc

    def _each(self, hook_name: str, **kwargs: Any) -> Iterator[tuple[str, Any]]:
        for impl in self._impls(hook_name):
            result = self._call(hook_name, impl, kwargs)
            if result is not None:
                yield impl.plugin, result

    # ---------------------------------------------------------------- providers

    def providers(self, kind: str) -> dict[str, Provider]:
        """All providers of one kind (``"registry"``, ``"storage backend"``...), by name."""
        if kind not in self._providers:
            found: dict[str, Provider] = {}
            for plugin, provs in self._each(PROVIDER_HOOKS[kind]):
                for p in provs:
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

    def create(self, kind: str, name: str) -> Any:
        """Instantiate (once per manager) the named provider of ``kind``."""
        key = (kind, name)
        if key not in self._instances:
            prov = self.provider(kind, name)
            settings = {**self.config.plugin_settings(prov.plugin), **self.config.plugin_settings(name)}
            ctx = ProviderContext(config=self.config, paths=self.paths, manager=self, settings=settings)
            try:
                self._instances[key] = prov.factory(ctx)
            except (PluginError, ProviderError):
                raise
            except Exception as exc:
                from .errors import NervousError

                if isinstance(exc, NervousError):
                    raise
                raise PluginError(
                    f"plugin {prov.plugin!r} could not create {kind} {name!r}: {type(exc).__name__}: {exc}",
                    plugin=prov.plugin,
                ) from exc
        return self._instances[key]

    def check_selection(self) -> dict[str, list[str]]:
        """Resolve every provider the configuration selects; raise :class:`ProviderError` on a bad name.

        Also surfaces duplicate provider names of every kind.
        """
        cfg = self.config
        selected = {
            "registry": list(cfg.registries.use),
            "storage backend": [cfg.storage.backend],
            "install target": [cfg.install.target],
            "review policy": [cfg.review.policy],
            "matcher": [cfg.cortex.matcher],
            "ranking policy": [cfg.cortex.ranking_policy],
        }
        for kind in PROVIDER_HOOKS:
            self.providers(kind)
        for kind, names in selected.items():
            for name in names:
                self.provider(kind, name)
        return selected

    def registries(self, names: Iterable[str] | None = None) -> list[Any]:
        """The configured registries, in order (``[registries] use``)."""
        return [self.create("registry", n) for n in (names or self.config.registries.use)]

    def registry(self, name: str) -> Any:
        return self.create("registry", name)

    def storage(self) -> Any:
        """The configured storage backend (``[storage] backend``), a :class:`nervous.storage.Store`."""
        return self.create("storage backend", self.config.storage.backend)

    def install_target(self) -> Any:
        return self.create("install target", self.config.install.target)

    def review_policy(self) -> Any:
        return self.create("review policy", self.config.review.policy)

    def report_format(self, name: str) -> Callable[[dict[str, Any]], str]:
        return self.create("report format", name)  # type: ignore[no-any-return]

    def matcher(self) -> Any:
        return self.create("matcher", self.config.cortex.matcher)

    def ranking_policy(self, name: str | None = None) -> Any:
        return self.create("ranking policy", name or self.config.cortex.ranking_policy)

    def drain_policy(self, name: str) -> Any:
        return self.create("drain policy", name)

    # ---------------------------------------------------------------- contributions

    def classify(self, bundle: SkillBundle, context: ScanContext) -> SideEffects:
        """Union of every classifier's side effects; with no classifier, assume the worst."""
        from .records import SideEffects

        result: SideEffects | None = None
        for _plugin, se in self._each("nervous_classify", bundle=bundle, context=context):
            result = se if result is None else result.merge(se)
        if result is None:
            return SideEffects(tags=("delete:?", "network:*", "shell:*", "write:?"), flags=("incomplete",),
                               complete=False)
        return result

    def score_risk(self, bundle: SkillBundle, side_effects: SideEffects, context: ScanContext) -> RiskAssessment:
        """The highest contributed risk level, all reasons kept; ``high`` when nobody scores."""
        from .records import RiskAssessment

        result: RiskAssessment | None = None
        for _plugin, ra in self._each("nervous_score_risk", bundle=bundle, side_effects=side_effects,
                                      context=context):
            result = ra if result is None else result.merge(ra)
        return result or RiskAssessment("high", ("no risk scorer is active: assuming the worst",))

    def judge_intent(self, bundle: SkillBundle, side_effects: SideEffects, context: ScanContext) -> IntentVerdict | None:
        for _plugin, verdict in self._each("nervous_judge_intent", bundle=bundle, side_effects=side_effects,
                                           context=context, manager=self):
            return verdict  # type: ignore[no-any-return]
        return None

    def hard_stop_terms(self) -> dict[str, list[str]]:
        merged: dict[str, list[str]] = {}
        for _plugin, terms in self._each("nervous_hard_stop_terms"):
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
        for impl in self._impls("nervous_event"):
            try:
                self._call("nervous_event", impl, {"event": event, "manager": self})
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


def _version() -> str:
    from . import __version__

    return __version__


def get_plugin_manager(config: Config | None = None, **kw: Any) -> PluginManager:
    """Build a plugin manager for ``config`` (loaded from the usual layers when omitted)."""
    if config is None:
        from .config import load_config

        config = load_config()
    return PluginManager(config, **kw)


__all__ = ["PluginManager", "PluginInfo", "BUILTIN_PLUGINS", "get_plugin_manager"]
