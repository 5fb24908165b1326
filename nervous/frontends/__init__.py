"""Front ends: the CLI, the MCP server, the Python API, agent integrations and the registry
server. They may use every other layer."""
