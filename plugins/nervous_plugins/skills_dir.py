"""The ``skills-dir`` install target: ``<workdir>/skills/<slug>/``, compatible with the clawhub CLI.

Layout and formats follow specs/protocols.md §A7: a bare slug installs to ``<skills>/<slug>``, an
owner-qualified reference to ``<skills>/@<owner>/<slug>``; ClawHub installs get a
``<workdir>/.clawhub/lock.json`` entry and ``<skill>/.clawhub/origin.json`` written exactly as the
official CLI writes them, so ``clawhub list`` and ``clawhub update`` see our installs.

Ownership: a folder is ours only when nervous's own install record (kept in the configured storage
backend, collection ``installs``) names it. Lockfile entries and origin files alone prove nothing
(the official CLI writes the same), so skills installed by hand or by other tools are listed as
unmanaged and are never modified or removed.

Installs are staged: files are written to a hidden sibling folder, verified, then swapped in with a
rename; a replaced install of ours is moved aside first and restored if anything fails.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nervous.errors import BadInput, Refused, StorageError
from nervous.plugin import FileDigest, InstallRecord, SkillBundle, SkillRef

if TYPE_CHECKING:
    from nervous.plugin import ProviderContext, Store

NAME = "skills-dir"
COLLECTION = "installs"
STAGING_PREFIX = ".nervous-staging-"
ASIDE_PREFIX = ".nervous-previous-"
TRASH_PREFIX = ".nervous-trash-"
#: What an install still has to write once its folder is swapped in (lockfile entry, our record), so a
#: process killed between the swap and those writes is completed by the next one, never half-recorded.
JOURNAL_PREFIX = ".nervous-commit-"




def _factory(ctx: ProviderContext) -> SkillsDirTarget:
    configured = ctx.settings.get("workdir") or os.environ.get("CLAWHUB_WORKDIR") or None
    skills = Path(ctx.config.install.dir).expanduser()
    if skills.is_absolute():
        workdir = Path(configured).expanduser().absolute() if configured else skills.parent
        skills_dir = skills
    else:
        workdir = Path(configured).expanduser().absolute() if configured else Path.cwd()
        skills_dir = workdir / skills
    return SkillsDirTarget(skills_dir, workdir=workdir, store=lambda: ctx.manager.storage())


class SkillsDirTarget:
    """An :class:`nervous.interfaces.InstallTarget` over one skills folder."""

    name = NAME

    def __init__(self, skills_dir: Path, *, workdir: Path | None = None, store: Any = None) -> None:
        self.skills_dir = Path(skills_dir).absolute()
        self.workdir = Path(workdir).absolute() if workdir else self.skills_dir.parent
        self._store_factory = store
        self._store: Store | None = None
        self.warnings: list[str] = []

    # ------------------------------------------------------------------ records

    @property
    def store(self) -> Store:
        if self._store is None:
            if self._store_factory is None:
                from nervous.plugin import MemoryStore

                self._store = MemoryStore()
            else:
                self._store = self._store_factory() if callable(self._store_factory) else self._store_factory
        assert self._store is not None
        return self._store

    @property
    def _key_prefix(self) -> str:
        """Records are keyed per skills folder (several projects share one nervous home)."""
        import hashlib

        return hashlib.sha256(str(self.skills_dir).encode()).hexdigest()[:16] + "/"

    def _record_key(self, lock_key: str) -> str:
        return self._key_prefix + lock_key

    def _records(self) -> dict[str, dict[str, Any]]:
        """Our records for this skills folder, by lock key."""
        prefix = self._key_prefix
        out: dict[str, dict[str, Any]] = {}
        for key in self.store.keys(COLLECTION):
            if key.startswith(prefix):
                snap = self.store.read(COLLECTION, key)
                self.warnings.extend(snap.warnings)
                if snap.value is not None:
                    out[key[len(prefix):]] = snap.value
        return out

    # ------------------------------------------------------------------ layout

    @property
    def lock_path(self) -> Path:
        return self.workdir / ".clawhub" / "lock.json"

    def folder_for(self, ref: SkillRef) -> Path:
        slug = _safe_segment(ref.name, "slug")
        if ref.owner:
            return self.skills_dir / f"@{_safe_segment(ref.owner, 'owner')}" / slug
        return self.skills_dir / slug

    @staticmethod
    def lock_key(ref: SkillRef) -> str:
        return f"@{ref.owner}/{ref.name}" if ref.owner else ref.name

    # ------------------------------------------------------------------ lockfile

    def read_lock(self) -> dict[str, Any]:
        """The lockfile (legacy ``.clawdhub`` as fallback); a corrupt one is copied aside and refused."""
        import shutil

        for path in (self.lock_path, self.workdir / ".clawdhub" / "lock.json"):
            if not path.is_file():
                continue
            raw = path.read_bytes()
            try:
                data = json.loads(raw)
                if not isinstance(data, dict) or data.get("version") != 1 or not isinstance(data.get("skills"), dict):
                    raise ValueError("expected {\"version\": 1, \"skills\": {...}}")
            except ValueError as exc:
                from nervous.plugin.toolkit import now

                aside = path.with_name(f"lock.json.corrupt-{int(now() * 1000)}")
                if not any(p.name.startswith("lock.json.corrupt-") for p in path.parent.iterdir()):
                    shutil.copyfile(path, aside)
                raise BadInput(
                    f"{path}: the clawhub lockfile is not valid ({exc}); a copy was kept beside it. Fix or "
                    "remove it before installing or uninstalling; nothing was changed", code="corrupt_lockfile",
                ) from None
            return data
        return {"version": 1, "skills": {}}

    def write_lock(self, lock: dict[str, Any]) -> None:
        """Pretty JSON (two spaces, trailing newline), replaced atomically, as the CLI writes it."""
        _atomic_write(self.lock_path, json.dumps(lock, indent=2, ensure_ascii=False) + "\n")

    # ------------------------------------------------------------------ install

    def preflight(self, ref: SkillRef, *, registry: str | None = None, force: bool = False) -> None:
        """Refuse early (before any download) what :meth:`install` would refuse."""
        target = self.folder_for(ref)
        key = self.lock_key(ref)
        lock = self.read_lock() if registry == "clawhub" else None
        exists = target.exists() or target.is_symlink()
        if exists and key not in self._records():
            raise Refused(f"{target} exists and was not installed by nervous (an unmanaged skill); it is never "
                          "replaced. Remove it yourself or install under another name", code="unmanaged")
        if exists and not force:
            raise Refused(f"{key} is already installed at {target}; use --force to replace it",
                          code="already_installed")
        if lock is not None and (lock["skills"].get(key) or {}).get("pinned"):
            raise Refused(f"{key} is pinned in {self.lock_path}; unpin it with the clawhub CLI first", code="pinned")

    def install(self, bundle: SkillBundle, *, force: bool = False, source: dict[str, Any] | None = None,
                layout_ref: SkillRef | None = None) -> InstallRecord:
        """Stage, verify and swap ``bundle`` into place; record it as ours.

        ``source`` carries what the origin file needs (``registry`` URL, resolved ``ownerHandle``);
        ``layout_ref`` is the reference as the user wrote it (a bare slug installs without the owner
        folder, as the clawhub CLI does).
        """
        import shutil

        from nervous.plugin.toolkit import now, utc_timestamp

        self.warnings.extend(self.recover())
        ref = layout_ref or bundle.ref
        source = dict(source or {})
        target = self.folder_for(ref)
        key = self.lock_key(ref)
        clawhub = bundle.registry == "clawhub"
        self.preflight(ref, registry=bundle.registry, force=force)
        lock = self.read_lock() if clawhub else None
        exists = target.exists() or target.is_symlink()

        target.parent.mkdir(parents=True, exist_ok=True)
        staging = target.parent / _temp_name(STAGING_PREFIX, target.name)
        aside: Path | None = None
        swapped = False
        lock_written = False
        journal: Path | None = None
        lock_before = self.lock_path.read_bytes() if self.lock_path.is_file() else None
        try:
            self._write_files(staging, bundle)
            from nervous.plugin.toolkit import folder_fingerprint

            installed_fp = folder_fingerprint(staging)
            installed_at_ms = int(now() * 1000)
            if clawhub:
                origin = {"version": 1, "registry": source.get("registry") or "https://clawhub.ai",
                          "slug": bundle.ref.name}
                owner = source.get("ownerHandle") or bundle.ref.owner
                if owner:
                    origin["ownerHandle"] = owner
                origin.update({"installedVersion": bundle.version, "installedAt": installed_at_ms,
                               "fingerprint": installed_fp})
                _atomic_write(staging / ".clawhub" / "origin.json", json.dumps(origin, indent=2) + "\n")
            entry: dict[str, Any] | None = None
            if lock is not None:
                entry = {"version": bundle.version, "installedAt": installed_at_ms}
                if (lock["skills"].get(key) or {}).get("pinned"):
                    entry["pinned"] = True
                owner = source.get("ownerHandle") or bundle.ref.owner
                if owner:
                    entry["ownerHandle"] = owner
            record = InstallRecord(
                ref=bundle.ref, registry=bundle.registry or "?", slug=key, version=bundle.version,
                fingerprint=installed_fp, path=str(target), installed_at=utc_timestamp(), target=NAME,
                files=tuple(FileDigest(f.path, f.size, f.sha256) for f in bundle.files),
            )
            from nervous.plugin.toolkit import to_json

            journal = target.parent / (_temp_name(JOURNAL_PREFIX, target.name) + ".json")
            _atomic_write(journal, json.dumps({"key": key, "fingerprint": installed_fp, "lock_entry": entry,
                                               "record": to_json(record), "source": source}) + "\n")
            if exists:
                aside = target.parent / _temp_name(ASIDE_PREFIX, target.name)
                os.replace(target, aside)
            os.replace(staging, target)
            swapped = True
            if lock is not None and entry is not None:
                lock["skills"][key] = entry
                lock_written = True
                self.write_lock(lock)
            self._save_record(key, record, source)
        except BaseException:
            if lock_written:
                if lock_before is None:
                    self.lock_path.unlink(missing_ok=True)
                else:
                    _atomic_write_bytes(self.lock_path, lock_before)
            if swapped:
                shutil.rmtree(target, ignore_errors=True)
            if aside is not None and aside.exists():
                os.replace(aside, target)
            shutil.rmtree(staging, ignore_errors=True)
            if journal is not None:
                journal.unlink(missing_ok=True)
            raise
        journal.unlink(missing_ok=True)
        if aside is not None:
            shutil.rmtree(aside, ignore_errors=True)
        return record

    def _write_files(self, staging: Path, bundle: SkillBundle) -> None:
        import hashlib

        staging.mkdir(parents=True)
        root = staging.resolve()
        for f in bundle.files:
            rel = _safe_relpath(f.path)
            dest = (staging / rel)
            if not str(dest.resolve()).startswith(str(root) + os.sep):
                raise BadInput(f"archive entry {f.path!r} would be written outside the skill folder",
                               code="unsafe_path")
            dest.parent.mkdir(parents=True, exist_ok=True)
            with open(dest, "xb") as fh:
                fh.write(f.data)
            if hashlib.sha256(dest.read_bytes()).hexdigest() != f.sha256:
                raise BadInput(f"{f.path}: written bytes differ from the verified bytes", code="integrity")

    def _save_record(self, key: str, record: InstallRecord, source: dict[str, Any]) -> None:
        from nervous.plugin.toolkit import to_json

        doc = to_json(record)

        def put(d: dict[str, Any]) -> None:
            d.clear()
            d.update(doc)
            d["source"] = {k: v for k, v in source.items() if isinstance(v, (str, int, float, bool))}

        try:
            updated = self.store.update(COLLECTION, self._record_key(key), put)
        except StorageError:
            raise
        self.warnings.extend(updated.warnings)

    # ------------------------------------------------------------------ uninstall and listing

    def uninstall(self, slug: str) -> InstallRecord:
        """Remove an install of ours and its lockfile entry; anything else is refused untouched."""
        import shutil

        from nervous.plugin.toolkit import from_json

        self.warnings.extend(self.recover())
        ref = SkillRef.parse(slug) if not isinstance(slug, SkillRef) else slug
        key = self.lock_key(ref)
        records = self._records()
        if key not in records:
            # a bare slug may name an owner-qualified install of ours
            matches = [k for k in records if k.split("/")[-1] == ref.name] if not ref.owner else []
            if len(matches) == 1:
                key = matches[0]
            else:
                folder = self.folder_for(ref)
                where = f" ({folder} is an unmanaged skill: left untouched)" if folder.exists() else ""
                raise Refused(f"{key} was not installed by nervous; refusing to uninstall it{where}",
                              code="not_ours")
        doc = dict(records[key])
        doc.pop("source", None)
        record = from_json(doc, InstallRecord, f"install record {key}")
        folder = Path(record.path)
        lock = self.read_lock() if record.registry == "clawhub" else None
        if folder.exists():
            trash = folder.parent / _temp_name(TRASH_PREFIX, folder.name)
            os.replace(folder, trash)
            shutil.rmtree(trash, ignore_errors=True)
        if lock is not None and key in lock["skills"]:
            del lock["skills"][key]
            self.write_lock(lock)
        self.store.delete(COLLECTION, self._record_key(key))
        return record

    def release(self, slug: str) -> bool:
        """Hand an install of ours over to the user: the folder stays, our record goes (never removed later)."""
        ref = SkillRef.parse(slug) if not isinstance(slug, SkillRef) else slug
        key = self.lock_key(ref)
        if key not in self._records():
            return False
        return self.store.delete(COLLECTION, self._record_key(key))

    def installed(self) -> list[InstallRecord]:
        from nervous.plugin.toolkit import from_json

        out = []
        for key, doc in sorted(self._records().items()):
            doc = dict(doc)
            doc.pop("source", None)
            out.append(from_json(doc, InstallRecord, f"install record {key}"))
        return out

    def on_disk(self, record: InstallRecord) -> dict[str, Any]:
        """What the folder holds now against what we recorded: present, modified, another tool's version.

        ``modified`` means the content fingerprint differs from the one installed (an edit, or an update
        by another tool such as ``clawhub update``, whose origin file then names ``version``).
        """
        from nervous.plugin.toolkit import folder_fingerprint

        folder = Path(record.path)
        if not folder.is_dir():
            return {"present": False, "modified": None, "version": None}
        try:
            modified = folder_fingerprint(folder) != record.fingerprint
        except OSError:
            modified = None
        version = None
        for name in (".clawhub", ".clawdhub"):
            try:
                origin = json.loads((folder / name / "origin.json").read_bytes())
            except (OSError, ValueError):
                continue
            if isinstance(origin, dict) and isinstance(origin.get("installedVersion"), str):
                version = origin["installedVersion"]
                break
        return {"present": True, "modified": modified, "version": version}

    def recover(self) -> list[str]:
        """Finish what a killed install or uninstall left behind; returns what was done.

        Temporary folders carry their writer's pid; those of live processes are left alone. A
        staging or trash folder is removed; a previous version set aside is put back when the
        swap never happened (its folder is missing), else removed — the old or the new skill,
        never a mix and never nothing.
        """
        import shutil

        from nervous.plugin.toolkit import pid_alive

        done: list[str] = []
        if not self.skills_dir.is_dir():
            return done
        parents = [self.skills_dir] + [d for d in self.skills_dir.iterdir() if d.name.startswith("@") and d.is_dir()]
        for parent in parents:
            for entry in sorted(parent.glob(JOURNAL_PREFIX + "*.json")):
                parts = entry.name[len(JOURNAL_PREFIX):-len(".json")].rsplit("-", 2)
                if len(parts) == 3 and parts[1].isdigit() and not pid_alive(int(parts[1])):
                    done.extend(self._finish_commit(entry, parent / parts[0]))
            for entry in list(parent.iterdir()):
                for prefix in (STAGING_PREFIX, ASIDE_PREFIX, TRASH_PREFIX):
                    if not entry.name.startswith(prefix):
                        continue
                    parts = entry.name[len(prefix):].rsplit("-", 2)
                    if len(parts) != 3 or not parts[1].isdigit() or pid_alive(int(parts[1])):
                        break
                    target = parent / parts[0]
                    if prefix == ASIDE_PREFIX and not (target.exists() or target.is_symlink()):
                        os.replace(entry, target)
                        done.append(f"restored {target} from an interrupted install")
                    else:
                        shutil.rmtree(entry, ignore_errors=True)
                        done.append(f"removed {entry.name} left by an interrupted operation")
                    break
        return done

    def _finish_commit(self, journal: Path, target: Path) -> list[str]:
        """Complete an install killed after its swap (the folder is the journal's), else drop the journal."""
        from nervous.plugin.toolkit import folder_fingerprint, from_json

        try:
            intent = json.loads(journal.read_bytes())
            swapped = target.is_dir() and folder_fingerprint(target) == intent["fingerprint"]
            record = from_json(intent["record"], InstallRecord, f"install journal {journal.name}") if swapped else None
        except (OSError, ValueError, KeyError, TypeError, BadInput) as exc:
            aside = journal.with_name(journal.name + ".corrupt")
            os.replace(journal, aside)
            return [f"install journal {journal.name} is unreadable ({exc}); kept as {aside.name}, nothing completed"]
        done: list[str] = []
        if record is not None:
            key = intent["key"]
            if intent.get("lock_entry") is not None:
                lock = self.read_lock()
                lock["skills"][key] = intent["lock_entry"]
                self.write_lock(lock)
            self._save_record(key, record, intent.get("source") or {})
            done.append(f"completed the interrupted install of {key} {record.version} (lockfile and record)")
        journal.unlink(missing_ok=True)
        return done

    def unmanaged(self) -> list[str]:
        """Skill folders present without an install record of ours (``slug`` or ``@owner/slug``)."""
        self.warnings.extend(self.recover())
        ours = set(self._records())
        found: list[str] = []
        if not self.skills_dir.is_dir():
            return found
        for entry in sorted(self.skills_dir.iterdir()):
            if entry.name.startswith(".") or not entry.is_dir():
                continue
            if entry.name.startswith("@"):
                for sub in sorted(entry.iterdir()):
                    name = f"{entry.name}/{sub.name}"
                    if sub.is_dir() and not sub.name.startswith(".") and name not in ours and _is_skill(sub):
                        found.append(name)
                continue
            if entry.name not in ours and _is_skill(entry):
                found.append(entry.name)
        return found

    def close(self) -> None:
        self._store = None


# ---------------------------------------------------------------------------------------- helpers


def _temp_name(prefix: str, name: str) -> str:
    """A sibling's name that says what it is, whose it is (pid) and cannot collide."""
    import uuid

    return f"{prefix}{name}-{os.getpid()}-{uuid.uuid4().hex[:8]}"


def _is_skill(folder: Path) -> bool:
    return any((folder / n).is_file() for n in ("SKILL.md", "skill.md", "skills.md", ".clawhub/origin.json",
                                                 ".clawdhub/origin.json"))


def _safe_segment(value: str, what: str) -> str:
    if not value or value in (".", "..") or "/" in value or "\\" in value or "\0" in value or ".." in value:
        raise BadInput(f"invalid {what} {value!r} for a folder name")
    return value


def _safe_relpath(path: str) -> str:
    if not path or path.startswith("/") or "\\" in path or "\0" in path:
        raise BadInput(f"archive entry {path!r}: absolute paths, backslashes and NUL are refused", code="unsafe_path")
    parts = path.split("/")
    if any(p in ("", ".", "..") for p in parts):
        raise BadInput(f"archive entry {path!r}: empty, '.' or '..' segments are refused", code="unsafe_path")
    return path


def _atomic_write(path: Path, text: str) -> None:
    _atomic_write_bytes(path, text.encode("utf-8"))


def _atomic_write_bytes(path: Path, data: bytes) -> None:
    import uuid

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


__all__ = ["SkillsDirTarget"]
