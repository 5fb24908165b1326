"""``nervous registry serve | token | moderate | audit | gc`` and ``nervous publish``: the self-hosted registry."""

from __future__ import annotations

import getpass
import os
from pathlib import Path
from typing import Any

import click

from .app import emit, get_app, json_option, table


@click.group()
def registry() -> None:
    """Run and administer a self-hosted ClawHub-compatible registry."""


def _data_dir(data: str | None) -> Path:
    if data:
        return Path(data)
    app = get_app()
    paths = app.config.paths
    return Path(paths.data_dir) / "registry" if paths is not None else Path("registry-data")


def _catalog() -> Any:
    from ..registry_server.catalog import Catalog

    return Catalog(get_app().manager.storage())


@registry.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option("--port", type=click.IntRange(0, 65535), default=8080, show_default=True, help="Port (0: any free).")
@click.option("--data", metavar="DIR", help="Blob directory (shared between servers); default: the data dir.")
@click.option("--public-url", metavar="URL", help="The URL clients use (behind a load balancer).")
@click.option("--no-rate-limit", is_flag=True, help="Send rate-limit headers but never answer 429.")
@click.option("--refresh-interval", type=click.FloatRange(0.01, 86400.0), default=1.0, show_default=True,
              callback=lambda _ctx, _param, value: _finite(value, "--refresh-interval"),
              help="Seconds between checks for other servers' publishes (search cache; 0.01 to 86400).")
@click.option("--max-connections", type=click.IntRange(1, 100_000), default=None,
              help="Connections held at once before answering 503 (default 512, or "
                   "$NERVOUS_REGISTRY_MAX_CONNECTIONS).")
@click.option("--head-timeout", type=click.FloatRange(0.1, 3600.0), default=None,
              callback=lambda _ctx, _param, value: None if value is None else _finite(value, "--head-timeout"),
              help="Seconds a client has to send a request's line and headers, and its body again (moved on "
                   "a second per 500 bytes received), before it is disconnected (default 20, or "
                   "$NERVOUS_REGISTRY_HEAD_TIMEOUT; 0.1 to 3600).")
def serve(host: str, port: int, data: str | None, public_url: str | None, no_rate_limit: bool,
          refresh_interval: float, max_connections: int | None, head_timeout: float | None) -> None:
    """Serve the registry (metadata in the configured storage backend, blobs under --data)."""
    import importlib.util

    missing = [m for m in ("starlette", "uvicorn") if importlib.util.find_spec(m) is None]
    if missing:
        raise click.UsageError(f"the registry server needs {' and '.join(missing)}: pip install 'nervous[server]'")
    from ..registry_server.ratelimit import RateLimits
    from ..registry_server.server import build_registry
    from ..registry_server.server import serve as run

    app = get_app()
    reg = build_registry(app.manager, _data_dir(data), site_url=public_url, refresh_interval=refresh_interval)
    run(reg, host, port, rate_limits=RateLimits(enabled=not no_rate_limit), connections=max_connections,
        head_seconds=head_timeout)


def _when(at: object) -> str:
    """An audit entry's time (epoch milliseconds) as people read it: UTC, to the second."""
    import datetime

    if isinstance(at, bool) or not isinstance(at, (int, float)) or not 0 <= at < 253_402_300_800_000:
        return str(at)
    return datetime.datetime.fromtimestamp(at / 1000, datetime.UTC).strftime("%Y-%m-%d %H:%M:%SZ")


def _finite(value: float, option: str) -> float:
    """``nan`` passes a range check (it compares false with both ends): refused here."""
    if value != value:
        raise click.BadParameter(f"{option} must be a number, not nan")
    return value


@registry.group()
def token() -> None:
    """Publisher and moderator tokens."""


@token.command("create")
@click.argument("handle")
@click.option("--moderator", is_flag=True, help="A moderator token (may override verdicts).")
@json_option
def token_create(handle: str, moderator: bool, as_json: bool) -> None:
    """Create a token for a publisher handle; it is shown once."""
    from ...errors import UsageError
    from ..registry_server.rules import Reject, check_handle

    try:
        handle = check_handle(handle)
    except Reject as exc:
        raise UsageError(exc.text) from None
    role = "moderator" if moderator else "publisher"
    tok = _catalog().create_token(handle, role)
    emit(as_json, {"handle": handle, "role": role, "token": tok},
         f"{role} token for @{handle} (shown once; pass it as CLAWHUB_TOKEN):\n{tok}")


@token.command("revoke")
@click.option("--token", "tok", envvar="NERVOUS_REGISTRY_REVOKE_TOKEN",
              help="The token to revoke (or NERVOUS_REGISTRY_REVOKE_TOKEN; asked for, hidden, at a terminal).")
@json_option
def token_revoke(tok: str | None, as_json: bool) -> None:
    """Revoke a token."""
    import sys

    from ...errors import NotFound, UsageError

    if not tok:
        if as_json or not sys.stdin.isatty():
            raise UsageError("no token given: pass --token or set NERVOUS_REGISTRY_REVOKE_TOKEN")
        tok = str(click.prompt("Token", hide_input=True))
    outcome = _catalog().revoke_token(tok)
    if outcome is None:
        raise NotFound("no such token (nothing was revoked)")
    emit(as_json, {"revoked": True, "already_revoked": outcome == "already revoked"}, outcome)


@registry.command()
@click.argument("ref")
@click.argument("version")
@click.option("--verdict", type=click.Choice(["clean", "suspicious", "malicious"]), required=True)
@click.option("--reason", required=True, help="Why (kept in the audit log).")
@json_option
def moderate(ref: str, version: str, verdict: str, reason: str, as_json: bool) -> None:
    """Override a version's verdict: REF is @owner/slug."""
    from ...errors import NotFound, UsageError
    from ..registry_server.rules import HANDLE_RE, SEMVER_RE, SLUG_RE, Reject

    owner, _, slug = ref.lstrip("@").lower().partition("/")
    # checked before the catalog is asked: a name it could never hold is a usage error, and nothing is stored
    if not HANDLE_RE.match(owner) or not SLUG_RE.match(slug):
        raise UsageError(f"{ref!r}: expected @owner/slug (lower-case letters, digits and '-')")
    if not SEMVER_RE.match(version):
        raise UsageError(f"{version!r}: expected a semver version such as 1.0.0")
    by = f"local:{getpass.getuser()}"
    try:
        _catalog().override(owner, slug, version, verdict, reason, by)
    except Reject as exc:
        if exc.status == 404:
            raise NotFound(f"{ref}@{version}: {exc.text}") from None
        raise UsageError(exc.text) from None
    emit(as_json, {"ref": ref, "version": version, "verdict": verdict, "by": by},
         f"{ref}@{version} is now {verdict} (override by {by})")


@registry.command()
@click.option("--limit", type=click.IntRange(1, 100_000), default=50, show_default=True)
@json_option
def audit(limit: int, as_json: bool) -> None:
    """Show the registry's audit log: publishes, overrides, deletions, tokens."""
    entries = _catalog().audit(limit)

    def human() -> None:
        rows = [[_when(e.get("at")), str(e.get("event")), str(e.get("skill") or e.get("handle") or ""),
                 str(e.get("version") or ""), str(e.get("to") or e.get("verdict") or e.get("role") or ""),
                 str(e.get("reason") or "")] for e in entries]
        click.echo(table(rows, ["AT", "EVENT", "SUBJECT", "VERSION", "VERDICT", "REASON"]))

    emit(as_json, {"entries": entries}, human)


@registry.command()
@click.option("--data", metavar="DIR", help="Blob directory (as given to serve); default: the data dir.")
@click.option("--grace", type=click.FloatRange(0.0, 8760.0), default=24.0, show_default=True,
              callback=lambda _ctx, _param, value: _finite(value, "--grace"),
              help="Hours an unreferenced blob is kept (a publish may still be on its way).")
@click.option("--dry-run", is_flag=True, help="Count what would be removed; remove nothing.")
@json_option
def gc(data: str | None, grace: float, dry_run: bool, as_json: bool) -> None:
    """Remove blobs no published version references (uploads of refused or abandoned publishes)."""
    from ...errors import BadInput
    from ..registry_server.blobs import BlobStore

    root = _data_dir(data) / "blobs"
    if not root.is_dir():
        raise BadInput(f"{root}: no blob directory here (missing or not a folder; is --data the folder given "
                       "to serve?); nothing was removed", code="bad_path")
    keep = {str(f.get("sha256")) for doc in _catalog().documents() for v in doc.get("versions", [])
            for f in v.get("files", []) if isinstance(f, dict)}
    done = BlobStore(root).collect(keep, grace_seconds=grace * 3600, dry_run=dry_run)
    verb = "would remove" if dry_run else "removed"
    emit(as_json, {"removed": done.removed, "freed_bytes": done.freed_bytes, "referenced": done.kept,
                   "too_young": done.too_young, "dry_run": dry_run},
         f"{verb} {done.removed} unreferenced blob(s), {done.freed_bytes:,} bytes; "
         f"{done.too_young} younger than {grace:g} h kept")


def registry_endpoint(name: str | None) -> tuple[str, str | None]:
    """URL and token of a ClawHub-protocol registry: ``[registries.<name>]``, else the clawhub plugin's."""
    from ...errors import UsageError

    app = get_app()
    block = app.config.registries.named.get(name) if name else None
    if block is not None:
        if block.provider != "clawhub" or not block.url:
            raise UsageError(f"registries.{name}: publishing needs provider = \"clawhub\" and a url")
        return block.url, block.token or (os.environ.get(block.token_env) if block.token_env else None)
    if name not in (None, "clawhub"):
        raise UsageError(f"unknown registry {name!r}: add [registries.{name}] with provider = \"clawhub\" and url")
    settings = app.config.plugin_settings("clawhub")
    url = settings.get("registry") or os.environ.get("CLAWHUB_REGISTRY")
    if not url:
        raise UsageError("no registry URL: set [plugins.clawhub] registry, CLAWHUB_REGISTRY, or use --registry NAME")
    return str(url), settings.get("token") or os.environ.get("CLAWHUB_TOKEN") or None


@click.command()
@click.argument("path", type=click.Path(exists=True, file_okay=False))
@click.option("--version", "version", metavar="V", help="Semver version (default: next patch after the latest).")
@click.option("--registry", "registry_name", metavar="NAME", help="A [registries.<name>] entry (default: clawhub).")
@click.option("--slug", help="Skill slug (default: the folder name).")
@click.option("--name", "display_name", help="Display name.")
@click.option("--changelog", default="", help="Changelog text.")
@json_option
def publish(path: str, version: str | None, registry_name: str | None, slug: str | None, display_name: str | None,
            changelog: str, as_json: bool) -> None:
    """Publish a skill folder to a ClawHub-protocol registry (token: CLAWHUB_TOKEN or the registry's)."""
    from ...errors import UsageError
    from ..registry_server.publisher import publish_folder

    url, tok = registry_endpoint(registry_name)
    if not tok:
        raise UsageError("publishing needs a token: set CLAWHUB_TOKEN or the registry's token")
    left_out: list[tuple[str, str]] = []
    result = publish_folder(url, tok, Path(path), slug=slug, version=version, display_name=display_name,
                            changelog=changelog, left_out=left_out)
    verdict = result.get("verdict", "unknown")
    warnings = [f"{rel}: not published ({what}; only regular files are)" for rel, what in left_out]
    emit(as_json, {"published": result, "warnings": warnings},
         f"published {result.get('slug')}@{result.get('version')} — verdict {verdict}"
         + (f" (rules: {', '.join(result.get('ruleIds') or [])})" if result.get("ruleIds") else ""))
