"""Host integrations shipped with nervous: OpenClaw skills and a pi package, all calling the ``nervous`` CLI.

The files live in this package (``openclaw/<name>/SKILL.md``, ``pi/...``) so they are installed
with the wheel. :func:`install` copies OpenClaw's skills into a workspace's ``skills/`` folder and
the pi package into ``<workspace>/.pi/extensions/nervous/`` (where pi discovers project
extensions). A copy we wrote carries a ``.nervous-integration.json`` marker; a same-named folder
without it is the user's and is never overwritten unless they say ``force``.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any

from ...errors import BadInput, Refused

MARKER = ".nervous-integration.json"
HOSTS = ("openclaw", "pi")
#: where the pi package goes, relative to the workspace
PI_DIR = (".pi", "extensions", "nervous")


def bundled_skills(host: str = "openclaw") -> dict[str, str]:
    """Skill name -> SKILL.md text, for every skill shipped for ``host``."""
    from importlib.resources import files

    if host not in HOSTS:
        raise BadInput(f"unknown integration {host!r}; available: {', '.join(HOSTS)}", code="invalid_arg")
    root = files(__name__).joinpath(host)
    if host == "pi":
        root = root.joinpath("skills")
    out = {}
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        skill = entry.joinpath("SKILL.md")
        if entry.is_dir() and skill.is_file():
            out[entry.name] = skill.read_text(encoding="utf-8")
    return out


def bundled_files(host: str) -> dict[str, str]:
    """Relative path -> text of every file shipped for ``host`` (the whole pi package)."""
    from importlib.resources import files

    if host not in HOSTS:
        raise BadInput(f"unknown integration {host!r}; available: {', '.join(HOSTS)}", code="invalid_arg")
    out: dict[str, str] = {}

    def walk(node: Any, prefix: str) -> None:
        for entry in sorted(node.iterdir(), key=lambda e: e.name):
            if entry.name.startswith((".", "__")):
                continue
            if entry.is_dir():
                walk(entry, f"{prefix}{entry.name}/")
            elif entry.is_file():
                out[prefix + entry.name] = entry.read_text(encoding="utf-8")

    walk(files(__name__).joinpath(host), "")
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
    if _unsafe(path):  # (checked again at the write: something may have taken the name since the plan)
        raise _unsafe_path(f"{path} is not a regular file; nervous never replaces it")
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _unsafe(path: Path) -> bool:
    """Something at ``path`` that is not a regular file (a link, a folder, a device, a pipe): never written over."""
    try:
        return not stat.S_ISREG(os.lstat(path).st_mode)
    except FileNotFoundError:
        return False


def _unsafe_path(message: str, targets: list[str] | None = None) -> BadInput:
    return BadInput(message, code="unsafe_path", details={"conflicts": targets} if targets else None)


def install(host: str, workspace: str | os.PathLike[str], *, force: bool = False, pm: Any = None,
            approval: Any = None) -> dict[str, Any]:
    """Copy ``host``'s skills into ``<workspace>/skills/<name>/SKILL.md``, through the install gate.

    Every target is checked before anything is written: a same-named folder we did not write (no
    marker) is refused unless ``force``; symbolic links are refused. Re-running updates our copies.
    Each skill is reviewed and approved by :mod:`nervous.engines.install.gate` like any other (``pm``: the plugin
    manager; default: one with the built-in plugins only).
    """
    from ... import __version__
    from ...engines.install import gate

    root = Path(workspace).expanduser()
    if not root.is_dir():
        raise BadInput(f"workspace {str(root)!r} is not an existing directory", code="invalid_workspace")
    root = root.resolve()
    if pm is None:
        from ...kernel.config import Config
        from ...kernel.manager import PluginManager

        pm = PluginManager(Config(), autoload=False)
    approval = approval or gate.Approval("agent", "command")
    if host == "pi":
        return _install_pi(root, force=force, pm=pm, approval=approval)
    skills = bundled_skills(host)
    skills_dir = root / "skills"
    if skills_dir.is_symlink():
        raise _unsafe_path(f"{skills_dir} is a symbolic link; nervous does not write through links")
    plan: list[tuple[str, Path, str]] = []
    refused: list[str] = []
    unsafe = [str(p) for name in skills for p in (skills_dir / name / "SKILL.md", skills_dir / name / MARKER) if _unsafe(p)]
    unsafe += [str(skills_dir / name) for name in skills if (skills_dir / name).is_symlink()]
    if unsafe:
        raise _unsafe_path("nothing was installed: " + ", ".join(unsafe) + " are symbolic links or not regular files "
                           "(never replaced, even with --force)", unsafe)
    for name, text in skills.items():
        folder = skills_dir / name
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


def _install_pi(root: Path, *, force: bool, pm: Any, approval: Any) -> dict[str, Any]:
    """Copy the pi package into ``<root>/.pi/extensions/nervous/`` (all files, then the marker).

    The package's skills are reviewed and approved by the gate before anything is written; the
    whole copy is one admission.
    """
    from ... import __version__
    from ...engines.install import gate

    shipped = bundled_files("pi")
    folder = root.joinpath(*PI_DIR)
    for d in (root / PI_DIR[0], root.joinpath(*PI_DIR[:2]), folder):
        if d.is_symlink():
            raise _unsafe_path(f"{d} is a symbolic link; nervous does not write through links")
        if d.exists() and not d.is_dir():
            raise Refused(f"{d} exists and is not a folder", code="unmanaged_skill")
    if folder.exists() and _managed(folder) is None and not force:
        raise Refused(f"nothing was installed: {folder} holds an extension nervous did not install "
                      "(use --force to replace its files)", code="unmanaged_skill", details={"conflicts": [str(folder)]})
    links = [rel for rel in [*shipped, MARKER] if _unsafe(folder / rel)]
    if links:
        raise _unsafe_path(f"nothing was installed: {', '.join(links)} in {folder} are symbolic links or not regular "
                           "files (never replaced, even with --force)", links)
    verdicts = [_verdict(pm, "pi", name, text) for name, text in bundled_skills("pi").items()]
    for verdict in verdicts:  # every shipped skill passes review and approval before any file is written
        gate.check_approval(verdict, approval, gate.approval_mode(pm), retry="nervous integrations install pi")
    results: list[dict[str, Any]] = []

    def write() -> None:
        managed = _managed(folder) is not None
        for rel, text in shipped.items():
            target = folder / rel
            if not target.exists():
                action = "installed"
            elif target.is_file() and _sha256(target.read_text(encoding="utf-8", errors="replace")) == _sha256(text):
                action = "unchanged"
            else:
                action = "updated" if managed else "replaced"
            if action != "unchanged":
                target.parent.mkdir(parents=True, exist_ok=True)
                _write(target, text)
            results.append({"name": rel, "path": str(target), "action": action})
        marker = {"managed_by": "nervous", "integration": "pi", "version": __version__,
                  "sha256": {rel: _sha256(text) for rel, text in shipped.items()}}
        _write(folder / MARKER, json.dumps(marker, indent=2) + "\n")

    gate.Gate(pm).admit(verdicts[0], approval, write)
    return {"host": "pi", "workspace": str(root), "skills_dir": str(folder / "skills"), "extension_dir": str(folder),
            "skills": results}


def _verdict(pm: Any, host: str, name: str, text: str) -> Any:
    """The gate's review of a shipped skill (verified: it comes with this package)."""
    from ...engines.install import gate
    from ...kernel.records import SkillBundle, SkillFile, SkillRef

    bundle = SkillBundle(ref=SkillRef(name, registry=f"integration:{host}"), version=None,
                         registry=f"integration:{host}", files=(SkillFile("SKILL.md", text.encode("utf-8")),))
    return gate.review(pm, bundle, label=f"{host} integration skill {name}", source=f"integration:{host}")


__all__ = ["bundled_skills", "bundled_files", "install", "MARKER", "HOSTS", "PI_DIR"]
