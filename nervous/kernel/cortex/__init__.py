"""The cortex contract: candidate views, matcher memory and word lists (published to plugins
through :mod:`nervous.plugin.cortex`; the cortex engine is :mod:`nervous.engines.cortex`)."""
