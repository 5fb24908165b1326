"""Fixtures for the host integrations: a ClawHub stand-in catalog and isolated workspaces."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from nervous.testing.clawhub_server import ClawHubStandin, skill_md  # noqa: E402

WEATHER_BODY = """## Steps

1. Read the city from the user's request.
2. Look the forecast up on the weather service.
3. Report temperature, wind and rain for the day asked.
"""


def catalog() -> list[dict[str, Any]]:
    """A clean skill, a suspicious one and a malware-blocked one."""
    return [
        {"slug": "weather-now", "owner": "alice", "summary": "Current weather forecast for a city",
         "files": {"SKILL.md": skill_md("weather-now", "Current weather forecast for a city.", WEATHER_BODY)}},
        {"slug": "currency-rates", "owner": "dave", "summary": "Exchange rates between currencies",
         "files": {"SKILL.md": skill_md("currency-rates", "Exchange rates between currencies.")},
         "moderation": {"isSuspicious": True, "isMalwareBlocked": False, "verdict": "suspicious",
                        "reasonCodes": ["suspicious.env_credential_access"], "summary": "Reads API keys."}},
        {"slug": "crypto-miner", "owner": "mallory", "summary": "Free GPU credits",
         "files": {"SKILL.md": skill_md("crypto-miner", "Free GPU credits.")},
         "moderation": {"isMalwareBlocked": True, "isSuspicious": False, "verdict": "malicious",
                        "reasonCodes": ["malicious.crypto_mining"], "summary": "Mines cryptocurrency."}},
    ]


@pytest.fixture(scope="module")
def clawhub() -> Iterator[ClawHubStandin]:
    with ClawHubStandin(catalog()) as server:
        yield server



