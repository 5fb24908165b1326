"""The import graph keeps the layers apart (read with ``ast``, nothing is imported).

* built-in plugins (``nervous_plugins``) import only the plugin API (``nervous.plugin*``) and
  ``nervous.errors`` from nervous;
* the kernel (plugin API, manager, configuration, records, storage contract, helpers) imports no
  plugin, no engine and no front end;
* engines (acquire, cortex, goals, evolver, search, install, scan) import no front end and no plugin.

Imports under ``if TYPE_CHECKING:`` count too: a type is a dependency for a reader.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).parents[2]
FRONT_ENDS = ("nervous.frontends.cli", "nervous.frontends.mcp", "nervous.frontends.api", "nervous.frontends.integrations", "nervous.frontends.registry_server",
              "nervous.__main__")
ENGINES = ("nervous.engines.acquire", "nervous.engines.cortex", "nervous.engines.goals", "nervous.engines.evolver", "nervous.engines.search",
           "nervous.engines.install.installer", "nervous.engines.scan.engine", "nervous.engines.scan.target", "nervous.engines.install.gate")
TOOLING = ("nervous.testing",)  # test kits for plugin authors: may use anything
#: the cortex contract (candidate views, matcher memory, word lists): kernel modules that live beside
#: the cortex engine and are published through nervous.plugin.cortex
CORTEX_CONTRACT = ("nervous.kernel.cortex.policy", "nervous.kernel.cortex.matching", "nervous.kernel.cortex.wordlists")
#: the package root is the host-facing facade (``nervous.Nervous`` is loaded lazily from it)
FACADE = ("nervous",)
PLUGIN_API = ("nervous.plugin", "nervous.errors")


def _module_name(path: Path, base: Path) -> str:
    parts = list(path.relative_to(base).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


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
            # ``from nervous import plugin`` names a module too
            out += [(node.lineno, f"{target}.{a.name}") for a in node.names if target in ("nervous", "nervous.plugin")]
    return out


def _within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def _engine(name: str) -> bool:
    return _within(name, ENGINES) and not _within(name, CORTEX_CONTRACT)


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
                bad.append(f"{path.relative_to(ROOT)}:{line}: {rule}: imports {target}")
    return bad


def test_builtin_plugins_use_only_the_plugin_api() -> None:
    sources = [n for n in _graph() if n.startswith("nervous_plugins")]

    def allowed(target: str) -> bool:
        if target == "nervous":
            return False  # `import nervous` reaches everything: use nervous.plugin
        return not target.startswith("nervous.") or _within(target, PLUGIN_API)

    assert _violations("plugin outside the plugin API", sources, allowed) == []


def test_the_kernel_imports_no_plugin_engine_or_front_end() -> None:
    sources = [n for n in _graph() if n.startswith("nervous") and not n.startswith("nervous_plugins")
               and not _within(n, FRONT_ENDS + TOOLING) and not _engine(n) and n not in FACADE]

    def allowed(target: str) -> bool:
        return not target.startswith("nervous_plugins") and not _within(target, FRONT_ENDS) and not _engine(target)

    assert _violations("kernel", sources, allowed) == []


def test_engines_import_no_front_end_and_no_plugin() -> None:
    sources = [n for n in _graph() if _engine(n)]

    def allowed(target: str) -> bool:
        return not target.startswith("nervous_plugins") and not _within(target, FRONT_ENDS)

    assert _violations("engine", sources, allowed) == []


def test_the_checker_sees_a_violation(tmp_path: Path) -> None:
    mod = tmp_path / "m.py"
    mod.write_text("from ..cli.app import table\nimport nervous_plugins.github\n", encoding="utf-8")
    assert [t for _, t in _imports(mod, "nervous.engines.cortex.m")] == ["nervous.frontends.cli.app", "nervous_plugins.github"]
