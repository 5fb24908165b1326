"""The Python API refuses wrong argument types and ranges as UsageError naming the argument."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from nervous import Nervous
from nervous.errors import UsageError


@pytest.mark.parametrize("kwargs, name", [({"home": 123}, "home"), ({"overrides": [5]}, "overrides"),
                                          ({"overrides": "cortex.max_regions=3"}, "overrides"),
                                          ({"autoload": "yes"}, "autoload")])
def test_constructor_arguments(kwargs: dict[str, Any], name: str) -> None:
    with pytest.raises(UsageError, match=f"^{name}:"):
        Nervous(**kwargs)


@pytest.mark.parametrize("call, name", [
    (lambda nv: nv.scan(None), "target"), (lambda nv: nv.scan(123), "target"),
    (lambda nv: nv.load_bundle(123), "target"), (lambda nv: nv.evolver_for(5), "workspace"),
    (lambda nv: nv.search("x", registries="local"), "registries"),
    (lambda nv: nv.search("x", registries=[3]), "registries"),
    (lambda nv: nv.search("x", limit="10"), "limit"), (lambda nv: nv.search("x", limit=None), "limit"),
    (lambda nv: nv.search("x", limit=-1), "limit"), (lambda nv: nv.search("x", limit=0), "limit"),
    (lambda nv: nv.search("x", limit=101), "limit"), (lambda nv: nv.search("x", limit=True), "limit"),
])
def test_method_arguments(call: Any, name: str, tmp_path: Path) -> None:
    with Nervous(home=tmp_path / "home", autoload=False) as nv:
        with pytest.raises(UsageError, match=f"^{name}:"):
            call(nv)


def test_good_arguments_still_work(tmp_path: Path) -> None:
    with Nervous(home=tmp_path / "home", autoload=False, overrides=["cortex.max_regions=3"]) as nv:
        assert nv.config.cortex.max_regions == 3
        result = nv.search("x", registries=["local"], limit=100)
        assert [s.registry for s in result.registries] == ["local"]
