"""Bounded work for any input: task text, arguments and MCP requests have limits with clear errors."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from nervous import Nervous
from nervous.engines.cortex.entities import TaskText
from nervous.errors import BadInput

from .clirun import run


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def test_task_text_cap_through_cli_and_api(home: Path) -> None:
    long_task = "count words " * 2_000
    res = run(home, "perceive", long_task, "--json")
    assert res.code == 2 and res.envelope()["error"]["code"] == "too_large"
    res = run(home, "report", "x", "--region", "y", "--outcome", "success", "--task", long_task, "--json")
    assert res.code == 2 and res.envelope()["error"]["code"] == "too_large"
    nv = Nervous(home=home, autoload=False, overrides=['registries.use=["local"]'])
    started = time.monotonic()
    with pytest.raises(BadInput, match="at most 20,000"):
        nv.acquire("count words " * 10_000)
    assert time.monotonic() - started < 5
    assert not (home / "data").exists()  # refused before anything was stored


def test_argument_cap(home: Path) -> None:
    res = run(home, "search", "x" * 100_001, "--json")
    assert res.code == 2 and "at most 100,000" in res.envelope()["error"]["message"]


def test_search_query_cap_through_cli_and_api(home: Path) -> None:
    """A query names what a skill does; a longer one is refused before any registry is asked."""
    query = "word " * 400  # 2,000 characters: under the argument cap, over the query cap
    res = run(home, "search", query, "--json")
    assert res.code == 2
    error = res.envelope()["error"]
    assert error["code"] == "too_large" and "at most 1,000" in error["message"]
    nv = Nervous(home=home, autoload=False, overrides=['registries.use=["local"]'])
    with pytest.raises(BadInput, match="at most 1,000") as caught:
        nv.search(query)
    assert caught.value.details == {"length": 2_000, "limit": 1_000}
    assert nv.search("word " * 199 + "word").query.startswith("word")  # 999 characters: asked


def _reference_evidence(task: TaskText, word: str) -> str | None:
    """The direct reading of spec §5 F5 (quadratic over many words): the indexed version must agree."""
    from nervous.engines.cortex.entities import stem_equal
    from nervous.kernel.cortex.wordlists import words

    for tok in task.plain:
        if not stem_equal(tok.lower, word):
            continue
        if tok.possessive:
            return "F5d"
        if task.no_lowercase:
            continue
        letters = [c for c in tok.text if c.isalpha()]
        if len(letters) >= 2 and all(c.isupper() for c in letters):
            return "F5b"
        if any(c.isupper() for c in tok.text[1:]):
            return "F5c"
        if tok.text[:1].isupper() and not tok.sentence_start:
            return "F5a"
    if task.no_lowercase and word not in words("vocabulary"):
        return "F5"
    for compound in task.compounds:
        start = compound.find(word)
        while start != -1:
            end = start + len(word)
            if (start == 0 or not compound[start - 1].isalpha()) and (
                    end == len(compound) or not compound[end].isalpha()):
                return "F5e"
            start = compound.find(word, start + 1)
    return None


def test_indexed_perception_agrees_with_the_rules() -> None:
    import random

    rng = random.Random(17)
    pieces = ["pdf", "PDF", "Alice", "alice's", "report", "reports", "McDonald", "e-mail", "x1-e-mail",
              "GitHub-Actions", "github", "actions.", "Reporting", "data2go", "go", "über", "Über-cool", "ab-cd",
              "ab-cd-ef", "(ab-cd)", "-", "1.", "Émile", "NASA", "the", "convert", "converting", "converted"]
    for _ in range(300):
        text = " ".join(rng.choice(pieces) for _ in range(rng.randint(1, 25)))
        if rng.random() < 0.2:
            text = text.upper()
        task = TaskText(text)
        for word in {t.lower for t in task.tokens} | {"pdf", "e-mail", "ab-cd", "report", "go", "cool"}:
            assert task.proper_noun_evidence(word) == _reference_evidence(task, word), (text, word)


def _mcp_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NERVOUS_")}
    env.update(NERVOUS_HOME=str(home), NERVOUS_DISABLE_PLUGIN_AUTOLOAD="1", NERVOUS_REGISTRIES="local",
               PYTHONUNBUFFERED="1")
    return env


def _rpc(proc: subprocess.Popen[bytes], message: dict[str, object]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(message).encode() + b"\n")
    proc.stdin.flush()


def _answer(proc: subprocess.Popen[bytes], ident: int) -> dict[str, object]:
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline()
        assert line, "the server closed its output"
        data = json.loads(line)
        if data.get("id") == ident:
            return data  # type: ignore[no-any-return]


@contextlib.contextmanager
def mcp_session(home: Path, cwd: Path) -> Iterator[subprocess.Popen[bytes]]:
    """``nervous mcp`` as a child process, past the protocol's initialization; closed (stdin first) at the end."""
    proc = subprocess.Popen([sys.executable, "-m", "nervous", "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=_mcp_env(home), cwd=cwd)
    try:
        _rpc(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                               "clientInfo": {"name": "t", "version": "1"}}})
        _answer(proc, 1)
        _rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        yield proc
    finally:
        if proc.stdin:
            proc.stdin.close()
        proc.wait(timeout=30)
        if proc.stdout:
            proc.stdout.close()


def test_mcp_refuses_a_huge_request_without_growing(home: Path, tmp_path: Path) -> None:
    with mcp_session(home, tmp_path) as proc:
        huge = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                "params": {"name": "perceive", "arguments": {"task": "x" * (10 << 20)}}}
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(huge).encode() + b"\n")
        proc.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/x", "params": "' + b"y" * (3 << 20) + b'"}\n')
        proc.stdin.flush()
        answer = _answer(proc, 7)
        result = answer["result"]
        assert isinstance(result, dict) and result["isError"] is True
        assert result["structuredContent"]["error"]["code"] == "request_too_large"
        _rpc(proc, {"jsonrpc": "2.0", "id": 8, "method": "tools/call",
                    "params": {"name": "perceive", "arguments": {"task": "convert a pdf"}}})
        ok = _answer(proc, 8)["result"]
        assert isinstance(ok, dict) and ok["isError"] is False
        with open(f"/proc/{proc.pid}/status") as fh:
            peak_kb = next(int(line.split()[1]) for line in fh if line.startswith("VmHWM:"))
        assert peak_kb < 200 * 1024, peak_kb  # the 10 MB request was never held (it once grew to 295 MB)
