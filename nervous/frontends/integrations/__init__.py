"""Host integrations shipped with nervous: OpenClaw skills and a pi package, all calling the ``nervous`` CLI.

The files live in this package (``openclaw/<name>/SKILL.md``, ``pi/...``) so they are installed
with the wheel. :func:`install` copies OpenClaw's skills into a workspace's ``skills/`` folder and
the pi package into ``<workspace>/.pi/extensions/nervous/`` (where pi discovers project
extensions). A copy we wrote carries a ``.nervous-integration.json`` marker recording the sha256 of
each file written; a same-named folder without it is the user's, and a file that no longer matches
the marker was edited: neither is overwritten unless they say ``force``. Nothing is ever written
through a symbolic link or over anything but a regular file.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import secrets
import stat
from pathlib import Path
from typing import Any

from ...errors import BadInput, NervousError, Refused, input_error

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


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
#: open, make, inspect and rename relative to an open folder (POSIX): a link swapped into the path after
#: the checks cannot redirect a write; elsewhere the same steps run on full paths, each checked first
_AT = bool(_NOFOLLOW and _DIRECTORY) and {os.open, os.mkdir, os.stat, os.rename, os.unlink} <= os.supports_dir_fd
#: a file larger than this is never one nervous wrote (ours are a few KiB): it counts as changed
_MAX_READ = 4 * 1024 * 1024


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _unsafe_path(message: str, targets: list[str] | None = None) -> BadInput:
    return BadInput(message, code="unsafe_path", details={"conflicts": targets} if targets else None)


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "a folder" if stat.S_ISDIR(mode) else "not a regular file"


def _path_problems(root: Path, rels: list[str]) -> list[tuple[str, str]]:
    """``(path, what it is)`` for everything in the way of writing ``root/rel`` for each ``rel`` ("/"-separated).

    Every folder between ``root`` and the file must be a real folder (or not exist yet) and the file
    a regular file (or not exist): a symbolic link, device, pipe or file in the way is never written
    through or over, even with ``force``.
    """
    found: dict[str, str] = {}
    for rel in rels:
        parts = rel.split("/")
        for i in range(1, len(parts) + 1):
            path = root.joinpath(*parts[:i])
            try:
                mode = os.lstat(path).st_mode
            except FileNotFoundError:
                break
            if i == len(parts):
                if not stat.S_ISREG(mode):
                    found[str(path)] = _kind(mode)
            elif not stat.S_ISDIR(mode):
                found[str(path)] = "a symbolic link" if stat.S_ISLNK(mode) else "not a folder"
                break
    return list(found.items())


def _refuse_unsafe(problems: list[tuple[str, str]]) -> BadInput:
    listed = "; ".join(f"{path} is {what}" for path, what in problems)
    return _unsafe_path(f"nothing was installed: {listed} (nervous never writes through a symbolic link or over "
                        "anything but a regular file, even with --force)", [path for path, _ in problems])


def _read(path: Path) -> bytes | None:
    """The bytes of the regular file ``path`` (``None`` when there is none), without following a link at
    ``path`` or blocking on a pipe; at most ``_MAX_READ + 1`` bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK):
            raise _unsafe_path(f"{path} is a symbolic link; nervous never reads or writes through it",
                               [str(path)]) from None
        raise
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise _unsafe_path(f"{path} is {_kind(mode)}; nervous never replaces it", [str(path)])
        chunks, size = [], 0
        while size <= _MAX_READ and (chunk := os.read(fd, 1 << 16)):
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _digest(path: Path) -> str | None:
    """The sha256 of the file at ``path`` (``None``: no file), as the marker records it."""
    data = _read(path)
    if data is None:
        return None
    return hashlib.sha256(data).hexdigest() if len(data) <= _MAX_READ else "too-large"


def _managed(folder: Path) -> dict[str, Any] | None:
    """The marker of a folder nervous wrote (``None``: the folder is not nervous's)."""
    try:
        raw = _read(folder / MARKER)
    except BadInput:
        return None
    if raw is None:
        return None
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    return data if isinstance(data, dict) and data.get("managed_by") == "nervous" else None


def _action(current: str | None, new: str, recorded: object, *, managed: bool, force: bool) -> str | None:
    """What installing a file means: installed, unchanged, updated (nervous's own copy, as nervous wrote it),
    replaced (with ``force``), or ``None``: the file changed since nervous wrote it (or nervous's marker does
    not say what it wrote) and is kept."""
    if current is None:
        return "installed"
    if current == new:
        return "unchanged"
    if managed and current == recorded:
        return "updated"
    return "replaced" if force else None


def _refuse_changed(changed: list[tuple[str, bool]]) -> Refused:
    """``changed``: (path, whether the marker records what nervous wrote there)."""
    edited = [p for p, known in changed if known]
    unknown = [p for p, known in changed if not known]
    parts = []
    if edited:
        parts.append(f"{', '.join(edited)} changed since nervous wrote {'it' if len(edited) == 1 else 'them'}")
    if unknown:
        parts.append(f"{', '.join(unknown)} differ{'s' if len(unknown) == 1 else ''} from this version and "
                     "nervous's marker does not record what it wrote there")
    return Refused("nothing was installed: " + "; ".join(parts) + " (kept; use --force to replace)",
                   code="modified", details={"conflicts": [p for p, _ in changed]})


def _write(root: Path, rel: str, data: bytes) -> None:
    """Write ``root/rel`` whole: missing folders on the way are made, none is followed if it is a link.

    The bytes go to a new temporary file of a random name beside the target (created exclusively,
    never through a link, never a pipe), which is then renamed over the name; the name itself must
    be missing or a regular file (a link, folder, device or pipe there is never replaced).
    """
    parts = rel.split("/")
    here = root
    fd = os.open(root, os.O_RDONLY | _DIRECTORY) if _AT else None
    try:
        for name in parts[:-1]:
            here = here / name
            with contextlib.suppress(FileExistsError):
                os.mkdir(name if fd is not None else here, dir_fd=fd)
            if fd is None:
                mode = os.lstat(here).st_mode
                if not stat.S_ISDIR(mode):
                    raise _unsafe_path(f"{here} is {_kind(mode)}; nervous never writes through it", [str(here)])
                continue
            try:
                sub = os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _NONBLOCK, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.EMLINK, errno.ENOTDIR):
                    raise _unsafe_path(f"{here} is a symbolic link or not a folder; nervous never writes through it",
                                       [str(here)]) from None
                raise
            os.close(fd)
            fd = sub
        _replace(fd, here, parts[-1], data)
    finally:
        if fd is not None:
            os.close(fd)


def _replace(fd: int | None, folder: Path, name: str, data: bytes) -> None:
    """Put ``data`` at ``folder/name`` through a fresh temporary file (``fd``: ``folder`` opened, or ``None``)."""

    def at(entry: str) -> str:
        return entry if fd is not None else str(folder / entry)

    def check() -> None:
        try:
            mode = os.stat(at(name), dir_fd=fd, follow_symlinks=False).st_mode
        except FileNotFoundError:
            return
        if not stat.S_ISREG(mode):
            raise _unsafe_path(f"{folder / name} is {_kind(mode)}; nervous never replaces it", [str(folder / name)])

    check()
    for _ in range(100):
        tmp = f".{name}.{secrets.token_hex(8)}.tmp"
        try:
            out = os.open(at(tmp), os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o666, dir_fd=fd)
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError(errno.EEXIST, "no free temporary file name", str(folder))
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(out, view):]
            os.fsync(out)
        finally:
            os.close(out)
        check()  # (again: something may have taken the name meanwhile)
        os.replace(at(tmp), at(name), src_dir_fd=fd, dst_dir_fd=fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(at(tmp), dir_fd=fd)
        raise


def _partial(exc: NervousError | OSError, written: list[str]) -> NervousError:
    """``exc``, saying what was written before it struck (the rest was not)."""
    err = exc if isinstance(exc, NervousError) else input_error(exc)
    err.message += (f" (already written before this failure: {', '.join(written)}; nothing else was: "
                    "fix the cause and run the install again)")
    err.details["written"] = list(written)
    return err


def install(host: str, workspace: str | os.PathLike[str], *, force: bool = False, pm: Any = None,
            approval: Any = None) -> dict[str, Any]:
    """Copy ``host``'s skills into ``<workspace>/skills/<name>/SKILL.md``, through the install gate.

    Every target is checked before anything is written: a same-named folder we did not write (no
    marker) is refused unless ``force``, and so is a file changed since we wrote it (its sha256 is no
    longer the one the marker records; a marker without it counts as changed); a symbolic link or
    anything but a real folder on the way, or anything but a regular file at a target, is refused
    even with ``force``. Re-running updates our unchanged copies. Each skill is reviewed and approved
    by :mod:`nervous.engines.install.gate` like any other (``pm``: the plugin manager; default: one
    with the built-in plugins only).
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
    problems = _path_problems(root, [f"skills/{name}/{leaf}" for name in skills for leaf in ("SKILL.md", MARKER)])
    if problems:
        raise _refuse_unsafe(problems)
    plan: list[tuple[str, Path, str, bool]] = []  # (name, folder, action, write the files)
    refused: list[str] = []
    changed: list[tuple[str, bool]] = []
    for name, text in skills.items():
        folder = skills_dir / name
        new = _sha256(text)
        if not os.path.lexists(folder):
            plan.append((name, folder, "installed", True))
            continue
        marker = _managed(folder)
        if marker is None and not force:
            refused.append(f"{folder} holds a skill nervous did not install (use --force to replace its SKILL.md)")
            continue
        recorded = marker.get("sha256") if marker is not None else None
        action = _action(_digest(folder / "SKILL.md"), new, recorded, managed=marker is not None, force=force)
        if action is None:
            changed.append((str(folder / "SKILL.md"), isinstance(recorded, str)))
        else:  # an unchanged copy whose marker does not record it gets its marker rewritten
            plan.append((name, folder, action, action != "unchanged" or recorded != new))
    if refused:
        raise Refused("nothing was installed: " + "; ".join(refused), code="unmanaged_skill",
                      details={"conflicts": refused})
    if changed:
        raise _refuse_changed(changed)
    verdicts = {name: _verdict(pm, host, name, skills[name]) for name, *_ in plan}
    for verdict in verdicts.values():  # every skill passes review and approval before any is written
        gate.check_approval(verdict, approval, gate.approval_mode(pm), retry=f"nervous integrations install {host}")
    results = []
    written: list[str] = []
    for name, folder, action, needed in plan:
        text = skills[name]
        if needed:

            def write(name: str = name, text: str = text) -> None:
                _write(root, f"skills/{name}/SKILL.md", text.encode("utf-8"))
                marker = {"managed_by": "nervous", "integration": host, "skill": name, "version": __version__,
                          "sha256": _sha256(text)}
                _write(root, f"skills/{name}/{MARKER}", (json.dumps(marker, indent=2) + "\n").encode("utf-8"))

            try:
                gate.Gate(pm).admit(verdicts[name], approval, write)
            except (NervousError, OSError) as exc:
                if not written:
                    raise
                raise _partial(exc, written) from exc
            written.append(name)
        results.append({"name": name, "path": str(folder / "SKILL.md"), "action": action})
    return {"host": host, "workspace": str(root), "skills_dir": str(skills_dir), "skills": results}


def _install_pi(root: Path, *, force: bool, pm: Any, approval: Any) -> dict[str, Any]:
    """Copy the pi package into ``<root>/.pi/extensions/nervous/`` (all files, then the marker).

    Checked first, as for OpenClaw: links and non-folders on the way are refused, an extension
    nervous did not write and files changed since nervous wrote them are kept unless ``force``. The
    package's skills are reviewed and approved by the gate before anything is written; the whole
    copy is one admission.
    """
    from ... import __version__
    from ...engines.install import gate

    shipped = bundled_files("pi")
    folder = root.joinpath(*PI_DIR)
    prefix = "/".join(PI_DIR)
    problems = _path_problems(root, [f"{prefix}/{rel}" for rel in [*shipped, MARKER]])
    if problems:
        raise _refuse_unsafe(problems)
    marker = _managed(folder) if os.path.lexists(folder) else None
    if os.path.lexists(folder) and marker is None and not force:
        raise Refused(f"nothing was installed: {folder} holds an extension nervous did not install "
                      "(use --force to replace its files)", code="unmanaged_skill", details={"conflicts": [str(folder)]})
    recorded = marker.get("sha256") if marker is not None else None
    if not isinstance(recorded, dict):
        recorded = {}
    plan: list[tuple[str, str]] = []
    changed: list[tuple[str, bool]] = []
    for rel, text in shipped.items():
        action = _action(_digest(folder / rel), _sha256(text), recorded.get(rel), managed=marker is not None,
                         force=force)
        if action is None:
            changed.append((str(folder / rel), rel in recorded))
        else:
            plan.append((rel, action))
    if changed:
        raise _refuse_changed(changed)
    verdicts = [_verdict(pm, "pi", name, text) for name, text in bundled_skills("pi").items()]
    for verdict in verdicts:  # every shipped skill passes review and approval before any file is written
        gate.check_approval(verdict, approval, gate.approval_mode(pm), retry="nervous integrations install pi")
    written: list[str] = []

    def write() -> None:
        for rel, action in plan:
            if action != "unchanged":
                _write(root, f"{prefix}/{rel}", shipped[rel].encode("utf-8"))
                written.append(rel)
        marker = {"managed_by": "nervous", "integration": "pi", "version": __version__,
                  "sha256": {rel: _sha256(text) for rel, text in shipped.items()}}
        _write(root, f"{prefix}/{MARKER}", (json.dumps(marker, indent=2) + "\n").encode("utf-8"))

    try:
        gate.Gate(pm).admit(verdicts[0], approval, write)
    except (NervousError, OSError) as exc:
        if not written:
            raise
        raise _partial(exc, written) from exc
    results = [{"name": rel, "path": str(folder / rel), "action": action} for rel, action in plan]
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
