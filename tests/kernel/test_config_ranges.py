"""Every numeric configuration key has a range, checked at start-up (one table: ``config.RANGES``)."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest

from nervous.errors import ConfigError
from nervous.kernel import config as config_mod
from nervous.kernel.config import RANGES, Config, load_config


def test_every_numeric_key_has_a_range() -> None:
    hints = typing.get_type_hints(Config)
    uncovered = []
    for section in config_mod.fields(Config):
        if section.name in ("sources", "paths", "origins"):
            continue
        for name, tp in typing.get_type_hints(hints[section.name]).items():
            if tp in (int, float):
                key = f"{section.name}.{name}"
                if key not in RANGES and name not in config_mod._UNIT_KEYS:
                    uncovered.append(key)
    assert uncovered == []
    config_mod._check_values(Config())  # the defaults are in range


@pytest.mark.parametrize("override", [
    "cortex.max_regions=-1", "cortex.max_regions=0", "cortex.max_lessons=-1", "cortex.max_candidates_per_region=-1",
    "cortex.search_limit=-1", "cortex.search_limit=0", "cortex.search_limit=101", "cortex.max_search_candidates=0",
    "cortex.signals_per_task=-1", "cortex.recent_times_cap=0", "cortex.recent_times_cap=1000000", "cortex.api_retry_delay=-1",
    "cortex.api_retry_delay=1e308", "cortex.retention_max_chars=-5", "cortex.recent_window=-1",
    "cortex.reflex_min_consecutive=-1", "registries.timeout=1e12", "registries.timeout=1e308",
    "storage.lock_timeout=1e308", "review.intent_timeout=1e308", "review.intent_timeout=0",
    "install.max_files=-1", "cortex.decay_horizon_days=0",
])
def test_out_of_range_values_are_refused_naming_the_key(override: str, tmp_path: Path) -> None:
    key = override.split("=")[0]
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        load_config(cwd=tmp_path, environ={"NERVOUS_HOME": str(tmp_path / "home")}, overrides=[override])


@pytest.mark.parametrize("override", ["cortex.max_lessons=0", "cortex.max_switches=0", "cortex.api_retry_delay=0",
                                      "registries.timeout=86400", "cortex.search_limit=100",
                                      "cortex.recent_times_cap=10000"])
def test_edges_of_the_ranges_are_accepted(override: str, tmp_path: Path) -> None:
    load_config(cwd=tmp_path, environ={"NERVOUS_HOME": str(tmp_path / "home")}, overrides=[override])


def test_negative_max_regions_is_refused_before_prune(nervous_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    res = nervous_cli("-c", "cortex.max_regions=-1", "cortex", "prune", "--json")
    assert res.exit_code == 2, res.stdout
    import json

    err = json.loads(res.stdout)["error"]
    assert err["code"] == "config_error" and "cortex.max_regions" in err["message"]
    res = nervous_cli("-c", "registries.timeout=1e308", "config", "validate", "--json")
    assert res.exit_code == 2 and "registries.timeout" in json.loads(res.stdout)["error"]["message"]
