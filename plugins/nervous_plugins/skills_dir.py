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
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nervous.errors import BadInput, Refused, StorageError
from nervous.plugin import FileDigest, InstallRecord, SkillBundle, SkillRef

if TYPE_CHECKING:
    from nervous.plugin import ProviderContext, Store

NAME = "skills-dir"
#: the folders inside a skill where an install is recorded (``origin.json``): never taken from a bundle
_RECORD_FOLDERS = (".clawhub", ".clawdhub")
#: the registry provider whose CLI writes .clawhub/lock.json and origin.json
NAME_CLAWHUB = "clawhub"
COLLECTION = "installs"
#: install records of the wrong shape, kept whole (never read as records again)
QUARANTINE = "installs-quarantine"
STAGING_PREFIX = ".nervous-staging-"
#: the lock file that serialises installs and uninstalls in one skills folder
INSTALL_LOCK = ".nervous-install.lock"
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


#: what :meth:`SkillsDirTarget._shown_lock` answers for a lockfile that is missing or not JSON
_UNREADABLE: Any = object()


class SkillsDirTarget:
    """An :class:`nervous.plugin.protocols.InstallTarget` over one skills folder."""

    name = NAME

    def __init__(self, skills_dir: Path, *, workdir: Path | None = None, store: Any = None) -> None:
        self.skills_dir = Path(skills_dir).absolute()
        self.workdir = Path(workdir).absolute() if workdir else self.skills_dir.parent
        self._store_factory = store
        self._store: Store | None = None
        self.warnings: list[str] = []
        #: Refuse (code ``modified``) to replace an install of ours whose folder changed since it was
        #: installed, even when forced: ``nervous update`` without ``--force`` sets it, so local edits and
        #: added files are never thrown away unasked.
        self.keep_local_changes = False
        #: lockfile path -> (its stat identity, its parsed content or _UNREADABLE), for display:
        #: ``unmanaged_info`` is asked once per folder and must not parse the whole lockfile each time
        self._shown_locks: dict[Path, tuple[tuple[int, int, int], Any]] = {}

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
                if snap.value is None:
                    continue
                problem = _record_problem(snap.value, key[len(prefix):])
                if problem is None:
                    out[key[len(prefix):]] = snap.value
                else:
                    self._set_aside(key, snap.value, problem)
        return out

    def _record(self, lock_key: str) -> dict[str, Any]:
        """Our record of one skill, ``{}`` when there is none or it has the wrong shape (``_records`` sets
        those aside): one read, so that comparing every install with its folder stays linear."""
        snap = self.store.read(COLLECTION, self._record_key(lock_key))
        self.warnings.extend(snap.warnings)
        doc = snap.value
        return doc if isinstance(doc, dict) and _record_problem(doc, lock_key) is None else {}

    def _set_aside(self, key: str, doc: dict[str, Any], problem: str) -> None:
        """A record that parses but has the wrong shape is quarantined like one that does not parse: kept whole in
        :data:`QUARANTINE`, removed from the records (its skill is then an unmanaged folder, left as it is)."""
        from nervous.plugin.toolkit import utc_timestamp

        self.store.update(QUARANTINE, key, lambda d: d.update(record=doc, problem=problem, at=utc_timestamp()))
        self.store.delete(COLLECTION, key)
        self.warnings.append(f"install record {key} had the wrong shape ({problem}); it was set aside in the "
                             f"'{QUARANTINE}' collection and the folder is now an unmanaged skill")

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
        """Check before downloading; waits for an install in progress in this folder, so it sees its result."""
        if not self.skills_dir.is_dir():  # no folder, no install in progress: create nothing yet
            self._preflight(ref, registry=registry, force=force)
            return
        with self._dir_lock():
            self._preflight(ref, registry=registry, force=force)

    def _preflight(self, ref: SkillRef, *, registry: str | None = None, force: bool = False) -> None:
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
        if exists and self.keep_local_changes:
            self.check_unchanged(key)
        if lock is not None and (lock["skills"].get(key) or {}).get("pinned"):
            raise Refused(f"{key} is pinned in {self.lock_path}; unpin it with the clawhub CLI first", code="pinned")

    def check_unchanged(self, slug: str) -> None:
        """Refuse (exit 1, code ``modified``) when the folder of our install ``slug`` differs from what was installed.

        The comparison is the one ``nervous verify`` makes; the folder is left as it is. Nothing is
        checked for a skill that is not ours or whose folder is missing (there is nothing of the user's
        to lose there).
        """
        from nervous.plugin.toolkit import from_json

        key = self.lock_key(SkillRef.parse(slug))
        doc = self._records().get(key)
        if doc is None:
            return
        record = from_json({k: v for k, v in doc.items() if k not in ("source", "manifest")}, InstallRecord,
                           f"install record {key}")
        now = self.on_disk(record)
        if not now["present"] or now["modified"] is False:
            return
        changes = list(now["changes"]) or ["the folder could not be compared with what was installed"]
        shown = "; ".join(changes[:5]) + (f"; and {len(changes) - 5} more" if len(changes) > 5 else "")
        raise Refused(
            f"{key} has local changes in {record.path} since nervous installed it ({shown}); nothing was replaced. "
            f"Keep them elsewhere first ('nervous verify {key}' lists them all), or rerun with --force to "
            "replace the folder and lose them", code="modified",
            details={"path": record.path, "changes": changes[:100], "changes_total": len(changes)})

    def _dir_lock(self) -> Any:
        """One install or uninstall at a time in this skills folder, across threads and processes."""
        from nervous.plugin.toolkit import FileLock

        self.skills_dir.mkdir(parents=True, exist_ok=True)
        return FileLock(self.skills_dir / INSTALL_LOCK, timeout=max(30.0, self._lock_timeout()))

    def _lock_timeout(self) -> float:
        store = self._store
        return float(getattr(store, "lock_timeout", 5.0) or 5.0)

    def install(self, bundle: SkillBundle, *, force: bool = False, source: dict[str, Any] | None = None,
                layout_ref: SkillRef | None = None) -> InstallRecord:
        """Stage, verify and swap ``bundle`` into place; record it as ours (one install at a time)."""
        with self._dir_lock():
            return self._install(bundle, force=force, source=source, layout_ref=layout_ref)

    def _install(self, bundle: SkillBundle, *, force: bool = False, source: dict[str, Any] | None = None,
                 layout_ref: SkillRef | None = None) -> InstallRecord:
        """Stage, verify and swap ``bundle`` into place; record it as ours.

        ``source`` carries what the origin file needs (``registry`` URL, resolved ``ownerHandle``);
        ``layout_ref`` is the reference as the user wrote it (a bare slug installs without the owner
        folder, as the clawhub CLI does).
        """
        from nervous.plugin.toolkit import now, require_admission, utc_timestamp

        require_admission(f"installing {bundle.ref.qualified}")
        self.warnings.extend(self.recover())
        ref = layout_ref or bundle.ref
        source = dict(source or {})
        target = self.folder_for(ref)
        key = self.lock_key(ref)
        clawhub = bundle.registry == "clawhub"
        reserved = sorted(f.path for f in bundle.files if f.path.split("/", 1)[0].casefold() in _RECORD_FOLDERS)
        if reserved:  # where the install's own record goes: a skill that brings one would be overwritten or clash
            raise BadInput(f"{bundle.ref.qualified} carries {', '.join(reserved[:5])}, in the folder where the "
                           "installer records the install (.clawhub, .clawdhub); nothing was installed",
                           code="unsafe_bundle", details={"entries": reserved[:20]})
        self._preflight(ref, registry=bundle.registry, force=force)
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

            manifest = snapshot(staging)
            journal = target.parent / (_temp_name(JOURNAL_PREFIX, target.name) + ".json")
            _atomic_write(journal, json.dumps({"key": key, "fingerprint": installed_fp, "lock_entry": entry,
                                               "record": to_json(record), "source": source,
                                               "manifest": manifest}) + "\n")
            if exists:
                aside = target.parent / _temp_name(ASIDE_PREFIX, target.name)
                os.replace(target, aside)
            os.replace(staging, target)
            swapped = True
            if lock is not None and entry is not None:
                lock["skills"][key] = entry
                lock_written = True
                self.write_lock(lock)
            self._save_record(key, record, source, manifest)
        except BaseException:
            if lock_written:
                if lock_before is None:
                    self.lock_path.unlink(missing_ok=True)
                else:
                    _atomic_write_bytes(self.lock_path, lock_before)
            if swapped:
                _discard(target)
            if aside is not None and aside.exists() and not (target.exists() or target.is_symlink()):
                os.replace(aside, target)
            _remove_tree(staging)
            if journal is not None:
                journal.unlink(missing_ok=True)
            raise
        journal.unlink(missing_ok=True)
        if aside is not None and not _discard(aside):
            self.warnings.append(f"{key} {bundle.version} is installed, but its previous folder could not be "
                                 f"removed completely; what is left (a {TRASH_PREFIX}{target.name}-… folder in "
                                 f"{target.parent}) is retried by the next command")
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

    def _save_record(self, key: str, record: InstallRecord, source: dict[str, Any],
                     manifest: dict[str, str] | None = None) -> None:
        from nervous.plugin.toolkit import to_json

        doc = to_json(record)

        def put(d: dict[str, Any]) -> None:
            d.clear()
            d.update(doc)
            d["source"] = {k: v for k, v in source.items() if isinstance(v, (str, int, float, bool))}
            if manifest is not None:
                d["manifest"] = manifest

        try:
            updated = self.store.update(COLLECTION, self._record_key(key), put)
        except StorageError:
            raise
        self.warnings.extend(updated.warnings)

    # ------------------------------------------------------------------ uninstall and listing

    def uninstall(self, slug: str) -> InstallRecord:
        """Remove an install of ours and its lockfile entry; anything else is refused untouched."""
        with self._dir_lock():
            return self._uninstall(slug)

    def _uninstall(self, slug: str) -> InstallRecord:
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
        doc.pop("manifest", None)
        record = from_json(doc, InstallRecord, f"install record {key}")
        # the folder removed is the one this target installs the skill into, never a path the stored record names
        # (a record edited by hand or by another tool could name any folder on the machine)
        folder = self.folder_for(SkillRef.parse(key))
        if Path(record.path).absolute() != folder:
            raise BadInput(f"the install record of {key} names {record.path!r}, not {folder}; nothing was removed "
                           f"(check the skills folder, then 'nervous storage check')", code="unsafe_path",
                           details={"record_path": str(record.path), "expected": str(folder)})
        lock = self.read_lock() if record.registry == "clawhub" else None
        if folder.exists() or folder.is_symlink():
            trash = folder.parent / _temp_name(TRASH_PREFIX, folder.name)
            os.replace(folder, trash)
            if not _remove_tree(trash):
                self.warnings.append(f"{key} is uninstalled, but its folder could not be removed completely; what "
                                     f"is left ({trash.name} in {trash.parent}) is retried by the next command")
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

        # finish an interrupted install first, so its record (not the previous one) is compared
        self.warnings.extend(w for w in self.recover() if w not in self.warnings)

        out = []
        for key, doc in sorted(self._records().items()):
            doc = dict(doc)
            doc.pop("source", None)
            doc.pop("manifest", None)
            out.append(from_json(doc, InstallRecord, f"install record {key}"))
        return out

    def on_disk(self, record: InstallRecord) -> dict[str, Any]:
        """What the folder holds now against what we installed: present, modified, what changed, version.

        Every entry counts (ignore files, dotfiles, ``.git``, ``node_modules``, executable bits and
        symbolic links included): ``changes`` lists each added, removed or altered path. ``version`` is
        the one another tool (``clawhub update``) wrote into the origin file, if any.
        """
        from nervous.plugin.toolkit import folder_fingerprint

        folder = Path(record.path)
        if folder.is_symlink():
            return {"present": True, "modified": True, "version": None,
                    "changes": ["the skill folder was replaced by a symbolic link"], "verified": self._verified(record)}
        if not folder.is_dir():
            return {"present": False, "modified": None, "version": None, "changes": [],
                    "verified": self._verified(record)}
        doc = self._record(record.slug)
        manifest = doc.get("manifest")
        changes: list[str] = []
        try:
            if isinstance(manifest, dict):
                changes = diff_manifest(manifest, snapshot(folder))
                modified: bool | None = bool(changes)
            else:  # installed before manifests were recorded: the content fingerprint only
                modified = folder_fingerprint(folder) != record.fingerprint
                if modified:
                    changes = ["the content fingerprint differs from the installed one"]
        except OSError as exc:
            modified, changes = None, [f"could not read the folder: {exc.strerror or exc}"]
        except RecursionError:  # the fingerprint of an install without a manifest walks recursively
            modified, changes = None, ["could not read the folder: it is nested too deeply to fingerprint"]
        version = None
        for name in (".clawhub", ".clawdhub"):
            try:
                origin = json.loads((folder / name / "origin.json").read_bytes())
            except (OSError, ValueError):
                continue
            if isinstance(origin, dict) and isinstance(origin.get("installedVersion"), str):
                version = origin["installedVersion"]
                break
        return {"present": True, "modified": modified, "version": version, "changes": changes,
                "verified": doc.get("source", {}).get("verified", True) is not False}

    def _verified(self, record: InstallRecord) -> bool:
        doc = self._record(record.slug)
        return bool(doc.get("source", {}).get("verified", True) is not False)

    def recover(self) -> list[str]:
        """Finish what a killed install or uninstall left behind; returns what was done.

        Temporary folders carry their writer's pid; those of live processes are left alone. A
        staging or trash folder is removed; a previous version set aside is put back when the
        swap never happened (its folder is missing), else removed — the old or the new skill,
        never a mix and never nothing.
        """
        from nervous.plugin.toolkit import pid_alive, remove_stale_lock

        done: list[str] = []
        if not self.skills_dir.is_dir():
            return done
        gone = remove_stale_lock(self.skills_dir / INSTALL_LOCK)
        if gone is not None:
            done.append(f"removed the install lock left by {gone.describe()}")
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
                        try:
                            os.replace(entry, target)
                            done.append(f"restored {target} from an interrupted install")
                        except OSError as exc:
                            done.append(f"could not restore {target} from {entry.name} ({exc.strerror or exc}); "
                                        "it was left as it is")
                    elif _discard(entry) if prefix == ASIDE_PREFIX else _remove_tree(entry):
                        done.append(f"removed {entry.name} left by an interrupted operation")
                    else:  # never blocks the command: said every time until it can be removed
                        done.append(f"could not remove {entry.name} left by an interrupted operation in {parent}; "
                                    "remove it yourself")
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
            self._save_record(key, record, intent.get("source") or {}, intent.get("manifest"))
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

    def unmanaged_info(self, name: str) -> dict[str, Any]:
        """What the clawhub CLI recorded for a folder it installed: ``.clawhub/lock.json`` and ``origin.json``.

        Read only, never trusted for anything but display; empty when neither file names the skill.
        """
        out: dict[str, Any] = {}
        lock: Any = {}
        for path in (self.lock_path, self.workdir / ".clawdhub" / "lock.json"):
            parsed = self._shown_lock(path)  # read only: a damaged lockfile is dealt with on install
            if parsed is not _UNREADABLE:
                lock = parsed
                break
        skills = lock.get("skills") if isinstance(lock, dict) else None
        entry = skills.get(name) if isinstance(skills, dict) else None
        if isinstance(entry, dict):
            out["registry"] = NAME_CLAWHUB
            if isinstance(entry.get("version"), str):
                out["version"] = entry["version"]
        folder = self.skills_dir / name
        for sub in (".clawhub", ".clawdhub"):
            try:
                origin = json.loads((folder / sub / "origin.json").read_bytes())
            except (OSError, ValueError):
                continue
            if isinstance(origin, dict):
                out["registry"] = NAME_CLAWHUB
                if isinstance(origin.get("installedVersion"), str):
                    out["version"] = origin["installedVersion"]
                if isinstance(origin.get("registry"), str):
                    out["registry_url"] = origin["registry"]
                break
        return out

    def _shown_lock(self, path: Path) -> Any:
        """The parsed lockfile at ``path`` (``_UNREADABLE`` when missing or not JSON), parsed again only when it
        changed."""
        try:
            st = path.stat()
        except OSError:
            return _UNREADABLE
        identity = (st.st_ino, st.st_size, st.st_mtime_ns)
        known = self._shown_locks.get(path)
        if known is not None and known[0] == identity:
            return known[1]
        try:
            parsed = json.loads(path.read_bytes())
        except (OSError, ValueError):
            parsed = _UNREADABLE
        self._shown_locks[path] = (identity, parsed)
        return parsed

    def close(self) -> None:
        self._store = None


# ---------------------------------------------------------------------------------------- helpers


def snapshot(folder: Path) -> dict[str, str]:
    """Every entry under ``folder`` as ``path -> kind``: ``dir``, ``file:<sha256>:<mode>`` or ``link:<target>``.

    Nothing is skipped and no link is followed: tamper evidence must see what an ignore rule hides.
    The walk is iterative and relative to open folder descriptors (:func:`_walk`), so a tree of any
    depth the file system allows is read, however long its paths grow.
    """
    import hashlib
    import stat

    out: dict[str, str] = {}
    for rel, st, dir_fd, name in _walk(folder):
        if stat.S_ISLNK(st.st_mode):
            out[rel] = "link:" + os.readlink(name, dir_fd=dir_fd)
        elif stat.S_ISDIR(st.st_mode):
            out[rel] = "dir"
        elif stat.S_ISREG(st.st_mode):
            h = hashlib.sha256()
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)
            with open(fd, "rb") as fh:
                for chunk in iter(lambda: fh.read(1 << 16), b""):
                    h.update(chunk)
            mode = "x" if st.st_mode & 0o111 else "-"
            out[rel] = f"file:{h.hexdigest()}:{mode}"
        else:
            out[rel] = "special"
    return out


#: how a folder is opened for a walk or a removal: never through a symbolic link
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
#: folder descriptors a walk keeps open at most; a deeper one closed early is reopened from its ancestors
_OPEN_DIRS = 32


class _Dir:
    """One folder on a walk's stack: its name in its parent, its path from the root, its descriptor."""

    __slots__ = ("name", "rel", "fd", "subdirs")

    def __init__(self, name: str, rel: str, fd: int | None) -> None:
        self.name = name
        self.rel = rel
        self.fd = fd
        self.subdirs: list[str] | None = None  # still to visit, last one first (None: not listed yet)


def _walk(folder: Path) -> Iterator[tuple[str, os.stat_result, int, str]]:
    """Every entry under ``folder``, sorted by name, as ``(relative path, lstat result, dir_fd, name)``.

    No recursion, so any depth is walked; every folder is opened from its parent's descriptor with
    ``O_NOFOLLOW``, so no symbolic link is followed and no path longer than ``PATH_MAX`` is ever
    built. ``dir_fd`` (the entry's folder) is open while the entry is handled: open the entry with
    ``dir_fd=dir_fd``. At most :data:`_OPEN_DIRS` descriptors are held, whatever the depth.
    """
    import stat

    stack = [_Dir("", "", os.open(folder, _DIR_FLAGS))]
    held = [1]  # descriptors open on the stack

    def close(d: _Dir) -> None:
        if d.fd is not None:
            os.close(d.fd)
            d.fd = None
            held[0] -= 1

    def open_in(d: _Dir, parent_fd: int) -> int:
        d.fd = os.open(d.name, _DIR_FLAGS, dir_fd=parent_fd)
        held[0] += 1
        return d.fd

    def fd_of(index: int) -> int:
        """The descriptor of ``stack[index]``, reopened from its nearest open ancestor if it was closed."""
        first = index
        while stack[first].fd is None:
            first -= 1  # the root's stays open
        fd = stack[first].fd
        assert fd is not None
        for d in stack[first + 1:index + 1]:
            fd = open_in(d, fd)
        if held[0] > _OPEN_DIRS:  # the shallowest go first (never the root's, nor the ones just opened)
            for d in stack[1:index - 1]:
                close(d)
                if held[0] <= _OPEN_DIRS:
                    break
        return fd

    try:
        while stack:
            top = stack[-1]
            if top.subdirs is None:
                fd = fd_of(len(stack) - 1)
                with os.scandir(fd) as it:
                    entries = sorted(((e.name, e.stat(follow_symlinks=False)) for e in it), key=lambda e: e[0])
                top.subdirs = []
                for name, st in entries:
                    yield top.rel + name, st, fd, name
                    if stat.S_ISDIR(st.st_mode):
                        top.subdirs.append(name)
                top.subdirs.reverse()
            elif top.subdirs:
                child = _Dir(top.subdirs[-1], top.rel + top.subdirs[-1] + "/", None)
                stack.append(child)
                fd_of(len(stack) - 1)
                top.subdirs.pop()
                if not top.subdirs and len(stack) > 2:
                    close(top)  # nothing left to open from it
            else:
                stack.pop()
                close(top)
    finally:
        for d in stack:
            close(d)


def diff_manifest(before: dict[str, str], now: dict[str, str]) -> list[str]:
    """What changed between two snapshots, one line per path."""
    out = []
    for path in sorted(set(before) | set(now)):
        was, got = before.get(path), now.get(path)
        if was == got:
            continue
        if was is None:
            kind = "symbolic link" if got and got.startswith("link:") else "folder" if got == "dir" else "file"
            out.append(f"added {kind}: {path}")
        elif got is None:
            out.append(f"removed: {path}")
        elif got.startswith("link:") or was.startswith("link:"):
            out.append(f"replaced by a symbolic link: {path}" if got.startswith("link:") else f"link replaced: {path}")
        elif was.startswith("file:") and got.startswith("file:") and was[:-2] == got[:-2]:
            out.append(f"executable bit {'set' if got.endswith(':x') else 'cleared'}: {path}")
        else:
            out.append(f"changed: {path}")
    return out


def _temp_name(prefix: str, name: str) -> str:
    """A sibling's name that says what it is, whose it is (pid) and cannot collide."""
    import uuid

    return f"{prefix}{name}-{os.getpid()}-{uuid.uuid4().hex[:8]}"


def _record_problem(doc: dict[str, Any], key: str) -> str | None:
    """Why a stored install record cannot be read as one (``None``: it can)."""
    from nervous.plugin.toolkit import from_json

    for field in ("source", "manifest"):
        if doc.get(field) is not None and not isinstance(doc.get(field), dict):
            return f"{field} is not an object"
    try:
        from_json({k: v for k, v in doc.items() if k not in ("source", "manifest")}, InstallRecord, f"install record {key}")
    except BadInput as exc:
        return exc.message[:200]
    return None


def _remove_tree(path: Path) -> bool:
    """Remove a folder we moved aside (or a file or symbolic link there, unlinked, never followed).

    Returns whether nothing is left. Never raises for the file system: what cannot be removed stays
    (the caller warns). Iterative and descriptor-relative, so neither the depth of the tree nor the
    length of its paths matters: the entries of each top folder are removed and its sub-folders moved
    up to ``path`` itself (renamed inside the same folder we own), until ``path`` is empty. Only two
    folder descriptors are open at a time and every folder is opened with ``O_NOFOLLOW``.
    """
    import stat

    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    try:
        if not stat.S_ISDIR(st.st_mode):
            os.unlink(path)
            return True
        root = os.open(path, _DIR_FLAGS)
        try:
            _empty_folder(root)
        finally:
            os.close(root)
        os.rmdir(path)
    except FileNotFoundError:
        pass
    except OSError:
        return not (path.exists() or path.is_symlink())
    return True


def _empty_folder(root: int) -> None:
    """Remove everything inside the folder open as ``root``, without recursion (see :func:`_remove_tree`)."""
    hoisted = 0
    while True:
        with os.scandir(root) as it:
            entries = [(e.name, e.is_dir(follow_symlinks=False)) for e in it]
        if not entries:
            return
        for name, is_dir in entries:
            if not is_dir:
                os.unlink(name, dir_fd=root)
                continue
            sub = os.open(name, _DIR_FLAGS, dir_fd=root)
            try:
                with os.scandir(sub) as it:
                    inner = [(e.name, e.is_dir(follow_symlinks=False)) for e in it]
                for inner_name, inner_dir in inner:
                    if not inner_dir:
                        os.unlink(inner_name, dir_fd=sub)
                        continue
                    while True:  # a free name at the top: the folder moves up, a level less to go down
                        hoisted += 1
                        free = f".nervous-up-{hoisted}"
                        try:
                            os.lstat(free, dir_fd=root)
                        except FileNotFoundError:
                            break
                    os.rename(inner_name, free, src_dir_fd=sub, dst_dir_fd=root)
            finally:
                os.close(sub)
            os.rmdir(name, dir_fd=root)


def _discard(path: Path) -> bool:
    """Move ``path`` to a trash name beside it (never restored by :meth:`SkillsDirTarget.recover`), then remove it.

    Returns whether nothing is left; a trash folder that could not be removed is retried by the next command.
    """
    if not (path.exists() or path.is_symlink()):
        return True
    trash = path.parent / _temp_name(TRASH_PREFIX, _owner_name(path.name))
    try:
        os.replace(path, trash)
    except OSError:
        return _remove_tree(path)
    return _remove_tree(trash)


def _owner_name(name: str) -> str:
    """The skill's folder name inside a temporary sibling's name (``.nervous-previous-demo-<pid>-<id>`` -> ``demo``)."""
    for prefix in (STAGING_PREFIX, ASIDE_PREFIX, TRASH_PREFIX):
        if name.startswith(prefix):
            parts = name[len(prefix):].rsplit("-", 2)
            if len(parts) == 3:
                return parts[0]
    return name


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


__all__ = ["SkillsDirTarget", "diff_manifest", "snapshot"]
