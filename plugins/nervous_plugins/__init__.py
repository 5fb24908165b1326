"""Built-in plugins of nervous.

Each module here uses only the public hookspecs (:mod:`nervous.plugin.hookspecs`), records
(:mod:`nervous.kernel.records`) and contracts (:mod:`nervous.plugin.protocols`, :mod:`nervous.kernel.storage`), exactly
as a third-party plugin would, so any of them can be replaced or moved to its own distribution.
"""
