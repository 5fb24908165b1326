"""Host integrations shipped with nervous: drop-in OpenClaw skills that call the ``nervous`` CLI.

The SKILL.md files live in this package (``openclaw/<name>/SKILL.md``) so they are installed with
the wheel; :func:`install_openclaw` copies them into a workspace's ``skills/`` folder. A copy we
wrote carries a ``.nervous-integration.json`` marker; a same-named skill folder without it is the
user's and is never overwritten unless they say ``force``.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from ..errors import BadInput, Refused

MARKER = ".nervous-integration.json"
HOSTS = ("openclaw",)


def bundled_skills(host: str = "openclaw") -> dict[str, str]:
    """Skill name -> SKILL.md text, for every skill shipped for ``host``."""
    from importlib.resources import files

    if host not in HOSTS:
        raise BadInput(f"unknown integration {host!r}; available: {', '.join(HOSTS)}", code="invalid_arg")
    root = files(__name__).joinpath(host)
    out = {}
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        skill = entry.joinpath("SKILL.md")
        if entry.is_dir() and skill.is_file():
            out[entry.name] = skill.read_text(encoding="utf-8")
    return out


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _managed(folder: Path) -> dict[str, Any] | None:
    marker = folder / MARKER
    if not marker.is_file() or marker.is_symlink():
        return None
    try:
        data = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("managed_by") == "nervous" else None


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def install(host: str, workspace: str | os.PathLike[str], *, force: bool = False, pm: Any = None,
            approval: Any = None) -> dict[str, Any]:
    """Copy ``host``'s skills into ``<workspace>/skills/<name>/SKILL.md``, through the install gate.

    Every target is checked before anything is written: a same-named folder we did not write (no
    marker) is refused unless ``force``; symbolic links are refused. Re-running updates our copies.
    Each skill is reviewed and approved by :mod:`nervous.gate` like any other (``pm``: the plugin
    manager; default: one with the built-in plugins only).
    """
    from .. import __version__, gate

    skills = bundled_skills(host)
    root = Path(workspace).expanduser()
    if not root.is_dir():
        raise BadInput(f"workspace {str(root)!r} is not an existing directory", code="invalid_workspace")
    root = root.resolve()
    skills_dir = root / "skills"
    if skills_dir.is_symlink():
        raise Refused(f"{skills_dir} is a symbolic link; nervous does not write through links", code="unsafe_path")
    plan: list[tuple[str, Path, str]] = []
    refused: list[str] = []
    for name, text in skills.items():
        folder = skills_dir / name
        if folder.is_symlink() or (folder / "SKILL.md").is_symlink():
            refused.append(f"{folder} is a symbolic link")
            continue
        if not folder.exists():
            plan.append((name, folder, "installed"))
        elif not folder.is_dir():
            refused.append(f"{folder} exists and is not a folder")
        elif _managed(folder) is not None:
            current = folder / "SKILL.md"
            same = current.is_file() and _sha256(current.read_text(encoding="utf-8", errors="replace")) == _sha256(text)
            plan.append((name, folder, "unchanged" if same else "updated"))
        elif force:
            plan.append((name, folder, "replaced"))
        else:
            refused.append(f"{folder} holds a skill nervous did not install (use --force to replace its SKILL.md)")
    if refused:
        raise Refused("nothing was installed: " + "; ".join(refused), code="unmanaged_skill",
                      details={"conflicts": refused})
    if pm is None:
        from ..config import Config
        from ..manager import PluginManager

        pm = PluginManager(Config(), autoload=False)
    approval = approval or gate.Approval("agent", "command")
    verdicts = {name: _verdict(pm, host, name, skills[name]) for name, _f, _a in plan}
    for verdict in verdicts.values():  # every skill passes review and approval before any is written
        gate.check_approval(verdict, approval, gate.approval_mode(pm), retry=f"nervous integrations install {host}")
    results = []
    for name, folder, action in plan:
        text = skills[name]
        if action != "unchanged":

            def write(name: str = name, folder: Path = folder, text: str = text) -> None:
                folder.mkdir(parents=True, exist_ok=True)
                _write(folder / "SKILL.md", text)
                marker = {"managed_by": "nervous", "integration": host, "skill": name, "version": __version__,
                          "sha256": _sha256(text)}
                _write(folder / MARKER, json.dumps(marker, indent=2) + "\n")

            gate.Gate(pm).admit(verdicts[name], approval, write)
        results.append({"name": name, "path": str(folder / "SKILL.md"), "action": action})
    return {"host": host, "workspace": str(root), "skills_dir": str(skills_dir), "skills": results}


def _verdict(pm: Any, host: str, name: str, text: str) -> Any:
    """The gate's review of a shipped skill (verified: it comes with this package)."""
    from .. import gate
    from ..records import SkillBundle, SkillFile, SkillRef

    bundle = SkillBundle(ref=SkillRef(name, registry=f"integration:{host}"), version=None,
                         registry=f"integration:{host}", files=(SkillFile("SKILL.md", text.encode("utf-8")),))
    return gate.review(pm, bundle, label=f"{host} integration skill {name}", source=f"integration:{host}")


__all__ = ["bundled_skills", "install", "MARKER", "HOSTS"]
