"""The import graph keeps the layers apart; a module's layer is the folder it lives in.

* ``nervous/plugin/`` and ``nervous/errors.py``: the plugin API;
* ``nervous/kernel/``: plugin host, configuration, records, storage contract, shared helpers;
* ``nervous/engines/``: acquire, cortex, goals, evolver, search, install, scan;
* ``nervous/frontends/`` (and ``nervous/__main__.py``): CLI, MCP, Python API, integrations, registry server;
* ``nervous/testing/``: the kits and fixtures for plugin authors (may use anything);
* ``nervous/__init__.py`` (the ``nervous.Nervous`` facade) and ``nervous/_moved.py`` (old paths).

Rules: built-in plugins (``nervous_plugins``) import only the plugin API (``nervous.plugin*`` and
``nervous.errors``); the plugin API and the kernel import no plugin, no engine and no front end;
engines import no front end and no plugin. No module sits outside a layer folder.

Imports under ``if TYPE_CHECKING:`` count too: a type is a dependency for a reader.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).parents[2]

#: folder (dotted prefix) -> layer
LAYERS: dict[str, str] = {
    "nervous.plugin": "kernel",
    "nervous.errors": "kernel",
    "nervous.kernel": "kernel",
    "nervous.engines": "engine",
    "nervous.frontends": "front end",
    "nervous.__main__": "front end",
    "nervous.testing": "tooling",
    "nervous._moved": "facade",
}
PLUGIN_API = ("nervous.plugin", "nervous.errors")


def layer(name: str) -> str | None:
    """The layer of module ``name``, read from its folder (None: outside every layer folder)."""
    if name == "nervous_plugins" or name.startswith("nervous_plugins."):
        return "plugin"
    if name == "nervous":
        return "facade"
    for prefix, value in LAYERS.items():
        if name == prefix or name.startswith(prefix + "."):
            return value
    return None if name.startswith("nervous.") else "external"


def _module_name(path: Path, base: Path) -> str:
    parts = list(path.relative_to(base).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(name: str) -> bool:
    if not name.startswith("nervous."):
        return False
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _imports(path: Path, module: str) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            out.append((node.lineno, target))
            # ``from nervous import plugin`` and ``from ..install import gate`` name modules too
            out += [(node.lineno, f"{target}.{a.name}") for a in node.names if _is_module(f"{target}.{a.name}")]
    return out


def _graph() -> dict[str, tuple[Path, list[tuple[int, str]]]]:
    graph = {}
    for base, pkg in ((ROOT, "nervous"), (ROOT / "plugins", "nervous_plugins")):
        for path in sorted((base / pkg).rglob("*.py")):
            name = _module_name(path, base)
            graph[name] = (path, _imports(path, name))
    return graph


def _violations(rule: str, sources: list[str], allowed: callable) -> list[str]:  # type: ignore[valid-type]
    graph = _graph()
    bad = []
    for name in sources:
        path, imports = graph[name]
        for line, target in imports:
            if not allowed(target):
                bad.append(f"{path.relative_to(ROOT)}:{line}: {rule}: imports {target} ({layer(target)})")
    return bad


def _sources(wanted: str) -> list[str]:
    return [n for n in _graph() if layer(n) == wanted]


def test_every_module_sits_in_a_layer_folder() -> None:
    assert [n for n in _graph() if layer(n) is None] == []
    tops = sorted(p.name for p in (ROOT / "nervous").iterdir() if p.name != "__pycache__")
    assert tops == ["__init__.py", "__main__.py", "_moved.py", "engines", "errors.py", "frontends", "kernel",
                    "plugin", "testing"]


def test_builtin_plugins_use_only_the_plugin_api() -> None:
    def allowed(target: str) -> bool:
        if target == "nervous":
            return False  # `import nervous` reaches everything: use nervous.plugin
        return not target.startswith("nervous.") or any(target == p or target.startswith(p + ".") for p in PLUGIN_API)

    assert _violations("plugin outside the plugin API", _sources("plugin"), allowed) == []


def test_the_kernel_imports_no_plugin_engine_or_front_end() -> None:
    # the package root is allowed for ``__version__`` and ``hookimpl``
    assert _sources("kernel")
    assert _violations("kernel", _sources("kernel"), lambda t: layer(t) in ("kernel", "external", "facade")) == []


def test_engines_import_no_front_end_and_no_plugin() -> None:
    assert _sources("engine")
    allowed = ("kernel", "engine", "external", "facade")
    assert _violations("engine", _sources("engine"), lambda t: layer(t) in allowed) == []


def test_the_checker_sees_a_violation(tmp_path: Path) -> None:
    mod = tmp_path / "m.py"
    mod.write_text("from ...frontends.cli.app import table\nimport nervous_plugins.github\n", encoding="utf-8")
    targets = [t for _, t in _imports(mod, "nervous.engines.cortex.m")]
    assert targets == ["nervous.frontends.cli.app", "nervous_plugins.github"]
    assert [layer(t) for t in targets] == ["front end", "plugin"]
    assert layer("nervous.flat") is None  # a flat module would be outside every layer


def test_the_architecture_document_names_real_paths() -> None:
    import re

    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    paths = set(re.findall(r"`((?:plugin|kernel|engines|frontends|testing|plugins)/[\w/.-]*)`", text))
    assert len(paths) > 30
    missing = [p for p in sorted(paths) if not any((base / p).exists() for base in (ROOT / "nervous", ROOT))]
    assert missing == []
    # every module of the tree is in the tree drawing
    for folder in ("kernel", "engines", "frontends"):
        for path in (ROOT / "nervous" / folder).iterdir():
            if path.name not in ("__init__.py", "__pycache__"):
                assert path.name in text or path.stem in text, path
