"""The kernel: plugin host (manager), configuration, records, the storage contract and the
helpers every layer shares. It imports no plugin, no engine and no front end."""
