"""The Python entry point for agent builders: one object over every engine, no CLI needed.

``Nervous`` owns one configuration and one plugin manager and hands out the engines the CLI and
the MCP server use (acquisition, cortex, search, scan, goals, evolver), so a host agent written in
Python gets the same gates, tokens and learning as every other door. Results are the engines'
typed records; each has ``to_json()`` giving what ``--json`` prints.

    from nervous import Nervous

    with Nervous() as nv:
        state = nv.acquire("count the words in report.txt")
        ...  # show state.data["candidates"] to the user, wait for an explicit choice
        state = nv.approve(token)
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import hookimpl
from ..errors import BadInput, NervousError, UsageError
from ..kernel.paths import Paths

if TYPE_CHECKING:
    from ..engines.acquire import Acquirer, AcquireState
    from ..engines.cortex.engine import Cortex
    from ..engines.cortex.results import Perception
    from ..engines.goals import Goals
    from ..engines.scan.engine import ScanReport
    from ..engines.search import SearchResult
    from ..kernel.config import Config
    from ..kernel.manager import PluginManager
    from ..kernel.records import IntentVerdict, ScanContext, SideEffects, SkillBundle


#: ``search(limit=...)``'s range, as the CLI's ``search --limit``
SEARCH_LIMIT_RANGE = (1, 100)


def _kind(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text[:60] + '...' if len(text) > 60 else text}"


def _path_arg(name: str, value: Any, *, optional: bool = False) -> None:
    """Refuse, as :class:`UsageError` naming ``name``, what is not a path (``str`` or ``os.PathLike``)."""
    if value is None and optional:
        return
    if isinstance(value, bytes) or not isinstance(value, (str, os.PathLike)):
        raise UsageError(f"{name}: expected a path (str or os.PathLike){' or None' if optional else ''}, "
                         f"got {_kind(value)}")
    if isinstance(value, str) and not value.strip():
        raise UsageError(f"{name}: expected a path, got an empty string")


def _names_arg(name: str, value: Any) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, (list, tuple)):
        hint = f" (a list: [{value!r}])" if isinstance(value, str) else ""
        raise UsageError(f"{name}: expected a list of names or None, got {_kind(value)}{hint}")
    for item in value:
        if not isinstance(item, str) or not item.strip():
            raise UsageError(f"{name}: expected a list of non-empty names, got an item {_kind(item)}")
    return list(value)


def home_paths(home: str | os.PathLike[str]) -> Paths:
    """Every location under one folder, as ``NERVOUS_HOME`` would give, without touching the environment."""
    root = Path(home).expanduser().absolute()
    return Paths(root / "config", root / "data", root / "state", root / "cache")


class Nervous:
    """nervous for one host agent: configuration, plugins and engines, built on first use.

    ``config``: ``None`` loads the usual layers (user file, project file, environment); a
    :class:`nervous.kernel.config.Config` is used as given; a path names an extra TOML file applied over
    the usual layers. ``home`` keeps configuration, data and state under one folder (like
    ``NERVOUS_HOME``). ``autoload=False`` loads only the built-in plugins. ``intent_judge`` is the
    host's coherence judge as a plain callable ``(bundle, side_effects, context) -> IntentVerdict | None``
    (e.g. backed by its LLM); it is asked before any judge plugin.
    """

    def __init__(self, config: Config | str | os.PathLike[str] | None = None,
                 home: str | os.PathLike[str] | None = None, *, autoload: bool | None = None,
                 overrides: list[str] | tuple[str, ...] = (),
                 intent_judge: Callable[[SkillBundle, SideEffects, ScanContext], IntentVerdict | None] | None = None,
                 ) -> None:
        from ..kernel.config import Config as _Config
        from ..kernel.config import load_config

        _path_arg("home", home, optional=True)
        if autoload is not None and not isinstance(autoload, bool):
            raise UsageError(f"autoload: expected True, False or None, got {_kind(autoload)}")
        if isinstance(overrides, str) or not isinstance(overrides, (list, tuple)):
            raise UsageError(f"overrides: expected a list of 'SECTION.KEY=VALUE' strings, got {_kind(overrides)}")
        for item in overrides:
            if not isinstance(item, str):
                raise UsageError(f"overrides: expected 'SECTION.KEY=VALUE' strings, got an item {_kind(item)}")
        paths = home_paths(home) if home is not None else None
        if isinstance(config, _Config):
            if overrides:
                raise UsageError("overrides apply to loaded configuration; pass a path or None with them")
            if paths is not None:
                config.paths = paths
            self.config: Config = config
        elif config is None or isinstance(config, (str, os.PathLike)):
            files = [] if config is None else [Path(config)]
            for f in files:
                if not f.is_file():
                    raise BadInput(f"configuration file {str(f)!r} does not exist", code="config_error")
            self.config = load_config(paths=paths, files=files, overrides=list(overrides))
        else:
            raise UsageError(f"config: expected None, a Config or a path, got {type(config).__name__}")
        if intent_judge is not None and not callable(intent_judge):
            raise UsageError(f"intent_judge: expected a callable, got {type(intent_judge).__name__}")
        self._autoload = autoload
        self._intent_judge = intent_judge
        self._manager: PluginManager | None = None
        self._acquirer: Acquirer | None = None
        self._goals: Goals | None = None
        self._evolver: Any = None

    @classmethod
    def from_manager(cls, manager: PluginManager) -> Nervous:
        """Wrap an existing plugin manager (and its configuration), e.g. the CLI's."""
        nv = cls(manager.config)
        nv._manager = manager
        return nv

    # ------------------------------------------------------------------ plumbing

    @property
    def manager(self) -> PluginManager:
        """The plugin manager (providers, storage, hooks); built on first use."""
        if self._manager is None:
            from ..kernel.manager import PluginManager

            self._manager = PluginManager(self.config, autoload=self._autoload)
            if self._intent_judge is not None:
                self._manager.register(_CallableJudge(self._intent_judge), "host-intent-judge")
        return self._manager

    @property
    def acquirer(self) -> Acquirer:
        if self._acquirer is None:
            from ..engines.acquire import Acquirer

            self._acquirer = Acquirer(self.manager)
        return self._acquirer

    @property
    def cortex(self) -> Cortex:
        """The skill cortex: learned regions, candidates, lessons, blacklist."""
        return self.acquirer.cortex

    @property
    def goals(self) -> Goals:
        """Durable goals (one method per action, and ``dispatch`` for the single-tool form)."""
        if self._goals is None:
            from ..engines.goals import Goals

            self._goals = Goals(self.manager)
        return self._goals

    @property
    def evolver(self) -> Any:
        """The skill evolver for the configured workspace (``[evolver] workspace``)."""
        if self._evolver is None:
            self._evolver = self.evolver_for(None)
        return self._evolver

    def evolver_for(self, workspace: str | os.PathLike[str] | None) -> Any:
        """An evolver for ``workspace`` (default: the configured one, relative to the working directory)."""
        _path_arg("workspace", workspace, optional=True)
        try:
            from ..engines.evolver import Evolver
        except ImportError:
            raise NervousError("the skill evolver is not available in this build", code="unavailable") from None
        root = Path(workspace if workspace is not None else self.config.evolver.workspace).expanduser()
        return Evolver(self.manager, root if root.is_absolute() else Path.cwd() / root)

    def close(self) -> None:
        """Release storage connections and plugin resources."""
        if self._manager is not None:
            self._manager.close()
        self._manager = None
        self._acquirer = None
        self._goals = None
        self._evolver = None

    def __enter__(self) -> Nervous:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ acquisition loop

    def acquire(self, task: str) -> AcquireState:
        """Perceive the task, search on a miss, vet every candidate; returns tokens to approve."""
        return self.acquirer.start(task)

    def approve(self, token: str, *, confirm_suspicious: bool = False) -> AcquireState:
        """Install the candidate ``token`` names. Call only after the user chose it explicitly."""
        return self.acquirer.approve(token, confirm_suspicious=confirm_suspicious)

    def cancel(self, token: str) -> AcquireState:
        """Cancel the acquisition ``token`` belongs to; what it installed is removed."""
        return self.acquirer.cancel(token)

    def done(self, slug: str, outcome: str | None = None, *, detail: str | None = None,
             session: str | None = None, keep: bool | None = None) -> AcquireState:
        """Report how the acquired skill did (learning, recovery, clean-up); or answer ``keep``."""
        return self.acquirer.done(slug, outcome, detail=detail, session=session, keep=keep)

    def status(self, session: str) -> AcquireState:
        """The current state of an acquisition session."""
        return self.acquirer.status(session)

    def request_install(self, reference: str, *, version: str | None = None,
                        task: str | None = None) -> AcquireState:
        """Vet one named skill and return an approval token for it; nothing is installed yet.

        The token goes through :meth:`approve` like any acquisition, so an explicit install and an
        acquired one share the same gates, single-use tokens, plan and outcome reporting.
        """
        return self.acquirer.request(reference, version=version, task=task)

    # ------------------------------------------------------------------ read-only engines

    def perceive(self, task: str) -> Perception:
        """Route a task to a learned region (hit) or to a search (miss). Writes nothing."""
        return self.cortex.perceive(task)

    def search(self, query: str, *, registries: list[str] | tuple[str, ...] | None = None,
               limit: int = 10) -> SearchResult:
        """Search the configured registries concurrently."""
        from ..engines.search import search

        if not isinstance(query, str) or not query.strip():
            raise UsageError("search needs a non-empty query")
        names = _names_arg("registries", registries)
        low, high = SEARCH_LIMIT_RANGE
        if isinstance(limit, bool) or not isinstance(limit, int) or not low <= limit <= high:
            raise UsageError(f"limit: expected an integer in [{low}, {high}] (hits per registry), got {_kind(limit)}")
        return search(self.manager, query, registries=names, limit=limit)

    def scan(self, target: str | os.PathLike[str], *, version: str | None = None) -> ScanReport:
        """Scan a skill folder, SKILL.md, zip archive or registry reference. Nothing is executed or installed."""
        from ..engines.scan.target import scan_target

        _path_arg("target", target)
        _version_arg(version)
        report: ScanReport = scan_target(self.manager, target, version=version)
        return report

    def load_bundle(self, target: str | os.PathLike[str], *,
                    version: str | None = None) -> tuple[SkillBundle, Any, str | None]:
        """A bundle in memory from a path (folder, SKILL.md, .zip) or a reference fetched from its registry."""
        from ..engines.scan.target import load_scan_target

        _path_arg("target", target)
        _version_arg(version)
        loaded = load_scan_target(self.manager, target, version=version)
        return loaded.bundle, loaded.context, loaded.source


def _version_arg(version: Any) -> None:
    if version is not None and (not isinstance(version, str) or not version.strip()):
        raise UsageError(f"version: expected a version string or None, got {_kind(version)}")


class _CallableJudge:
    """Adapts a host's judge callable to the ``nervous_judge_intent`` hook."""

    def __init__(self, judge: Callable[[SkillBundle, SideEffects, ScanContext], IntentVerdict | None]) -> None:
        self.judge = judge

    @hookimpl
    def nervous_judge_intent(self, bundle: SkillBundle, side_effects: SideEffects,
                             context: ScanContext) -> IntentVerdict | None:
        return self.judge(bundle, side_effects, context)


__all__ = ["Nervous", "home_paths"]
