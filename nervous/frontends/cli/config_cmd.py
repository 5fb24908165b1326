"""``nervous config``: show the effective configuration, where it comes from, and validate files."""

from __future__ import annotations

from pathlib import Path

import click

from ...kernel.config import find_project_file, pyproject_section, read_toml, validate_layer
from .app import emit, get_app, json_option, table


@click.group()
def config() -> None:
    """Show, locate and validate configuration."""


@config.command()
@json_option
def show(as_json: bool) -> None:
    """The effective configuration after every layer, and which layer set each key."""
    import json

    from ...kernel.config import flat_items

    cfg = get_app().config
    items = flat_items(cfg)

    def human() -> None:
        click.echo(table([[key, json.dumps(value, ensure_ascii=False), layer] for key, value, layer in items],
                         ["key", "value", "set by"]))

    emit(as_json, {"config": cfg.to_dict(), "sources": cfg.sources,
                   "origins": {key: layer for key, _value, layer in items}}, human)


@config.command()
@json_option
def path(as_json: bool) -> None:
    """Where configuration files are read from."""
    from ...kernel.paths import Paths

    paths = Paths.from_env()
    project = find_project_file(Path.cwd())
    data = {
        "user": str(paths.user_config_file),
        "user_exists": paths.user_config_file.is_file(),
        "project": str(project[0]) if project else None,
        "data_dir": str(paths.data_dir),
        "state_dir": str(paths.state_dir),
        "cache_dir": str(paths.cache_dir),
    }
    emit(as_json, data, lambda: click.echo("\n".join(f"{k}: {v}" for k, v in data.items())))


@config.command()
@json_option
@click.argument("file", required=False, type=click.Path(dir_okay=False))
def validate(as_json: bool, file: str | None) -> None:
    """Validate FILE, or every layer in effect and the providers it selects.

    Exit 2 naming the file, key path or provider on error.
    """
    if file is None:
        app = get_app()
        cfg = app.config
        selected = app.manager.check_selection(build=True)
        emit(as_json, {"valid": True, "sources": cfg.sources, "selected": selected},
             f"valid: {', '.join(cfg.sources)}; every selected provider was built")
        return
    p = Path(file)
    data = read_toml(p)
    where = str(p)
    if p.name == "pyproject.toml":
        data = pyproject_section(data, p) or {}
        where = f"{p} [tool.nervous]"
    validate_layer(data, where)
    emit(as_json, {"valid": True, "file": str(p)}, f"{p}: valid")
