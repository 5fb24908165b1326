"""The audit log: every lifecycle event appended to the store's ``audit`` log.

One durable, append-only record of what nervous did (searches, installs, uninstalls, outcomes,
goal and evolver changes), in whichever storage backend is configured, so a fleet sharing a
PostgreSQL store shares one audit trail. Disable with ``[plugins.audit] enabled = false`` or
``-p no:audit``.
"""

from __future__ import annotations

from typing import Any

from nervous.plugin import hookimpl

LOG = "audit"


@hookimpl(trylast=True)
def nervous_event(event: Any, manager: Any) -> None:
    if manager.config.plugin_settings("audit").get("enabled", True) is False:
        return
    manager.storage().append(LOG, {"kind": event.kind, "at": event.at, "source": event.source,
                                   "data": dict(event.data)})
