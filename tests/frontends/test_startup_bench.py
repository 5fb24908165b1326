"""The start-up benchmark's floor programs run and do what their names say (records included)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest


@pytest.fixture(scope="module")
def startup(load_benchmark: Callable[[str], ModuleType]) -> ModuleType:
    return load_benchmark("startup")


@pytest.mark.parametrize("name", ["floor: + hook call, file reads", "floor: + perceive's 7 record classes"])
def test_a_floor_program_answers_one_json_object(startup: ModuleType, name: str, tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-c", startup.FLOOR[name]], env={"NERVOUS_HOME": str(tmp_path)},
                         capture_output=True, text=True, check=True, cwd=tmp_path)
    assert json.loads(out.stdout) == {"ok": True, "task": "count the words in my report"}


def test_the_records_floor_defines_attrs_classes_of_perceives_shapes(startup: ModuleType, tmp_path: Path) -> None:
    probe = startup.FLOOR["floor: + perceive's 7 record classes"] + (
        "\nimport attrs as _a, sys as _s\n"
        "_s.stderr.write(json.dumps({n: [len(_a.fields(c)), sum(f.default is not _a.NOTHING for f in _a.fields(c))]"
        " for n, c in list(globals().items()) if isinstance(c, type) and _a.has(c)}))\n")
    out = subprocess.run([sys.executable, "-c", probe], env={"NERVOUS_HOME": str(tmp_path)},
                         capture_output=True, text=True, check=True, cwd=tmp_path)
    shapes = json.loads(out.stderr)
    assert shapes == {name: [fields, defaults] for name, fields, defaults, _ in startup.RECORD_SHAPES}


def test_the_shapes_are_those_of_the_records_perceive_builds(startup: ModuleType) -> None:
    import attrs

    from nervous.engines.cortex.entities import FilterResult
    from nervous.engines.cortex.results import Perception
    from nervous.kernel.cortex.matching import MatcherMemory
    from nervous.kernel.durable import LoadResult
    from nervous.kernel.storage import Snapshot
    from nervous.plugin.context import ProviderContext
    from nervous.plugin.provider import Provider

    real = {c.__name__: c for c in (FilterResult, Perception, MatcherMemory, LoadResult, Snapshot, ProviderContext,
                                    Provider)}
    for name, fields, defaults, frozen in startup.RECORD_SHAPES:
        cls = real[name]
        assert len(attrs.fields(cls)) == fields, name
        assert sum(f.default is not attrs.NOTHING for f in attrs.fields(cls)) == defaults, name
        assert (cls.__setattr__ is not object.__setattr__) == frozen, name
