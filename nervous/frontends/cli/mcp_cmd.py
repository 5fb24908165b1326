"""``nervous mcp``: the Model Context Protocol server over stdio (see docs/mcp.md)."""

from __future__ import annotations

import click

from .app import emit, get_app, json_option, table


@click.command("mcp")
@click.option("--list-tools", is_flag=True, help="Print the tools, their annotations and schemas, then exit.")
@json_option
def mcp(list_tools: bool, as_json: bool) -> None:
    """Serve nervous's tools to an MCP client over stdin/stdout until the client disconnects.

    Register it in a client as the command `nervous mcp`; configuration comes from the usual layers
    (and NERVOUS_HOME), so the server sees what the CLI sees.
    """
    from ..api import Nervous

    app = get_app()
    if list_tools:
        from ..mcp.schema import tool_specs

        specs = tool_specs(sorted(app.manager.providers("registry")))

        def human() -> None:
            rows = [[s.name, "yes" if s.read_only else "", "yes" if s.destructive else "",
                     "yes" if s.idempotent else "", "yes" if s.open_world else "", s.title] for s in specs]
            click.echo(table(rows, ["TOOL", "READ-ONLY", "DESTRUCTIVE", "IDEMPOTENT", "OPEN-WORLD", "TITLE"]))

        emit(as_json, {"tools": [s.to_json() for s in specs]}, human)
        return
    try:
        import mcp.server.lowlevel  # noqa: F401  (fail here, with advice, if the SDK is missing)

        from ..mcp.server import serve_stdio
    except ImportError as exc:
        from ...errors import NervousError

        raise NervousError(f"the MCP server needs the mcp package ({exc}); install it with "
                           "pip install 'nervous[mcp]'", code="unavailable") from None
    serve_stdio(Nervous.from_manager(app.manager))
