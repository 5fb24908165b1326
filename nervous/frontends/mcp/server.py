"""The MCP server over stdio, built on the official ``mcp`` SDK's low-level server.

Why the low-level server: the tool schemas are written by hand (:mod:`nervous.frontends.mcp.schema`) to be
exact, and results must be the engines' own JSON, so nothing here is generated from signatures.
Arguments are validated against the input schema before any engine runs (the SDK leaves that to
the server); a refused call is a tool error (``isError``) whose structured content carries the
engine's error code. Calls run one at a time in a worker thread, with stray prints sent to stderr
so nothing can corrupt the protocol stream.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import traceback
from typing import Any

from ... import __version__
from .handlers import _evolve_error, _goal_error, call
from .prompts import get_prompt_handler, list_prompts_handler
from .schema import INSTRUCTIONS, ToolSpec, tool_specs


class ArgumentChecker:
    """Compiled input-schema validators, one per tool."""

    def __init__(self, specs: list[ToolSpec]) -> None:
        from jsonschema import Draft202012Validator

        self._validators = {s.name: Draft202012Validator(s.input_schema) for s in specs}

    def problems(self, name: str, args: dict[str, Any]) -> list[str]:
        validator = self._validators.get(name)
        if validator is None:
            return []
        out = []
        for error in sorted(validator.iter_errors(args), key=lambda e: (list(e.absolute_path), e.message)):
            where = error.json_path if error.absolute_path else "arguments"
            message = error.message
            if error.validator == "additionalProperties":
                message = message.replace("Additional properties are not allowed", "unknown argument(s)")
            out.append(f"{where}: {message}")
        return list(dict.fromkeys(out))


def invalid_arguments(name: str, args: dict[str, Any], problems: list[str]) -> dict[str, Any]:
    """The tool error for arguments that do not match the input schema, in the tool's own envelope."""
    selector = args.get("action") if name == "goal" else args.get("operation") if name == "evolve" else None
    prefix = f"{selector}: " if isinstance(selector, str) else ""
    message = f"invalid arguments for {name}: {prefix}" + "; ".join(problems)
    if name == "goal":
        return _goal_error({"ok": False, "action": selector if isinstance(selector, str) else None,
                            "code": "invalid_arg", "message": message})
    if name == "evolve":
        return _evolve_error(selector if isinstance(selector, str) else "", _evolver_code(problems), message)
    return {"ok": False, "error": {"code": "invalid_arg", "message": message}, "warnings": []}


#: evolver argument -> the spec's code for a value outside its vocabulary (specs/evolver.md §13)
_EVOLVER_VALUE_CODES = {"operation": "UNSUPPORTED_OPERATION", "autonomy_mode": "INVALID_MODE",
                        "decision": "INVALID_DECISION", "change_type": "INVALID_CHANGE_TYPE",
                        "risk_level": "INVALID_RISK_LEVEL"}


def _evolver_code(problems: list[str]) -> str:
    """``MISSING_FIELD`` (absent or mistyped), ``UNKNOWN_FIELD``, or a closed vocabulary's code."""
    first = problems[0]
    if first.startswith("arguments: unknown argument(s)"):
        return "UNKNOWN_FIELD"
    for field, code in _EVOLVER_VALUE_CODES.items():
        if first.startswith(f"$.{field}:"):
            return code
    return "MISSING_FIELD"


def run_tool(nv: Any, checker: ArgumentChecker, name: str, args: dict[str, Any],
             ask: Any = None) -> tuple[dict[str, Any], bool]:
    """Validate, then run a tool; stray output goes to stderr. Bugs become ``internal`` tool errors."""
    try:
        problems = checker.problems(name, args)
    except RecursionError:
        problems = ["$: arguments nested too deeply"]
    if problems:
        return invalid_arguments(name, args, problems), True
    with contextlib.redirect_stdout(sys.stderr):
        try:
            return call(nv, name, args, ask)
        except (OSError, RecursionError, UnicodeError, MemoryError) as exc:  # the input or the environment
            from ...errors import input_error

            err = input_error(exc)
            return {"ok": False, "error": err.to_json(), "warnings": []}, True
        except Exception as exc:  # a bug: report it as a tool error and keep serving
            traceback.print_exc(file=sys.stderr)
            message = f"internal error in {name}: {type(exc).__name__}: {exc}"
            return {"ok": False, "error": {"code": "internal", "message": message}, "warnings": []}, True


def encode_result(result: dict[str, Any], is_error: bool) -> tuple[str, dict[str, Any], bool]:
    """The text and structured forms of a tool result; one too deeply nested to send becomes an error."""
    try:
        text = json.dumps(result, ensure_ascii=False, indent=1, default=str)
        structured = json.loads(json.dumps(result, default=str))
    except RecursionError:
        result = {"ok": False, "error": {"code": "too_deep", "message": "the result is nested too deeply to "
                                         "send (an argument with thousands of levels?)"}, "warnings": []}
        return json.dumps(result, indent=1), result, True
    return text, structured, is_error


def build_server(nv: Any) -> Any:
    """An SDK ``Server`` exposing the nervous tools over ``nv`` (a :class:`nervous.frontends.api.Nervous`)."""
    import anyio
    import mcp_types as types
    from mcp.server.lowlevel import Server

    specs = tool_specs(sorted(nv.manager.providers("registry")))
    checker = ArgumentChecker(specs)
    tools = [types.Tool(name=s.name, title=s.title, description=s.description, input_schema=s.input_schema,
                        output_schema=s.output_schema,
                        annotations=types.ToolAnnotations(title=s.title, read_only_hint=s.read_only,
                                                          destructive_hint=s.destructive,
                                                          idempotent_hint=s.idempotent,
                                                          open_world_hint=s.open_world))
             for s in specs]
    lock = anyio.Lock()

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: Any) -> Any:
        args = dict(params.arguments or {})
        if params.name == TOO_LARGE_TOOL:
            result, is_error = too_large(args), True
        else:
            ask = _asker(ctx)
            async with lock:
                result, is_error = await anyio.to_thread.run_sync(run_tool, nv, checker, params.name, args, ask)
        text, structured, is_error = encode_result(result, is_error)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                    structured_content=structured, is_error=is_error)

    return Server("nervous", version=__version__, title="nervous",
                  description="Acquire the skills an agent lacks, safely, and learn from every use.",
                  instructions=INSTRUCTIONS, on_list_tools=list_tools, on_call_tool=call_tool,
                  on_list_prompts=list_prompts_handler(), on_get_prompt=get_prompt_handler())


def _asker(ctx: Any) -> Any:
    """Ask the user through the client (the SDK's form elicitation), or ``None`` when it cannot.

    Called from the worker thread running the tool; the question goes out on the event loop.
    """
    import anyio.from_thread

    caps = getattr(ctx.session, "client_capabilities", None)
    if caps is None or getattr(caps, "elicitation", None) is None:
        return None

    def ask(message: str, schema: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        result = anyio.from_thread.run(ctx.session.elicit_form, message, schema, ctx.request_id)
        return str(result.action), dict(result.content or {})

    return ask


#: the largest JSON-RPC message (one line) the server reads; a longer one is answered with an error
#: and discarded as it arrives, so a huge request costs neither memory nor time
MAX_REQUEST_BYTES = 1 << 20
#: the method name a discarded request is answered through (no tool has this name)
TOO_LARGE_TOOL = "nervous/request-too-large"
_ID = re.compile(rb'"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,18})')


class BoundedLines:
    """Lines of a binary stream for the SDK's reader, each at most ``limit`` bytes.

    An oversized line is skipped in 64 KiB pieces (never held whole) and replaced by a small call
    of :data:`TOO_LARGE_TOOL` carrying the request's id (read from its first 4 KiB), which the
    server answers with a ``request_too_large`` tool error; without an id (a notification) it is
    dropped with a note on stderr. A line that is not a JSON-RPC message is answered here, through
    :attr:`answer` (the SDK's write stream), with the protocol's own error (:func:`rejection`), and
    never reaches the server; blank lines are skipped.
    """

    def __init__(self, raw: Any, limit: int = MAX_REQUEST_BYTES) -> None:
        self.raw = raw
        self.limit = limit
        self.answer: Any = None

    def __aiter__(self) -> BoundedLines:
        return self

    async def __anext__(self) -> str:
        import anyio

        while True:
            line = await anyio.to_thread.run_sync(self.next_line)
            if line is None:
                raise StopAsyncIteration
            if not line.strip():
                continue
            error = rejection(line)
            if error is None:
                return line
            print(f"nervous mcp: {error['error']['message']}", file=sys.stderr)
            if self.answer is not None:
                await self.answer.send(_session_message(error))

    def next_line(self) -> str | None:
        while True:
            data: bytes = self.raw.readline(self.limit + 1)
            if not data:
                return None
            if len(data) <= self.limit or data.endswith(b"\n") and len(data) <= self.limit + 1:
                return data.decode("utf-8", "replace")
            head, size = data[:4096], len(data)
            while not data.endswith(b"\n"):
                data = self.raw.readline(65536)
                if not data:
                    break
                size += len(data)
            found = _ID.search(head)
            print(f"nervous mcp: discarded a {size:,}-byte message (limit {self.limit:,})", file=sys.stderr)
            if found is None:
                continue
            return json.dumps({"jsonrpc": "2.0", "id": json.loads(found.group(1)), "method": "tools/call",
                               "params": {"name": TOO_LARGE_TOOL, "arguments": {"size": size}}}) + "\n"


def rejection(line: str) -> dict[str, Any] | None:
    """The JSON-RPC error answering ``line``, or ``None`` when it is a JSON-RPC message.

    Not JSON: -32700 (parse error). JSON but not a message (an array, a number, a request whose
    method is not a string, ...): -32600 (invalid request), with the request's id when it has a
    usable one. The SDK would only log these, leaving the client waiting for an answer.
    """
    import mcp_types

    try:
        mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        return None
    except ValueError:
        pass
    try:
        data = json.loads(line)
    except ValueError as exc:
        return _error(None, mcp_types.PARSE_ERROR, f"parse error: the message is not JSON ({exc})")
    ident = data.get("id") if isinstance(data, dict) else None
    if isinstance(ident, bool) or not isinstance(ident, (str, int)):
        ident = None
    kind = 'an object without jsonrpc "2.0" and a string method'
    if not isinstance(data, dict):
        kind = {list: "an array", str: "a string", int: "a number", float: "a number", bool: "a boolean"}.get(
            type(data), "null")
    return _error(ident, mcp_types.INVALID_REQUEST, f"invalid request: not a JSON-RPC 2.0 message ({kind})")


def _error(ident: str | int | None, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}


def _session_message(error: dict[str, Any]) -> Any:
    import mcp_types
    from mcp.shared.message import SessionMessage

    return SessionMessage(mcp_types.JSONRPCError.model_validate(error))


def too_large(args: dict[str, Any]) -> dict[str, Any]:
    size = args.get("size")
    return {"ok": False, "error": {"code": "request_too_large",
                                   "message": f"the request was {size:,} bytes; at most {MAX_REQUEST_BYTES:,} "
                                              "are accepted (it was discarded unread)",
                                   "details": {"size": size, "limit": MAX_REQUEST_BYTES}},
            "warnings": []}


def serve_stdio(nv: Any) -> None:
    """Serve until the client closes stdin (requests larger than :data:`MAX_REQUEST_BYTES` are refused)."""
    import anyio
    from mcp.server.stdio import stdio_server

    server = build_server(nv)
    sys.stdout.flush()
    wire_in, wire_out = os.dup(0), os.dup(1)
    # handlers and their children must neither read the requests nor write on the wire
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    raw_in = os.fdopen(wire_in, "rb", buffering=65536)
    out = anyio.wrap_file(open(wire_out, "w", encoding="utf-8", closefd=True))  # noqa: SIM115

    async def main() -> None:
        lines = BoundedLines(raw_in)
        async with stdio_server(stdin=lines, stdout=out) as (read_stream, write_stream):  # type: ignore[arg-type]
            lines.answer = write_stream
            await server.run(read_stream, write_stream, server.create_initialization_options())

    try:
        anyio.run(main)
    finally:
        os.dup2(wire_in, 0)
        os.dup2(wire_out, 1)
        raw_in.close()


__all__ = ["MAX_REQUEST_BYTES", "BoundedLines", "build_server", "rejection", "serve_stdio", "run_tool", "ArgumentChecker"]
