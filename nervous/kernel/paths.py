"""Where nervous keeps its files: platformdirs locations, or everything under ``NERVOUS_HOME``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

APP = "nervous"


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
        from platformdirs import PlatformDirs

        dirs = PlatformDirs(APP, appauthor=False)
        return cls(
            Path(dirs.user_config_dir),
            Path(dirs.user_data_dir),
            Path(dirs.user_state_dir),
            Path(dirs.user_cache_dir),
        )

    @property
    def user_config_file(self) -> Path:
        return self.config_dir / "nervous.toml"
