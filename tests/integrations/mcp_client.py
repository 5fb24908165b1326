"""A synchronous wrapper over the MCP SDK's stdio client, so tests read top to bottom.

The client runs in an event loop on a helper thread (an anyio blocking portal); the server is a
real ``nervous mcp`` subprocess speaking MCP over its stdin/stdout.
"""

from __future__ import annotations

import os
import sys
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any


class McpProcess:
    """``nervous [global args] mcp`` as a subprocess, driven by the SDK's ``ClientSession``."""

    def __init__(self, env: dict[str, str], cwd: str, global_args: list[str] | None = None,
                 answers: list[tuple[str, dict[str, Any] | None]] | None = None) -> None:
        """``answers``: when given, the client supports elicitation and answers each form in turn
        (``(action, content)``, e.g. ``("accept", {"install": True})``); ``asked`` records the forms."""
        self.env = env
        self.cwd = cwd
        self.global_args = list(global_args or [])
        self.answers = answers
        self.asked: list[Any] = []
        self._stack: list[AbstractContextManager[Any]] = []

    def __enter__(self) -> McpProcess:
        from anyio.from_thread import start_blocking_portal
        from mcp import ClientSession, StdioServerParameters, stdio_client

        params = StdioServerParameters(command=sys.executable, args=["-m", "nervous", *self.global_args, "mcp"],
                                       env=self.env, cwd=self.cwd)
        portal_cm = start_blocking_portal()
        self.portal = portal_cm.__enter__()
        self._stack.append(portal_cm)
        transport = self.portal.wrap_async_context_manager(stdio_client(params))
        read, write = transport.__enter__()
        self._stack.append(transport)
        kwargs: dict[str, Any] = {}
        if self.answers is not None:
            kwargs["elicitation_callback"] = self._answer
        session_cm = self.portal.wrap_async_context_manager(ClientSession(read, write, **kwargs))
        self.session = session_cm.__enter__()
        self._stack.append(session_cm)
        self.initialize = self.portal.call(self.session.initialize)
        return self

    async def _answer(self, context: Any, params: Any) -> Any:
        """The user's side of an elicitation: the next scripted answer."""
        import mcp_types as types

        self.asked.append(params)
        action, content = self.answers.pop(0) if self.answers else ("cancel", None)
        return types.ElicitResult(action=action, content=content)

    def __exit__(self, *exc: object) -> None:
        while self._stack:
            self._stack.pop().__exit__(None, None, None)

    def list_tools(self) -> Any:
        return self.portal.call(self.session.list_tools)

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> Any:
        """The raw ``CallToolResult`` (``structured_content``, ``is_error``, ``content``)."""
        return self.portal.call(self.session.call_tool, name, arguments or {})

    def ok(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        """Call a tool that must succeed; its structured result."""
        result = self.call(name, arguments)
        assert not result.is_error, f"{name} failed: {result.structured_content}"
        data: dict[str, Any] = result.structured_content
        return data

    def error(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        """Call a tool that must fail as a tool error; its structured error envelope."""
        result = self.call(name, arguments)
        assert result.is_error, f"{name} unexpectedly succeeded: {result.structured_content}"
        data: dict[str, Any] = result.structured_content
        assert data["ok"] is False and data["error"]["code"], data
        return data


def server_env(home: Path, registry_url: str) -> dict[str, str]:
    """Everything a ``nervous`` subprocess needs, and nothing from the developer's environment."""
    return {"NERVOUS_HOME": str(home), "CLAWHUB_REGISTRY": registry_url, "NERVOUS_REGISTRIES": "clawhub",
            "NERVOUS_DISABLE_PLUGIN_AUTOLOAD": "1", "NERVOUS_PROJECT": "integration-tests",
            "PATH": os.environ.get("PATH", ""), "PYTHONUNBUFFERED": "1"}
