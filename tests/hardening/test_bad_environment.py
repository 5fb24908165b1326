"""Inputs that once ended in "internal error" (exit 70) now get a documented code and a clear message."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .clirun import run

LONG = "a" * 10_000
DEEP_JSON = "[" * 100_000 + "]" * 100_000
DEEP_TOML = "a = " + "[" * 5_000 + "]" * 5_000 + "\n"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def _check(res, code: int, needle: str) -> None:  # type: ignore[no-untyped-def]
    assert res.code == code, (res.code, res.stdout[:500], res.stderr[:500])
    env = res.envelope()
    assert env["ok"] is False and needle in env["error"]["message"], env
    assert "internal error" not in res.stdout + res.stderr


@pytest.mark.parametrize("args", [
    ["scan", LONG], ["uninstall", LONG], ["cortex", "export", "/tmp/" + LONG],
    ["cortex", "import", "/tmp/" + LONG], ["goal", "import", "/tmp/" + LONG],
    ["config", "validate", "/tmp/" + LONG], ["--config", "/tmp/" + LONG, "list"],
    ["storage", "migrate", "--to", "sqlite", "--path", "/tmp/" + LONG],
])
def test_ten_kilobyte_arguments(home: Path, args: list[str]) -> None:
    res = run(home, *args, "--json")
    assert res.code == 2, (res.stdout[:300], res.stderr[:300])
    res.envelope()


@pytest.mark.parametrize("variable", ["NERVOUS_HOME", "NERVOUS_SKILLS_DIR"])
@pytest.mark.parametrize("args", [["perceive", "a"], ["list"], ["goal", "list"], ["audit"], ["cortex", "show"],
                                  ["storage", "check"], ["report", "a", "--region", "b", "--outcome", "success"]])
def test_unusable_home_and_data_paths(home: Path, tmp_path: Path, variable: str, args: list[str]) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    for value, needle in ((str(a_file), "Not a directory"), ("/tmp/" + LONG, "File name too long")):
        if variable == "NERVOUS_SKILLS_DIR" and args[0] not in ("list",):
            continue
        env = {variable: value} if variable != "NERVOUS_HOME" else {}
        res = run(Path(value) if variable == "NERVOUS_HOME" else home, *args, "--json", **env)
        if res.code == 0:  # nothing needed the unusable path (a listing of an empty folder)
            assert res.envelope()["ok"] is True
        else:
            _check(res, 2, needle)
    assert a_file.read_text() == "x"


def test_deeply_nested_json_and_toml(home: Path, tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text(DEEP_JSON)
    toml = tmp_path / "deep.toml"
    toml.write_text(DEEP_TOML)
    for args in (["cortex", "import", str(deep)], ["goal", "import", str(deep)], ["config", "validate", str(toml)],
                 ["--config", str(toml), "list"]):
        _check(run(home, *args, "--json"), 2, "nested too deeply")
    res = run(home, "goal", "call", "-", stdin=DEEP_JSON)
    assert res.code in (1, 2) and "internal" not in res.stdout + res.stderr, res.stdout[:300]


def test_nan_and_infinity_are_refused_by_config_validate(home: Path, tmp_path: Path) -> None:
    cfg = tmp_path / "nan.toml"
    cfg.write_text("[cortex]\nreflex_min_weight = nan\n")
    _check(run(home, "config", "validate", str(cfg), "--json"), 2, "finite number")
    for value in ("inf", "-inf", "nan"):
        _check(run(home, "-c", f"cortex.learning_rate={value}", "perceive", "x", "--json"), 2, "finite number")


@pytest.mark.parametrize("setting", ["decay_horizon_days = 0", "decay_horizon_days = -3", "learning_rate = 1.5",
                                     "decay_floor = -0.1", "reflex_min_weight = 2"])
def test_cortex_settings_out_of_range_are_config_errors(home: Path, tmp_path: Path, setting: str) -> None:
    cfg = tmp_path / "cortex.toml"
    cfg.write_text(f"[cortex]\n{setting}\n")
    key = setting.split(" = ")[0]
    _check(run(home, "config", "validate", str(cfg), "--json"), 2, key)
    for args in (("perceive", "x"), ("report", "a", "--region", "r", "--outcome", "success"), ("cortex", "show")):
        _check(run(home, "-c", setting.replace(" = ", "="), *args, "--json"), 2, key)
    assert not (home / "data").exists(), "a call with a bad setting stored something"


def test_scan_of_special_files_and_proc(home: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for target in ("/dev/zero", "/dev/null", str(fifo)):
        _check(run(home, "scan", target, "--json"), 2, "not a regular file")
    res = run(home, "scan", "/proc/self", "--json")
    assert res.code in (1, 2) and "internal" not in res.stdout, res.stdout[:300]
    res.envelope()


def _skill_with_bad_name(folder: Path) -> None:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: bad\ndescription: formats text badly\n---\nx\n")
    with open(os.fsencode(folder) + b"/f\xff.txt", "wb") as fh:
        fh.write(b"x")


def test_non_utf8_file_name_in_a_skill(home: Path, tmp_path: Path) -> None:
    _skill_with_bad_name(tmp_path / "sk" / "bad")
    res = run(home, "scan", str(tmp_path / "sk" / "bad"), "--json")
    assert res.code == 1, res.stdout[:400]
    assert res.envelope()["decision"] == "refuse"
    work = tmp_path / "work"
    _skill_with_bad_name(work / "catalog" / "bad")
    (work / ".nervous.toml").write_text('[plugins.local]\npaths = ["catalog"]\n')
    res = run(home, "install", "bad", "--yes", "--json", cwd=work)
    assert res.code in (1, 2) and "not valid UTF-8" in res.stdout, res.stdout[:400]
    assert not (work / "skills" / "bad").exists()


def test_api_scan_of_a_non_utf8_name_is_a_refusal(tmp_path: Path) -> None:
    from nervous import Nervous

    _skill_with_bad_name(tmp_path / "bad")
    nv = Nervous(home=tmp_path / "home", autoload=False)
    report = nv.scan(tmp_path / "bad")
    assert report.decision == "refuse"


def test_reading_a_pipe_or_device_never_blocks(home: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for target in (str(fifo), "/dev/zero"):
        for args in (["cortex", "import", target], ["goal", "import", target], ["config", "validate", target],
                     ["--config", target, "list"]):
            _check(run(home, *args, "--json"), 2, "not a regular file")


@pytest.mark.parametrize("value", ["nan", "-1", "0", "1e308", "soon"])
def test_registry_refresh_interval_out_of_range_is_a_usage_error(home: Path, tmp_path: Path, value: str) -> None:
    res = run(home, "registry", "serve", "--refresh-interval", value, "--port", "0", "--data", str(tmp_path / "blobs"))
    assert res.code == 2, (res.code, res.stdout[-300:], res.stderr[-300:])
    assert "--refresh-interval" in res.stdout + res.stderr and not (tmp_path / "blobs").exists()
