"""Layered TOML configuration.

Precedence (later wins): built-in defaults < user file (``<config dir>/nervous.toml``) < project
file (``.nervous.toml``, or ``[tool.nervous]`` in ``pyproject.toml``) < environment < CLI flags
(``--config FILE`` and ``-c section.key=value``). Every layer is validated on its own, so an error
names the file (or variable, or flag), the key path and what was expected.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import UnionType
from typing import Any, TypeVar, Union, get_args, get_origin, get_type_hints

from ..errors import ConfigError
from .paths import Paths

# --------------------------------------------------------------------------------------------
# Records (read on every start-up, so not attrs classes: generating attrs methods for the ten
# sections cost more than the rest of loading the configuration)
# --------------------------------------------------------------------------------------------


class _Factory:
    __slots__ = ("factory",)

    def __init__(self, factory: Any) -> None:
        self.factory = factory


def Factory(factory: Any) -> Any:  # noqa: N802 - spelled like attrs' Factory
    """A field default made fresh for each instance (``Factory(list)``), as in attrs."""
    return _Factory(factory)


class Field:
    """One field of a configuration record, in declaration order."""

    __slots__ = ("name", "default", "eq")

    def __init__(self, name: str, default: Any, eq: bool = True) -> None:
        self.name, self.default, self.eq = name, default, eq

    @property
    def init(self) -> bool:
        return True


def field(*, default: Any = None, factory: Any = None, eq: bool = True) -> Any:
    """A field with options (only ``eq=False`` is used: kept out of comparisons)."""
    return _FieldSpec(_Factory(factory) if factory is not None else default, eq)


class _FieldSpec:
    __slots__ = ("default", "eq")

    def __init__(self, default: Any, eq: bool) -> None:
        self.default, self.eq = default, eq


class _Record:
    """Base of the configuration records: keyword or positional ``__init__``, ``repr``, ``==``, slots."""

    __slots__ = ()
    _config_fields: tuple[Field, ...] = ()
    __hash__ = None  # type: ignore[assignment]  # mutable, like an attrs ``@define`` class

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        cls = type(self)
        if len(args) > len(cls._config_fields):
            raise TypeError(f"{cls.__name__}() takes at most {len(cls._config_fields)} positional arguments")
        for f, value in zip(cls._config_fields, args, strict=False):
            if f.name in kwargs:
                raise TypeError(f"{cls.__name__}() got multiple values for argument {f.name!r}")
            kwargs[f.name] = value
        for f in cls._config_fields:
            if f.name in kwargs:
                value = kwargs.pop(f.name)
            elif isinstance(f.default, _Factory):
                value = f.default.factory()
            else:
                value = f.default
            object.__setattr__(self, f.name, value)
        if kwargs:
            raise TypeError(f"{cls.__name__}() got an unexpected keyword argument {next(iter(kwargs))!r}")

    def __repr__(self) -> str:
        inner = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in type(self)._config_fields)
        return f"{type(self).__qualname__}({inner})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(getattr(self, f.name) == getattr(other, f.name) for f in type(self)._config_fields if f.eq)

    def __ne__(self, other: object) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result


def define(cls: type[_T]) -> type[_T]:
    """Turn a class with annotated defaults into a slotted :class:`_Record` (a small part of attrs' ``define``)."""
    found = []
    for name in cls.__dict__.get("__annotations__", {}):
        value = cls.__dict__.get(name, _MISSING)
        if value is _MISSING:
            raise TypeError(f"{cls.__name__}.{name}: configuration fields need a default")
        if isinstance(value, _FieldSpec):
            found.append(Field(name, value.default, value.eq))
        else:
            found.append(Field(name, value))
    body = {k: v for k, v in cls.__dict__.items() if k not in {f.name for f in found} | {"__dict__", "__weakref__"}}
    body["__slots__"] = tuple(f.name for f in found)
    body["_config_fields"] = tuple(found)
    return type(cls.__name__, (_Record,), body)  # type: ignore[return-value]


_MISSING = object()
_T = TypeVar("_T")


def fields(cls: type) -> tuple[Field, ...]:
    """The fields of a configuration record class, in declaration order."""
    return cls._config_fields  # type: ignore[attr-defined, no-any-return]


def has(cls: Any) -> bool:
    """Whether ``cls`` is a configuration record class."""
    return isinstance(cls, type) and issubclass(cls, _Record)


def asdict(record: Any, filter: Any = None) -> dict[str, Any]:  # noqa: A002 - attrs' name
    """A record as plain dicts and lists (nested records too); ``filter(field, value)`` drops fields."""
    out = {}
    for f in type(record)._config_fields:
        value = getattr(record, f.name)
        if filter is None or filter(f, value):
            out[f.name] = _plain(value)
    return out


def _plain(value: Any) -> Any:
    if isinstance(value, _Record):
        return asdict(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_plain(v) for v in value]
    return value


def evolve(record: Any, **changes: Any) -> Any:
    """A copy of ``record`` with ``changes`` (like ``attrs.evolve``)."""
    values = {f.name: getattr(record, f.name) for f in type(record)._config_fields}
    values.update(changes)
    return type(record)(**values)

# --------------------------------------------------------------------------------------------
# Sections
# --------------------------------------------------------------------------------------------


@define
class NamedRegistryConfig:
    """A ``[registries.<name>]`` table: one more registry of a protocol provider, with its own URL and token."""

    #: the registry provider that speaks its protocol (``clawhub``)
    provider: str = "clawhub"
    #: API base URL (no discovery)
    url: str | None = None
    #: site to discover the API base from (``/.well-known/clawhub.json``) when ``url`` is not set
    site: str | None = None
    #: bearer token; prefer ``token_env`` so the token stays out of files
    token: str | None = None
    #: name of an environment variable holding the token
    token_env: str | None = None


@define
class RegistriesConfig:
    #: registry provider names, queried in this order ("ClawHub first")
    use: list[str] = Factory(lambda: ["clawhub", "github"])
    #: per-registry time-out for a search fan-out, seconds
    timeout: float = 10.0
    #: ``[registries.<name>]`` tables (e.g. a team registry before the public one)
    named: dict[str, NamedRegistryConfig] = Factory(dict)


@define
class StorageConfig:
    backend: str = "file"
    #: file / sqlite location; default: under the user data dir
    path: str | None = None
    #: postgres connection string (or NERVOUS_POSTGRES_DSN)
    dsn: str | None = None
    #: seconds to wait for a lock before ``storage_busy``
    lock_timeout: float = 5.0


@define
class InstallConfig:
    target: str = "skills-dir"
    #: the skills directory, relative to the working directory (like the clawhub CLI)
    dir: str = "skills"
    max_total_bytes: int = 50 * 1024 * 1024
    max_files: int = 500
    max_file_bytes: int = 10 * 1024 * 1024
    max_compression_ratio: float = 100.0


@define
class ReviewConfig:
    policy: str = "default"
    #: an intent judge program (argv), e.g. a host's LLM wrapper: reads a ``nervous.intent-request.v1``
    #: document on stdin, prints a verdict (docs/security.md). Only the user's own layers may set it.
    intent_command: list[str] = Factory(list)
    #: seconds the judge program may take; over it, the verdict is ``unknown`` (a concern)
    intent_timeout: float = 60.0
    #: characters of skill text sent to the judge program
    intent_max_chars: int = 60_000


@define
class ApprovalConfig:
    #: "agent": the agent relays the person's answer (a token, --yes); "person": review-level,
    #: suspicious and unverified installs need a confirmation the agent cannot give itself
    mode: str = "agent"


@define
class CortexConfig:
    """The skill cortex's selections and constants (specs/skill-cortex.md §4.1); defaults are the seed's."""

    matcher: str = "lexical"
    ranking_policy: str = "seed"
    initial_weight: float = 0.5
    learning_rate: float = 0.15
    recent_window: int = 604_800
    recent_times_cap: int = 64
    decay_horizon_days: int = 180
    decay_floor: float = 0.3
    failure_factors: dict[str, float] = Factory(
        lambda: {
            "task_mismatch": 0.4,
            "runtime_error": 0.6,
            "auth_error": 0.8,
            "dependency_missing": 0.85,
            "api_error": 0.9,
        }
    )
    phase1_min_effective: float = 0.3
    reflex_min_weight: float = 0.90
    reflex_min_effective: float = 0.90
    reflex_min_consecutive: int = 5
    reflex_min_successes: int = 5
    retention_min_successes: int = 3
    retention_min_weight: float = 0.8
    retention_max_chars: int = 8000
    max_candidates_per_region: int = 5
    max_regions: int = 80
    prune_min_effective: float = 0.1
    max_signals_per_pattern: int = 10
    signals_per_task: int = 4
    max_lessons: int = 30
    lesson_min_confidence: float = 0.3
    lesson_initial_confidence: float = 0.6
    lesson_validate: float = 0.1
    lesson_contradict: float = 0.2
    dependency_warning_threshold: int = 2
    env_ready_threshold: int = 2
    search_limit: int = 10
    max_search_candidates: int = 3
    github_supplement_below: int = 2
    max_switches: int = 2
    api_retry_delay: float = 3.0


@define
class GoalsConfig:
    #: drain policy used when a drain call names none
    default_drain_policy: str = "default"


@define
class EvolverConfig:
    #: workspace root holding ./.skill-evolver/ and ./skills/ (relative to the working directory)
    workspace: str = "."


@define
class PluginsConfig:
    #: plugin names (entry-point or distribution names) never to load
    disable: list[str] = Factory(list)
    #: load third-party plugins from the ``nervous`` entry-point group
    autoload: bool = True
    #: per-plugin settings blocks: ``[plugins.<name>]``
    settings: dict[str, dict[str, Any]] = Factory(dict)


@define
class Config:
    registries: RegistriesConfig = Factory(RegistriesConfig)
    storage: StorageConfig = Factory(StorageConfig)
    install: InstallConfig = Factory(InstallConfig)
    review: ReviewConfig = Factory(ReviewConfig)
    approval: ApprovalConfig = Factory(ApprovalConfig)
    cortex: CortexConfig = Factory(CortexConfig)
    goals: GoalsConfig = Factory(GoalsConfig)
    evolver: EvolverConfig = Factory(EvolverConfig)
    plugins: PluginsConfig = Factory(PluginsConfig)
    #: where each layer came from, lowest first (not part of the file format)
    sources: list[str] = field(factory=list, eq=False)
    paths: Paths | None = field(default=None, eq=False)
    #: ``section.key`` -> the layer that set it last (keys absent here have their default)
    origins: dict[str, str] = field(factory=dict, eq=False)

    def origin(self, key: str) -> str:
        """Which layer set ``section.key`` (``"defaults"`` when none did)."""
        return self.origins.get(key, "defaults")

    def plugin_settings(self, name: str) -> dict[str, Any]:
        """The ``[plugins.<name>]`` block, or an empty dict."""
        return dict(self.plugins.settings.get(name, {}))

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self, filter=lambda a, _v: a.name not in ("sources", "paths", "origins"))
        registries = out["registries"]
        for name, block in registries.pop("named").items():  # shown as [registries.<name>], token masked
            registries[name] = {k: ("***" if k == "token" and v else v) for k, v in block.items() if v is not None}
        plugins = out.pop("plugins")
        settings = plugins.pop("settings")
        out["plugins"] = {**plugins, **settings}
        return out


# --------------------------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------------------------

_SECTIONS = {f.name for f in fields(Config)} - {"sources", "paths", "origins"}
_RESERVED_PLUGIN_KEYS = {"disable", "autoload"}


class _Invalid(Exception):
    def __init__(self, path: str, message: str):
        super().__init__(f"{path}: {message}" if path else message)
        self.path, self.message = path, message


_SCALARS: dict[Any, tuple[tuple[type, ...], str]] = {
    str: ((str,), "a string"),
    int: ((int,), "an integer"),
    float: ((int, float), "a number"),
    bool: ((bool,), "true or false"),
}


def _build(tp: Any, value: Any, path: str) -> Any:
    """Structure ``value`` as ``tp`` (attrs classes, scalars, optionals, lists and dicts), strictly.

    Hand-written rather than a general converter: configuration is read on every start-up.
    """
    origin = get_origin(tp)
    if origin in (Union, UnionType):
        args = [a for a in get_args(tp) if a is not type(None)]
        if value is None and len(args) < len(get_args(tp)):
            return None
        return _build(args[0], value, path)
    if tp in _SCALARS:
        accept, name = _SCALARS[tp]
        if isinstance(value, bool) and tp is not bool or not isinstance(value, accept):
            raise _Invalid(path, f"expected {name}, got {type(value).__name__} {value!r}")
        if tp is float and value != value or tp is float and value in (float("inf"), float("-inf")):
            raise _Invalid(path, f"expected a finite number, got {value!r}")
        return tp(value)
    if tp is Any:  # free-form plugin settings: any TOML value, but a number must be finite
        _check_finite(value, path)
        return value
    if origin is list:
        if not isinstance(value, list):
            raise _Invalid(path, f"expected a list, got {type(value).__name__} {value!r}")
        (item,) = get_args(tp)
        return [_build(item, v, f"{path}[{i}]") for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, Mapping):
            raise _Invalid(path, f"expected a table, got {type(value).__name__} {value!r}")
        _k, item = get_args(tp)
        return {str(k): _build(item, v, f"{path}.{k}") for k, v in value.items()}
    if has(tp):
        if not isinstance(value, Mapping):
            raise _Invalid(path, f"expected a table, got {type(value).__name__} {value!r}")
        hints = get_type_hints(tp) if value else {}  # evaluating annotations costs start-up time
        known = {f.name for f in fields(tp) if f.init}
        unknown = sorted(set(value) - known)
        if unknown:
            expected = ", ".join(sorted(known - {"sources", "paths", "origins"}))
            raise _Invalid(path, f"unknown key(s) {', '.join(unknown)}; expected one of: {expected}")
        kwargs = {k: _build(hints[k], v, f"{path}.{k}" if path else k) for k, v in value.items()}
        return tp(**kwargs)
    raise _Invalid(path, f"unsupported type {tp!r}")


def _check_finite(value: Any, path: str) -> None:
    if isinstance(value, float) and not math.isfinite(value):
        raise _Invalid(path, f"expected a finite number, got {value!r}")
    if isinstance(value, Mapping):
        for k, v in value.items():
            _check_finite(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _check_finite(v, f"{path}[{i}]")


def _prepare(raw: Mapping[str, Any]) -> dict[str, Any]:
    """Move ``[plugins.<name>]`` tables into ``plugins.settings`` and ``[registries.<name>]`` into ``named``."""
    data = dict(raw)
    registries = data.get("registries")
    if isinstance(registries, Mapping):
        registries = dict(registries)
        if "named" in registries and not isinstance(registries["named"], Mapping):
            data["registries"] = registries  # left as written: building it names the wrong type
            return _prepare_plugins(data)
        named = dict(registries.get("named") or {})
        for key in [k for k, v in registries.items() if isinstance(v, Mapping) and k != "named"]:
            named[key] = registries.pop(key)
        if named:
            registries["named"] = named
        data["registries"] = registries
    return _prepare_plugins(data)


def _prepare_plugins(data: dict[str, Any]) -> dict[str, Any]:
    plugins = data.get("plugins")
    if isinstance(plugins, Mapping):
        plugins = dict(plugins)
        settings = {k: plugins.pop(k) for k in list(plugins) if k not in _RESERVED_PLUGIN_KEYS}
        plugins["settings"] = settings
        data["plugins"] = plugins
    return data


def validate_layer(raw: Mapping[str, Any], where: str) -> None:
    """Raise :class:`ConfigError` naming ``where`` and the key path if ``raw`` is not valid."""
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{where}: expected a table of sections")
    unknown = sorted(set(raw) - _SECTIONS)
    if unknown:
        raise ConfigError(
            f"{where}: unknown section(s) {', '.join(unknown)}; expected one of {', '.join(sorted(_SECTIONS))}"
        )
    data = _prepare(raw)
    for section, value in data.items():
        if not isinstance(value, Mapping):
            raise ConfigError(f"{where}: [{section}] must be a table, got {type(value).__name__}")
        if section == "plugins":
            for name, block in value.get("settings", {}).items():
                if not isinstance(block, Mapping):
                    raise ConfigError(f"{where}: plugins.{name} must be a table, got {type(block).__name__}")
    try:
        structure(data)
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc.message}") from None


def structure(data: Mapping[str, Any]) -> Config:
    """Build a :class:`Config` from a merged mapping; :class:`ConfigError` names the key path."""
    try:
        cfg: Config = _build(Config, dict(data), "")
    except _Invalid as exc:
        where = exc.path.replace("plugins.settings.", "plugins.")
        raise ConfigError(f"{where}: {exc.message}" if where else exc.message) from None
    _check_values(cfg)
    return cfg


#: the longest time-out or delay a configuration may set, seconds (one day)
MAX_SECONDS = 86_400.0
#: the longest cortex ``recent_window`` (ten years of seconds) and ``decay_horizon_days`` (a century)
_MAX_RECENT_WINDOW = 10 * 366 * 86_400
_MAX_HORIZON_DAYS = 36_600

#: the most success times kept per candidate: each is stored with it and read by every report
MAX_RECENT_TIMES = 10_000

#: ``section.key`` -> (lowest, highest, whether the lowest itself is allowed, what the value is).
#: One table for every numeric key: counts have a sensible minimum (a limit of 0 or below would make
#: pruning delete everything), durations a documented range (a huge time-out overflows later).
#: Keys of ``[0, 1]`` (weights, confidences, failure factors) are checked in :func:`_check_values`.
RANGES: dict[str, tuple[float, float | None, bool, str]] = {
    "registries.timeout": (0, MAX_SECONDS, False, "seconds"),
    "storage.lock_timeout": (0, MAX_SECONDS, False, "seconds"),
    "review.intent_timeout": (0, MAX_SECONDS, False, "seconds"),
    "review.intent_max_chars": (1, None, True, "a count"),
    "install.max_total_bytes": (1, None, True, "a size in bytes"),
    "install.max_files": (1, None, True, "a count"),
    "install.max_file_bytes": (1, None, True, "a size in bytes"),
    "install.max_compression_ratio": (0, 1e9, False, "a ratio"),
    "cortex.recent_window": (1, _MAX_RECENT_WINDOW, True, "seconds"),
    "cortex.recent_times_cap": (1, MAX_RECENT_TIMES, True, "a count"),
    "cortex.decay_horizon_days": (1, _MAX_HORIZON_DAYS, True, "days"),
    "cortex.reflex_min_consecutive": (1, None, True, "a count"),
    "cortex.reflex_min_successes": (1, None, True, "a count"),
    "cortex.retention_min_successes": (1, None, True, "a count"),
    "cortex.retention_max_chars": (1, None, True, "a count of characters"),
    "cortex.max_candidates_per_region": (1, None, True, "a count"),
    "cortex.max_regions": (1, None, True, "a count"),
    "cortex.max_signals_per_pattern": (1, None, True, "a count"),
    "cortex.signals_per_task": (1, None, True, "a count"),
    "cortex.max_lessons": (0, None, True, "a count"),
    "cortex.dependency_warning_threshold": (1, None, True, "a count"),
    "cortex.env_ready_threshold": (1, None, True, "a count"),
    "cortex.search_limit": (1, 100, True, "a count (as search --limit)"),
    "cortex.max_search_candidates": (1, None, True, "a count"),
    "cortex.github_supplement_below": (0, None, True, "a count"),
    "cortex.max_switches": (0, None, True, "a count"),
    "cortex.api_retry_delay": (0, MAX_SECONDS, True, "seconds"),
}

#: cortex keys that are weights or confidences, in ``[0, 1]``
_UNIT_KEYS = ("initial_weight", "learning_rate", "decay_floor", "phase1_min_effective", "reflex_min_weight",
              "reflex_min_effective", "retention_min_weight", "prune_min_effective", "lesson_min_confidence",
              "lesson_initial_confidence", "lesson_validate", "lesson_contradict")


def _range_text(low: float, high: float | None, inclusive: bool, what: str) -> str:
    if not inclusive and low == 0:
        return f"a positive number ({what})" + (f" at most {high:g}" if high is not None else "")
    if high is None:
        return f"{what} of at least {low:g}"
    return f"{what} from {low:g} to {high:g}"


def _check_values(cfg: Config) -> None:
    for key, (low, high, inclusive, what) in RANGES.items():
        section, name = key.split(".")
        value = getattr(getattr(cfg, section), name)
        if value < low or (not inclusive and value == low) or (high is not None and value > high):
            raise ConfigError(f"{key}: expected {_range_text(low, high, inclusive, what)}, got {value!r}")
    for name, block in cfg.registries.named.items():
        if not re.match(r"^[a-z][a-z0-9_-]{0,63}$", name):
            raise ConfigError(f"registries.{name}: invalid registry name; expected lower-case letters, digits, "
                              "'-' or '_', starting with a letter")
        if block.url is not None and not block.url.startswith(("http://", "https://")):
            raise ConfigError(f"registries.{name}.url: expected an http:// or https:// URL, got {block.url!r}")
    if cfg.review.intent_command and not cfg.review.intent_command[0].strip():
        raise ConfigError("review.intent_command: the program name (first item) is empty")
    if cfg.approval.mode not in ("agent", "person"):
        raise ConfigError(f"approval.mode: expected \"agent\" or \"person\", got {cfg.approval.mode!r}")
    for key, factor in cfg.cortex.failure_factors.items():
        if not 0 <= factor <= 1:
            raise ConfigError(f"cortex.failure_factors.{key}: expected a number in [0, 1], got {factor!r}")
    for key in _UNIT_KEYS:
        value = getattr(cfg.cortex, key)
        if not 0 <= value <= 1:
            raise ConfigError(f"cortex.{key}: expected a number in [0, 1] (a weight or a confidence), got {value!r}")


def _deep_merge(base: dict[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in over.items():
        if isinstance(v, Mapping) and isinstance(out.get(k), Mapping):
            out[k] = _deep_merge(dict(out[k]), v)
        else:
            out[k] = v
    return out


def read_toml(path: Path) -> dict[str, Any]:
    from .durable import read_user_file

    try:
        text = read_user_file(path, limit=1 << 20).decode("utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    import tomllib  # only when there is a file to read (start-up)

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None


def find_project_file(start: Path) -> tuple[Path, dict[str, Any]] | None:
    """The nearest ``.nervous.toml`` or ``pyproject.toml`` with ``[tool.nervous]``, walking up."""
    for d in (start, *start.parents):
        candidate = d / ".nervous.toml"
        if candidate.is_file():
            return candidate, read_toml(candidate)
        pyproject = d / "pyproject.toml"
        if pyproject.is_file():
            section = pyproject_section(read_toml(pyproject), pyproject)
            if section is not None:
                return pyproject, section
    return None


def pyproject_section(data: Mapping[str, Any], path: Path) -> dict[str, Any] | None:
    """The ``[tool.nervous]`` table of a parsed ``pyproject.toml``, or ``None`` when it has none.

    A ``tool`` that is not a table is another tool's mistake, not ours: the file has no nervous table.
    """
    tool = data.get("tool")
    section = tool.get("nervous") if isinstance(tool, Mapping) else None
    if section is None:
        return None
    if not isinstance(section, Mapping):
        raise ConfigError(f"{path}: [tool.nervous] must be a table, got {type(section).__name__}")
    return dict(section)


#: environment variables that override configuration keys
ENV_KEYS: dict[str, tuple[str, str]] = {
    "NERVOUS_REGISTRIES": ("registries", "use"),
    "NERVOUS_STORAGE_BACKEND": ("storage", "backend"),
    "NERVOUS_STORAGE_PATH": ("storage", "path"),
    "NERVOUS_POSTGRES_DSN": ("storage", "dsn"),
    "NERVOUS_SKILLS_DIR": ("install", "dir"),
    "NERVOUS_REVIEW_POLICY": ("review", "policy"),
    "NERVOUS_RANKING_POLICY": ("cortex", "ranking_policy"),
    "NERVOUS_MATCHER": ("cortex", "matcher"),
    "NERVOUS_DISABLE_PLUGINS": ("plugins", "disable"),
    "NERVOUS_INTENT_COMMAND": ("review", "intent_command"),
}
_LIST_KEYS = {("registries", "use"), ("plugins", "disable")}
#: command lines in the environment, split like a POSIX shell would
_ARGV_KEYS = {("review", "intent_command")}
#: keys that name a program to run: never taken from a project file, which arrives with the code
#: one is asked to scan (the same reason git ignores a repository's own hooks)
_USER_ONLY_KEYS = (("review", "intent_command"),)


def _split_argv(var: str, value: str) -> list[str]:
    import shlex

    try:
        return shlex.split(value)
    except ValueError as exc:
        raise ConfigError(f"{var}: not a valid command line ({exc})") from None


def _refuse_user_only(where: str, layer: Mapping[str, Any]) -> None:
    for section, key in _USER_ONLY_KEYS:
        block = layer.get(section)
        if isinstance(block, Mapping) and key in block:
            raise ConfigError(f"{where}: {section}.{key} names a program to run, so a project file may not set "
                              f"it; set it in the user config file, the environment or with --config/-c")


def _env_layer(env: Mapping[str, str]) -> dict[str, Any]:
    layer: dict[str, Any] = {}
    for var, (section, key) in ENV_KEYS.items():
        value = env.get(var)
        if value is None or value == "":
            continue
        parsed: Any = value
        if (section, key) in _LIST_KEYS:
            parsed = [v.strip() for v in value.split(",") if v.strip()]
        elif (section, key) in _ARGV_KEYS:
            parsed = _split_argv(var, value)
        layer.setdefault(section, {})[key] = parsed
    if env.get("NERVOUS_DISABLE_PLUGIN_AUTOLOAD", "").strip() not in ("", "0", "false"):
        layer.setdefault("plugins", {})["autoload"] = False
    return layer


def parse_override(text: str) -> dict[str, Any]:
    """Parse ``section.key=value`` (value in TOML syntax, or a bare string) into a layer."""
    if "=" not in text:
        raise ConfigError(f"-c {text!r}: expected section.key=value")
    path, _, value = text.partition("=")
    keys = [k.strip() for k in path.split(".") if k.strip()]
    if len(keys) < 2:
        raise ConfigError(f"-c {text!r}: expected section.key=value")
    import tomllib

    try:
        parsed = tomllib.loads(f"v = {value}")["v"]
    except tomllib.TOMLDecodeError:
        parsed = value
    layer: dict[str, Any] = {}
    cur = layer
    for k in keys[:-1]:
        cur = cur.setdefault(k, {})
    cur[keys[-1]] = parsed
    return layer


def load_config(
    *,
    paths: Paths | None = None,
    cwd: Path | None = None,
    environ: Mapping[str, str] | None = None,
    files: Sequence[Path] = (),
    overrides: Sequence[str] = (),
) -> Config:
    """Build the effective configuration from every layer."""
    env = os.environ if environ is None else environ
    paths = paths or Paths.from_env(dict(env))
    cwd = cwd or Path.cwd()
    layers: list[tuple[str, dict[str, Any]]] = []
    user = paths.user_config_file
    if user.is_file():
        layers.append((str(user), read_toml(user)))
    found = find_project_file(cwd)
    if found:
        where = f"{found[0]} [tool.nervous]" if found[0].name == "pyproject.toml" else str(found[0])
        _refuse_user_only(where, found[1])
        layers.append((where, found[1]))
    env_layer = _env_layer(env)
    if env_layer:
        layers.append(("environment", env_layer))
    for f in files:
        layers.append((str(f), read_toml(Path(f))))
    for o in overrides:
        layers.append((f"-c {o}", parse_override(o)))
    merged: dict[str, Any] = {}
    origins: dict[str, str] = {}
    for where, layer in layers:
        validate_layer(layer, where)
        merged = _deep_merge(merged, _prepare(layer))
        origins.update(dict.fromkeys(_key_paths(layer), where))
    cfg = structure(merged)
    cfg.sources = ["defaults", *(w for w, _ in layers)]
    cfg.origins = origins
    cfg.paths = paths
    return cfg


def _key_paths(layer: Mapping[str, Any], prefix: str = "") -> list[str]:
    """``section.key`` paths a layer sets (plugin settings blocks down to their own keys)."""
    out = []
    for key, value in layer.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping) and (not prefix or path.startswith("plugins.")):
            out += _key_paths(value, path + ".")
        else:
            out.append(path)
    return out


def flat_items(cfg: Config) -> list[tuple[str, Any, str]]:
    """Every effective ``(section.key, value, layer)``, sorted: what ``config show`` prints."""
    def walk(data: Mapping[str, Any], prefix: str) -> list[tuple[str, Any, str]]:
        out = []
        for key, value in data.items():
            path = f"{prefix}{key}"
            if isinstance(value, Mapping) and value and (not prefix or path.startswith("plugins.")):
                out += walk(value, path + ".")
            else:
                out.append((path, value, cfg.origin(path)))
        return out

    return sorted(walk(cfg.to_dict(), ""))


def dump_json(cfg: Config) -> str:
    return json.dumps(cfg.to_dict(), indent=2, sort_keys=True)


__all__ = ["Config", "load_config", "validate_layer", "read_toml", "parse_override"]
