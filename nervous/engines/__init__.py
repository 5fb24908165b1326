"""Engines: acquisition, the cortex, goals, the evolver, search, install and scan. They use the
kernel and the plugin API, never a front end."""
