"""Where nervous keeps its files: platformdirs locations, or everything under ``NERVOUS_HOME``."""

from __future__ import annotations

import os
from pathlib import Path

from attrs import frozen

APP = "nervous"


@frozen
class Paths:
    config_dir: Path
    data_dir: Path
    state_dir: Path
    cache_dir: Path

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
