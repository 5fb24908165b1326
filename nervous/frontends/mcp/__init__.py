"""The Model Context Protocol door: ``nervous mcp`` serves the engines as MCP tools over stdio.

:mod:`.schema` holds the tool definitions (plain data), :mod:`.handlers` what each tool does over
:class:`nervous.frontends.api.Nervous`, and :mod:`.server` the SDK glue. Only :mod:`.server` imports the
``mcp`` SDK, and only when the server starts.
"""
