"""Where nervous keeps its files: platformdirs locations, or everything under ``NERVOUS_HOME``."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

APP = "nervous"

#: what platformdirs reads, besides the user's identity, to place a user's folders on Unix and macOS
PLATFORM_VARIABLES = ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME")


def _ask_platformdirs() -> list[str]:
    from platformdirs import PlatformDirs

    dirs = PlatformDirs(APP, appauthor=False)
    return [dirs.user_config_dir, dirs.user_data_dir, dirs.user_state_dir, dirs.user_cache_dir]


def platform_folders() -> list[str]:
    """platformdirs' configuration, data, state and cache folders for nervous, remembered between runs.

    Importing platformdirs costs more than the rest of ``nervous --version`` (it loads ``tempfile``,
    ``shutil``, ``random``, ``bz2`` and ``lzma``), and its answer only changes with what it reads: the
    variables of :data:`PLATFORM_VARIABLES`, the user and the installed platformdirs. So on Unix and
    macOS the answer is cached beside the entry points (``entry_points_for``), keyed on those variables,
    the user id and the environment's installs (an upgrade of platformdirs changes the key). Without
    ``HOME`` (the home folder then comes from the password database), on Windows, without a cache
    folder, or with ``NERVOUS_NO_ENTRY_POINT_CACHE`` set, platformdirs is asked every time.
    """
    if sys.platform == "win32" or "HOME" not in os.environ or os.environ.get("NERVOUS_NO_ENTRY_POINT_CACHE"):
        return _ask_platformdirs()
    from .entrypoints import cache_file, environment_key, read_cache, user_cache_dir, write_cache

    cache_dir = user_cache_dir()
    if cache_dir is None:
        return _ask_platformdirs()
    seen = [f"{name}={os.environ[name]}" if name in os.environ else name for name in PLATFORM_VARIABLES]
    key = environment_key("platform-folders", f"uid={os.getuid()}", *seen)
    cache = cache_file(cache_dir, "platform-folders")
    cached = read_cache(cache, key)
    if isinstance(cached, list) and len(cached) == 4 and all(isinstance(p, str) and os.path.isabs(p) for p in cached):
        return cached
    folders = _ask_platformdirs()
    write_cache(cache, key, folders)
    return folders


class Paths:
    """The four locations (immutable; a plain class rather than attrs: it is built on every start-up)."""

    __slots__ = ("config_dir", "data_dir", "state_dir", "cache_dir")
    __match_args__ = ("config_dir", "data_dir", "state_dir", "cache_dir")

    config_dir: Path
    data_dir: Path
    state_dir: Path
    cache_dir: Path

    def __init__(self, config_dir: Path, data_dir: Path, state_dir: Path, cache_dir: Path) -> None:
        for name, value in zip(self.__slots__, (config_dir, data_dir, state_dir, cache_dir), strict=True):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Paths is immutable (cannot set {name!r})")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"Paths is immutable (cannot delete {name!r})")

    def _astuple(self) -> tuple[Path, Path, Path, Path]:
        return (self.config_dir, self.data_dir, self.state_dir, self.cache_dir)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._astuple() == other._astuple()  # type: ignore[attr-defined, no-any-return]

    def __hash__(self) -> int:
        return hash((Paths, *self._astuple()))

    def __repr__(self) -> str:
        return (f"Paths(config_dir={self.config_dir!r}, data_dir={self.data_dir!r}, "
                f"state_dir={self.state_dir!r}, cache_dir={self.cache_dir!r})")

    def __reduce__(self) -> tuple[Any, ...]:
        return (Paths, self._astuple())

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> Paths:
        env = os.environ if environ is None else environ
        home = env.get("NERVOUS_HOME")
        if home:
            root = Path(home).expanduser().absolute()
            return cls(root / "config", root / "data", root / "state", root / "cache")
        return cls(*(Path(p) for p in platform_folders()))

    @property
    def user_config_file(self) -> Path:
        return self.config_dir / "nervous.toml"
