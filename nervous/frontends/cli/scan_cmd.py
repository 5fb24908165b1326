"""``nervous scan PATH|REF``: classify a skill and decide allow / review / refuse, without installing.

Exit codes (specs/security.md §11.3): 1 when the decision is ``refuse`` or the risk level reaches
``--fail-on``; 2 for usage errors and bad input; else 0.
"""

from __future__ import annotations

import click

from .app import emit, get_app, json_option

RISK_ORDER = {"low": 0, "medium": 1, "high": 2}


@click.command(name="scan")
@click.argument("target")
@click.option("--format", "fmt", default="table", show_default=True, metavar="table|json|sarif",
              help="Report format (any format a plugin provides).")
@click.option("--fail-on", type=click.Choice(["low", "medium", "high"]), default=None,
              help="Also exit 1 when the risk level reaches this level.")
@click.option("--context", "purpose", type=click.Choice(["install", "draft", "scan"]), default="install",
              show_default=True, help="Which rule actions apply (third-party install or evolver draft).")
@json_option
def scan(target: str, fmt: str, fail_on: str | None, purpose: str, as_json: bool) -> None:
    """Scan a skill folder, a .zip, or a registry reference (fetched, never installed)."""
    from ...engines.scan.target import scan_target

    manager = get_app().manager
    if as_json:
        fmt = "json"
    result = scan_target(manager, target, purpose=purpose)
    report = result.report
    failed = result.decision == "refuse" or (
        fail_on is not None and RISK_ORDER[report["capabilities"]["risk_level"]] >= RISK_ORDER[fail_on])
    if fmt == "json":
        emit(True, {"exit_code": 1 if failed else 0, **report})
    else:
        render = manager.report_format(fmt)
        text = render(report)
        emit(False, {}, text)
    if failed:
        raise click.exceptions.Exit(1)


__all__ = ["scan"]
