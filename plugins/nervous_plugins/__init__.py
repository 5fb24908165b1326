"""Built-in plugins of nervous.

Each module here uses only the public hookspecs (:mod:`nervous.hookspecs`), records
(:mod:`nervous.records`) and contracts (:mod:`nervous.interfaces`, :mod:`nervous.storage`), exactly
as a third-party plugin would, so any of them can be replaced or moved to its own distribution.
"""
