from __future__ import annotations

from typing import Any

import pytest

from nervous.engines.cortex import Cortex
from nervous.kernel.storage import MemoryStore

NOW = 1_772_649_611.0  # 2026-03-04T18:40:11Z
DAY = 86_400.0


@pytest.fixture
def cortex(nervous_pm: Any) -> Cortex:
    """A cortex over an in-memory store with the built-in plugins and default constants."""
    return Cortex(nervous_pm, MemoryStore())
