"""Every CLI command and every MCP tool, driven with a generated corpus of hostile values.

For each call: a documented exit code (never 70 "internal error"), exactly one JSON envelope with
``--json``, stored state unchanged when the call fails, the decoy files untouched, and bounded time
(and, for the whole run, bounded memory). The CLI runs in this process through the same entry
point as the installed command, so the suite stays fast.
"""

from __future__ import annotations

import json
import resource
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest

from nervous.frontends.cli import main

from .clirun import DOCUMENTED, run, tree, unchanged
from .corpus import json_values, make_decoys, path_values, text_values

#: commands not driven here: the stdio server reads this process's real standard input (the
#: MCP tools are driven below, and the server's transport in test_limits.py)
SKIP = {("mcp",)}
PER_CALL_SECONDS = 15.0


def _commands() -> Iterator[tuple[tuple[str, ...], click.Command]]:
    def walk(group: click.Group, prefix: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], click.Command]]:
        ctx = click.Context(group)
        for name in group.list_commands(ctx):
            cmd = group.get_command(ctx, name)
            assert cmd is not None
            if isinstance(cmd, click.Group):
                yield from walk(cmd, (*prefix, name))
            elif (*prefix, name) not in SKIP:
                yield (*prefix, name), cmd

    yield from walk(main, ())


COMMANDS = list(_commands())


def _invocations(cmd: click.Command, values: list[str]) -> Iterator[list[str]]:
    """Argument lists: every value in every slot at once, then each value in each argument alone."""
    def fill(value: str | None, only: str | None) -> list[str]:
        args: list[str] = []
        for p in cmd.params:
            choice = isinstance(p.type, click.Choice)
            if isinstance(p, click.Argument):
                hostile = value is not None and (only is None or only == p.name)
                if hostile and not choice:
                    args.append(value)  # type: ignore[arg-type]
                else:
                    args.append(str(p.type.choices[0]) if choice else "x")  # type: ignore[attr-defined]
            elif isinstance(p, click.Option) and not p.is_flag:
                opt = max(p.opts, key=len)
                if choice:
                    if p.required:
                        args += [opt, str(p.type.choices[0])]  # type: ignore[attr-defined]
                elif value is not None and only is None:
                    args += [opt, value]
                elif p.required:
                    args += [opt, "1" if isinstance(p.type, click.types.IntParamType) else "x"]
        return args

    for value in values:
        yield fill(value, None)
    arguments = [p.name for p in cmd.params if isinstance(p, click.Argument)]
    for i, value in enumerate(values):
        if arguments:
            yield fill(value, arguments[i % len(arguments)])


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("hostile")
    decoys = root / "decoys"
    make_decoys(decoys)
    (root / "outside").mkdir()
    (root / "outside" / "keep.txt").write_text("outside the working folder\n")
    work = root / "work"
    work.mkdir()
    home = root / "home"
    assert run(home, "report", "seed-skill", "--region", "pdf", "--outcome", "success", "--task", "convert pdf",
               cwd=work).code == 0
    assert run(home, "cortex", "blacklist", "add", "bad-skill", "seeded", cwd=work).code == 0
    return {"root": root, "decoys": decoys, "work": work, "home": home}


def _check_call(arena: dict[str, Path], argv: list[str], wants_json: bool) -> None:
    home, work = arena["home"], arena["work"]
    before = tree(home / "data")
    decoys = tree(arena["decoys"]), tree(arena["root"] / "outside")
    started = time.monotonic()
    res = run(home, *argv, cwd=work)
    elapsed = time.monotonic() - started
    shown = [a if len(a) < 60 else a[:40] + f"…({len(a)})" for a in argv]
    assert res.code in DOCUMENTED, (shown, res.code, res.stdout[-400:], res.stderr[-400:])
    assert "internal error" not in res.stdout + res.stderr, (shown, res.stderr[-400:])
    assert "Traceback" not in res.stderr, (shown, res.stderr[-800:])
    if wants_json:
        data = json.loads(res.stdout)  # exactly one JSON document, nothing else on standard output
        assert isinstance(data, dict) and isinstance(data.get("ok"), bool), (shown, res.stdout[:300])
        assert data["ok"] is (res.code == 0) or res.code == 0 and data["ok"] is True, (shown, res.code, data)
    if res.code != 0:
        after = tree(home / "data")
        assert not unchanged(before, after), ("stored state changed by a failing call", shown,
                                              unchanged(before, after))
        new = sorted(set(after) - set(before) - {"logs/audit.jsonl"})
        assert not new, ("a failing call stored something", shown, new)
    # a folder the user names may receive files; nothing that existed is ever replaced or removed
    for old_tree, root in zip(decoys, (arena["decoys"], arena["root"] / "outside"), strict=True):
        assert not unchanged(old_tree, tree(root)), ("a decoy changed", shown, unchanged(old_tree, tree(root)))
    assert elapsed < PER_CALL_SECONDS, (shown, elapsed)


@pytest.mark.parametrize("path,cmd", COMMANDS, ids=[" ".join(p) for p, _ in COMMANDS])
def test_every_command_with_hostile_values(arena: dict[str, Path], path: tuple[str, ...],
                                           cmd: click.Command) -> None:
    values = text_values() + path_values(arena["decoys"])
    has_json = any(isinstance(p, click.Option) and "--json" in p.opts for p in cmd.params)
    for args in _invocations(cmd, values):
        _check_call(arena, [*path, *args, *(["--json"] if has_json else [])], has_json)


def test_global_options_and_environment_with_hostile_values(arena: dict[str, Path]) -> None:
    for value in text_values() + path_values(arena["decoys"]):
        _check_call(arena, ["-c", f"cortex.learning_rate={value}", "cortex", "stats", "--json"], True)
        _check_call(arena, ["-c", value, "list", "--json"], True)
        _check_call(arena, ["--config", value, "list", "--json"], True)
        _check_call(arena, ["-p", value, "list", "--json"], True)


def _tool_cases(spec: Any) -> Iterator[dict[str, Any]]:
    props = sorted((spec.input_schema or {}).get("properties", {}))
    values = json_values()
    for value in values:
        yield {p: value for p in props}
    for i, value in enumerate(values):
        for p in props:
            yield {p: value} if i % 2 else {q: ("x" if q != p else value) for q in props}
    yield {"unexpected": "x"}


def test_every_mcp_tool_with_hostile_arguments(arena: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    from nervous import Nervous
    from nervous.frontends.mcp.schema import tool_specs
    from nervous.frontends.mcp.server import ArgumentChecker, encode_result, run_tool

    monkeypatch.chdir(arena["work"])
    home = arena["root"] / "mcp-home"
    with Nervous(home=home, autoload=False, overrides=['registries.use=["local"]']) as nv:
        specs = tool_specs(sorted(nv.manager.providers("registry")))
        checker = ArgumentChecker(specs)
        assert len(specs) >= 8
        for spec in specs:
            for args in _tool_cases(spec):
                before = tree(home / "data")
                started = time.monotonic()
                result, is_error = run_tool(nv, checker, spec.name, args)
                assert time.monotonic() - started < PER_CALL_SECONDS, (spec.name, list(args))
                assert isinstance(result, dict), (spec.name, result)
                _text, result, is_error = encode_result(result, is_error)  # what the server sends
                if is_error:
                    assert result.get("ok") is False, (spec.name, result)
                    code = result["error"]["code"]
                    assert code != "internal", (spec.name, {k: repr(v)[:60] for k, v in args.items()}, result)
                    after = tree(home / "data")
                    assert not unchanged(before, after), ("stored state changed by a failing tool call", spec.name)


def test_memory_stayed_bounded() -> None:
    """After the whole corpus (150 KB arguments, 10 KB names, deep nesting), the process stayed small."""
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    assert peak_mb < 1024, peak_mb
