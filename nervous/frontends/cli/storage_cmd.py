"""``nervous storage``: which backend holds the durable state, is it healthy, and moving it."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import click

from ...errors import BadInput, UsageError
from .app import emit, get_app, json_option


def _size(n: int) -> str:
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n} B"


def _info_dict(store: Any) -> dict[str, Any]:
    info = store.info()
    return {"backend": info.backend, "location": info.location, "schema_version": info.schema_version,
            "collections": dict(info.collections), "size_bytes": info.size_bytes, "logs": dict(info.logs)}


def _check_migrate_path(path: Path, force: bool) -> None:
    """A migration target is a new location, or (with ``--force``) an existing file or folder."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise BadInput(f"{path}: cannot use as a migration target ({exc.strerror or exc})",
                       code="unwritable_path", details={"path": str(path)}) from None
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
        raise BadInput(f"{path}: exists and is not a regular file or a directory; nervous never replaces it",
                       code="unsafe_path", details={"path": str(path)})
    if stat.S_ISDIR(st.st_mode) and not any(os.scandir(path)):
        return
    if not force:
        raise BadInput(f"{path}: already exists; pass --force to write into it", code="file_exists",
                       details={"path": str(path)})


def _resolved(location: str) -> Path | None:
    """A store location as an absolute path with links resolved (None: not a path, e.g. a database DSN)."""
    if "://" in location or "=" in location:
        return None
    try:
        return Path(location).expanduser().resolve()
    except (OSError, RuntimeError):
        return Path(os.path.abspath(location))


def _refuse_overlap(source_info: dict[str, Any], target_name: str, target_location: str) -> None:
    """The target must be another store: not the source itself (through a link or a relative path), not a
    folder inside the source's folder, and not a folder holding the source (either would copy a store into
    itself and leave its documents in the source)."""
    if source_info["backend"] != target_name:
        return
    src, dst = _resolved(source_info["location"]), _resolved(target_location)
    if src is None or dst is None:
        return
    if src == dst:
        relation = "are the same"
    elif src.is_file():  # a store in one file (sqlite): only the same file is the same store
        return
    elif src in dst.parents:
        relation = "overlap: the target is inside the source"
    elif dst in src.parents:
        relation = "overlap: the source is inside the target"
    else:
        return
    raise UsageError(f"source and target {relation} {target_name} store ({src} and {dst}); nothing was written. "
                     "Give another --path, outside the source store", details={"source": str(src), "target": str(dst)})


def _store() -> Any:
    return get_app().manager.storage()


@click.group()
def storage() -> None:
    """Inspect, check and migrate the storage backend ([storage] backend)."""


@storage.command("info")
@json_option
def info_cmd(as_json: bool) -> None:
    """Show the backend, its location, schema version, sizes and counts."""
    store = _store()
    data = _info_dict(store)
    data["warnings"] = store.pop_warnings()

    def human() -> None:
        rows = [["backend", data["backend"]], ["location", data["location"]],
                ["schema version", str(data["schema_version"])], ["size", _size(data["size_bytes"])],
                ["collections", ", ".join(f"{c} ({n})" for c, n in data["collections"].items()) or "none"],
                ["logs", ", ".join(f"{lg} ({n})" for lg, n in data["logs"].items()) or "none"]]
        click.echo("\n".join(f"{k:<15} {v}" for k, v in rows))

    emit(as_json, data, human)


@storage.command("check")
@click.option("--repair", is_flag=True,
              help="First remove what is safe to remove: stray temporary files of interrupted writers.")
@json_option
def check_cmd(repair: bool, as_json: bool) -> None:
    """Verify integrity: unparsable documents, stray temporary files, quarantined copies, stale locks.

    With --repair, stray temporary files that interrupted writers (of this release or an older one)
    left in the store are removed first, and the check reports what remains. Exits 1 when a problem
    is found. What the engines set aside (malformed goals, acquisition sessions of the wrong shape) is
    listed under "held aside": kept intact for a person, not damage.
    """
    store = _store()
    repaired: list[dict[str, str]] = []
    if repair and hasattr(store, "repair"):  # backends without leftovers to remove have no repair()
        repaired = [{"where": p.where, "message": p.message} for p in store.repair()]
    problems = [{"where": p.where, "message": p.message} for p in store.check()]
    held = _held_aside(store)
    warnings = list(dict.fromkeys(get_app().warnings + store.pop_warnings()))
    location = store.info().location
    extra: dict[str, Any] = {"held_aside": held, **({"repaired": repaired} if repair else {})}

    def show_repaired() -> None:
        for p in repaired:
            click.echo(f"{p['where']}\n    {p['message']}")
        for p in held:
            click.echo(f"{p['where']} (held aside)\n    {p['message']}")

    if not problems:
        def clean() -> None:
            show_repaired()
            click.echo(f"{store.name} store at {location}: no problems found")

        emit(as_json, {"backend": store.name, "location": location, "problems": [], **extra, "warnings": warnings},
             clean)
        return
    message = f"{len(problems)} problem(s) found in the {store.name} store at {location}"

    def human() -> None:
        show_repaired()
        for p in problems:
            click.echo(f"{p['where']}\n    {p['message']}")
        click.echo(message)

    emit(as_json, {"backend": store.name, "location": location, "problems": problems, **extra, "message": message,
                   "warnings": warnings}, human, exit_code=1)


def _held_aside(store: Any) -> list[dict[str, str]]:
    """What the engines set aside inside documents that parse (a goal or an acquisition session of the
    wrong shape), kept verbatim for a person to repair or drop."""
    from ...engines.acquire.session import QUARANTINE
    from ...engines.goals.document import load
    from ...engines.goals.engine import COLLECTION as GOALS
    from ...engines.goals.quarantine import entries

    found: list[dict[str, str]] = []
    for key in store.keys(GOALS):
        try:
            held = entries(load(store.read(GOALS, key).value, lambda _w: None, where=f"{GOALS}/{key}"))
        except Exception:  # noqa: BLE001 - a document the goals engine refuses is its own message, on use
            continue
        if held:
            ids = ", ".join(sorted(held)[:10]) + (f" and {len(held) - 10} more" if len(held) > 10 else "")
            found.append({"where": f"{GOALS}/{key}",
                          "message": f"{len(held)} malformed goal(s) quarantined ({ids}): repair or drop them "
                                     "with nervous goal quarantine repair|drop"})
    for key in store.keys(QUARANTINE):
        found.append({"where": f"{QUARANTINE}/{key}",
                      "message": "an acquisition session of the wrong shape, set aside verbatim (it takes no part "
                                 f"in any acquisition); read it with nervous storage get {QUARANTINE} {key}"})
    return found


@storage.command("keys")
@click.argument("collection")
@json_option
def keys_cmd(collection: str, as_json: bool) -> None:
    """List the keys of one collection."""
    store = _store()
    keys = store.keys(collection)
    emit(as_json, {"collection": collection, "keys": keys, "warnings": store.pop_warnings()},
         "\n".join(keys) if keys else f"(collection {collection!r} is empty)")


@storage.command("get")
@click.argument("collection")
@click.argument("key")
@json_option
def get_cmd(collection: str, key: str, as_json: bool) -> None:
    """Print one document (read without locking; corrupt documents are quarantined and reported)."""
    store = _store()
    snap = store.read(collection, key)
    warnings = [*snap.warnings, *store.pop_warnings()]
    if snap.value is None and not snap.warnings:
        from ...errors import NotFound

        raise NotFound(f"no document {collection}/{key} in the {store.name} store")
    emit(as_json, {"collection": collection, "key": key, "document": snap.value, "warnings": warnings},
         lambda: click.echo(json.dumps(snap.value, indent=2, ensure_ascii=False)))


@storage.command("migrate")
@click.option("--to", "target_name", required=True, metavar="NAME", help="Target backend (file, sqlite, ...).")
@click.option("--path", "target_path", default=None, metavar="P",
              help="Target location (default: the target backend's default location).")
@click.option("--force", is_flag=True, help="Write into a target that already exists and holds data.")
@json_option
def migrate_cmd(target_name: str, target_path: str | None, force: bool, as_json: bool) -> None:
    """Copy every document and log into another backend, then verify the copy by reading it back.

    The source is left untouched; switch with ``[storage] backend = NAME`` (and ``path``) afterwards.
    A target that already exists and holds something is written into only with ``--force``; a
    target path that is neither a regular file nor a directory is never used.
    """
    from ...kernel.config import evolve
    from ...kernel.storage import migrate
    from ...plugin.context import ProviderContext

    app = get_app()
    pm = app.manager
    source = pm.storage()
    provider = pm.provider("storage backend", target_name)
    cfg = app.config
    target_cfg = evolve(cfg, storage=evolve(cfg.storage, backend=target_name, path=target_path))
    target_cfg.paths = cfg.paths
    settings = {**cfg.plugin_settings(provider.plugin or ""), **cfg.plugin_settings(target_name)}
    if target_path is not None and target_name != "postgres":
        _refuse_overlap(_info_dict(source), target_name, target_path)
        _check_migrate_path(Path(target_path).expanduser(), force)
    target = provider.factory(ProviderContext(config=target_cfg, paths=pm.paths, manager=pm, settings=settings))
    try:
        source_info, target_info = _info_dict(source), _info_dict(target)
        held = sum(target_info["collections"].values()) + sum(target_info["logs"].values())
        if held and not force and (source_info["backend"], source_info["location"]) != (
                target_info["backend"], target_info["location"]):
            raise BadInput(f"target {target_name} store at {target_info['location']} already holds {held} "
                           "document(s) and log entries; pass --force to write into it", code="file_exists",
                           details={"path": target_info["location"]})
        if (source_info["backend"], source_info["location"]) == (target_info["backend"], target_info["location"]):
            raise UsageError(f"source and target are the same {target_name} store at {target_info['location']};"
                             " give another --path")
        _refuse_overlap(source_info, target_info["backend"], target_info["location"])
        warnings: list[str] = []
        counts = migrate(source, target, warnings=warnings)
        warnings += source.pop_warnings() + target.pop_warnings()
        after = _info_dict(target)
    finally:
        target.close()
    hint = (f"to use it, set [storage] backend = \"{target_name}\""
            + (f" and path = \"{target_path}\"" if target_path else ""))
    data = {"source": source_info, "target": after, "documents": counts["documents"],
            "log_entries": counts["log_entries"], "verified": True, "next": hint, "warnings": warnings}
    emit(as_json, data,
         f"copied {counts['documents']} document(s) and {counts['log_entries']} log entries from "
         f"{source_info['backend']} ({source_info['location']}) to {target_name} ({after['location']}); "
         f"verified by reading back.\n{hint}")
