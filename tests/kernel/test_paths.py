"""Platform folders: platformdirs' answer, remembered between runs and never stale."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = """
import json, sys
from nervous.kernel.paths import Paths
paths = Paths.from_env()
print(json.dumps({"paths": [str(p) for p in (paths.config_dir, paths.data_dir, paths.state_dir, paths.cache_dir)],
                  "imported_platformdirs": "platformdirs" in sys.modules}))
"""

TRUTH = """
import json
from platformdirs import PlatformDirs
d = PlatformDirs("nervous", appauthor=False)
print(json.dumps([d.user_config_dir, d.user_data_dir, d.user_state_dir, d.user_cache_dir]))
"""


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("NERVOUS_", "XDG_")) and k != "HOME"}
    env.update(HOME=str(home), **extra)
    return env


def _run(code: str, env: dict[str, str]) -> object:
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


@pytest.mark.parametrize("extra", [
    {},
    {"XDG_DATA_HOME": "/srv/data", "XDG_CONFIG_HOME": "/srv/config"},
    {"XDG_STATE_HOME": "relative/state", "XDG_CACHE_HOME": ""},
])
def test_the_folders_are_platformdirs_own_first_and_from_the_cache_after(tmp_path: Path, extra: dict[str, str]) -> None:
    env = _env(tmp_path / "home", **extra)
    truth = _run(TRUTH, env)
    first, second = _run(PROBE, env), _run(PROBE, env)
    assert first == {"paths": truth, "imported_platformdirs": True}
    assert second == {"paths": truth, "imported_platformdirs": False}  # remembered: no import


def test_a_changed_variable_is_never_answered_from_the_cache(tmp_path: Path) -> None:
    env = _env(tmp_path / "home", XDG_CACHE_HOME=str(tmp_path / "cache"))
    _run(PROBE, env)
    moved = {**env, "XDG_DATA_HOME": str(tmp_path / "elsewhere")}
    answer = _run(PROBE, moved)
    assert answer == {"paths": _run(TRUTH, moved), "imported_platformdirs": True}
    other_home = {**env, "HOME": str(tmp_path / "other")}
    assert _run(PROBE, other_home)["paths"] == _run(TRUTH, other_home)  # type: ignore[index]


@pytest.mark.parametrize("content", ['{"key": 1', '{"key": "x", "value": ["/a", "/b", "/c", "/d"]}', "[]"])
def test_a_damaged_or_foreign_cache_file_is_replaced(tmp_path: Path, content: str) -> None:
    env = _env(tmp_path / "home", XDG_CACHE_HOME=str(tmp_path / "cache"))
    truth = _run(TRUTH, env)
    _run(PROBE, env)
    (cache,) = (tmp_path / "cache" / "nervous").glob("platform-folders-*.json")
    cache.write_text(content, encoding="utf-8")
    assert _run(PROBE, env) == {"paths": truth, "imported_platformdirs": True}
    assert _run(PROBE, env) == {"paths": truth, "imported_platformdirs": False}


def test_tampered_folders_in_a_current_cache_are_refused(tmp_path: Path) -> None:
    env = _env(tmp_path / "home", XDG_CACHE_HOME=str(tmp_path / "cache"))
    truth = _run(TRUTH, env)
    _run(PROBE, env)
    (cache,) = (tmp_path / "cache" / "nervous").glob("platform-folders-*.json")
    data = json.loads(cache.read_text(encoding="utf-8"))
    data["value"] = ["relative", *data["value"][1:]]
    cache.write_text(json.dumps(data), encoding="utf-8")
    assert _run(PROBE, env) == {"paths": truth, "imported_platformdirs": True}


def test_without_a_writable_cache_folder_or_with_the_cache_off_platformdirs_answers(tmp_path: Path) -> None:
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("", encoding="utf-8")
    env = _env(tmp_path / "home", XDG_CACHE_HOME=str(blocked))
    truth = _run(TRUTH, env)
    assert _run(PROBE, env) == {"paths": truth, "imported_platformdirs": True}
    off = _env(tmp_path / "home2", XDG_CACHE_HOME=str(tmp_path / "cache2"), NERVOUS_NO_ENTRY_POINT_CACHE="1")
    assert _run(PROBE, off) == {"paths": _run(TRUTH, off), "imported_platformdirs": True}
    assert not (tmp_path / "cache2").exists()
