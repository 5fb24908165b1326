"""Publish a skill folder to a ClawHub-protocol registry, with the clawhub CLI's own calls.

``POST /api/v1/skills/-/upload-url`` and the returned upload URL for each file, then
``POST /api/v1/skills`` with the file list. The folder is read with the fingerprint rules
(dot-files, ``node_modules`` and ignore files skipped), so the server's ``/resolve`` fingerprint
equals the local folder's.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from ...errors import EXIT_REFUSED, BadInput, RegistryError, UsageError
from ...kernel.bundle import name_key
from .archive import content_type
from .rules import Limits, Reject, check_path, check_slug, check_version

#: a registry's final "no" to a publish (bad request, token, permission, existing version, too large): exit 1
_REFUSALS = (400, 401, 403, 409, 410, 413, 422)


def folder_files(folder: Path, *, left_out: list[tuple[str, str]] | None = None) -> dict[str, bytes]:
    """The files a publish sends; links and special files skipped go to ``left_out`` (path, what)."""
    from ...kernel.fingerprint import folder_entries

    if not folder.is_dir():
        raise BadInput(f"{folder}: not a folder")
    files = {path: (folder / path).read_bytes() for path, _sha in folder_entries(folder, left_out=left_out)}
    files = {p: b for p, b in files.items() if p.lower() != "skill-card.md"}
    if not any(p.lower() in ("skill.md", "skills.md") for p in files):
        raise BadInput(f"{folder}: no SKILL.md at the folder's root", code="not_a_skill")
    return files


def publish_folder(base_url: str, token: str, folder: Path, *, slug: str | None = None, version: str | None = None,
                   display_name: str | None = None, changelog: str = "", owner: str | None = None,
                   left_out: list[tuple[str, str]] | None = None) -> dict[str, Any]:
    """Upload and publish; the server's answer (with the scan verdict). Picks the next patch version
    after the latest when ``version`` is not given.

    The slug and version are checked before anything is sent (a usage error, exit 2); a registry that
    refuses the publish (400, 401, 403, 409, 413...) ends it with exit 1, keeping the HTTP status in the
    error; an unreachable or failing registry stays exit 3."""
    from ...kernel.http import HttpStatusError

    files = folder_files(folder, left_out=left_out)
    _within_limits(folder, files)
    _names_accepted(folder, files)
    slug = (slug or folder.name).lower()
    try:
        check_slug(slug)
        if version is not None:
            check_version(version)
    except Reject as exc:
        hint = " (pass --slug)" if exc.text.startswith("Invalid slug") else ""
        raise UsageError(exc.text + hint, details={"slug": slug[:100]} if hint else {"version": str(version)[:100]}) \
            from None
    try:
        return _publish(base_url, token, folder, files, slug, version, display_name, changelog, owner)
    except HttpStatusError as exc:
        if exc.status in _REFUSALS:
            raise exc.with_exit(EXIT_REFUSED) from None
        raise


def _publish(base_url: str, token: str, folder: Path, files: dict[str, bytes], slug: str, version: str | None,
             display_name: str | None, changelog: str, owner: str | None) -> dict[str, Any]:
    from ...kernel.fingerprint import skill_fingerprint
    from ...kernel.http import HttpClient

    http = HttpClient(base_url, token=token, retries=1)
    if not owner:
        owner = str(_field(_field(http.get_json("/api/v1/whoami"), "user", dict, "whoami"), "handle", str, "whoami"))
    fingerprint = skill_fingerprint([(p, hashlib.sha256(b).hexdigest()) for p, b in files.items()])
    resp = http.request("GET", "/api/v1/resolve", {"slug": slug, "ownerHandle": owner, "hash": fingerprint},
                        headers={"Accept": "application/json"}, accept_status=(404,))
    resolved = resp.json() if resp.status == 200 else {}
    latest_doc = resolved.get("latestVersion") if isinstance(resolved, dict) else None
    latest = latest_doc.get("version") if isinstance(latest_doc, dict) else None
    if version is None:
        version = _next_patch(latest if isinstance(latest, str) else None)
    uploaded = []
    for path, data in sorted(files.items()):
        sha = hashlib.sha256(data).hexdigest()
        ctype = content_type(path)
        ticket = http.post_json("/api/v1/skills/-/upload-url",
                                {"path": path, "size": len(data), "sha256": sha, "contentType": ctype})
        upload_url = _same_origin(base_url, str(_field(ticket, "uploadUrl", str, "upload-url")))
        resp = http.request("POST", upload_url, data=data, headers={"Content-Type": ctype, "Accept": "application/json"})
        uploaded.append({"path": path, "size": len(data), "sha256": sha, "contentType": ctype,
                         "storageId": _field(resp.json(), "storageId", str, "upload"),
                         "uploadTicket": _field(ticket, "uploadTicket", str, "upload-url")})
    body = {"slug": slug, "displayName": display_name or slug.replace("-", " ").title(), "ownerHandle": owner,
            "version": version, "changelog": changelog, "acceptLicenseTerms": True, "tags": ["latest"],
            "files": uploaded}
    result = http.post_json("/api/v1/skills", body)
    if not isinstance(result, dict):
        raise RegistryError(f"{base_url}: the publish answer is not a JSON object")
    rules = result.get("ruleIds")
    if rules is not None and not (isinstance(rules, list) and all(isinstance(r, str) for r in rules)):
        raise RegistryError(f"{base_url}: the publish answer's ruleIds is not a list of names")
    result["fingerprint"] = fingerprint
    return result


def _field(doc: Any, key: str, kind: type, answer: str) -> Any:
    """``doc[key]`` of a registry's JSON answer, of the type the protocol gives it; a registry error otherwise."""
    value = doc.get(key) if isinstance(doc, dict) else None
    if not isinstance(value, kind):
        raise RegistryError(f"the registry's {answer} answer has no {key!r} {kind.__name__} (an unexpected shape)",
                            details={"answer": answer, "field": key})
    return value


def _same_origin(base_url: str, url: str) -> str:
    """The upload address a ticket names, if it is the registry's own (or a path on it): the token goes nowhere else."""
    from urllib.parse import urljoin, urlsplit

    full = urljoin(base_url.rstrip("/") + "/", url)
    there, here = urlsplit(full), urlsplit(base_url)
    if there.scheme not in ("http", "https") or (there.scheme, there.netloc) != (here.scheme, here.netloc):
        raise RegistryError(f"the registry named an upload address on another host or scheme ({there.scheme}://"
                            f"{there.netloc}); nothing was sent there and the publish stopped",
                            code="registry_error", details={"upload_url": full[:200]})
    return full


def _within_limits(folder: Path, files: dict[str, bytes]) -> None:
    """The registry's own limits, checked before anything is uploaded (an upload it would refuse stays unsent)."""
    limits = Limits()
    total = sum(len(b) for b in files.values())
    big = [p for p, b in files.items() if len(b) > limits.max_file_bytes]
    if len(files) > limits.max_files or total > limits.max_total_bytes or big:
        raise BadInput(f"{folder}: {len(files)} files, {total:,} bytes"
                       + (f" ({big[0]} alone {len(files[big[0]]):,})" if big else "")
                       + f"; a registry takes at most {limits.max_files} files, {limits.max_total_bytes:,} bytes in all "
                         f"and {limits.max_file_bytes:,} a file", code="too_large")


def _names_accepted(folder: Path, files: dict[str, bytes]) -> None:
    """Every file name the registry would accept (no control character, device name, ':'...), and no two
    that differ only in case or Unicode normalisation: checked before anything is uploaded."""
    seen: dict[str, str] = {}
    for path in sorted(files):
        try:
            check_path(path)
        except Reject as exc:
            raise BadInput(f"{folder}: {exc.text}", code="bad_path", details={"path": repr(path)[:200]}) from None
        key = name_key(path)
        if key in seen:
            raise BadInput(f"{folder}: {seen[key]!r} and {path!r} are one file on case-insensitive or normalising "
                           "disks; a registry takes only one of them", code="bad_path",
                           details={"path": repr(path)[:200]})
        seen[key] = path


def _next_patch(latest: str | None) -> str:
    if not latest:
        return "1.0.0"
    core = latest.split("-", 1)[0].split("+", 1)[0].split(".")
    try:
        major, minor, patch = (int(x) for x in core)
    except ValueError:
        raise BadInput(f"latest version {latest!r} is not semver: pass --version") from None
    return f"{major}.{minor}.{patch + 1}"
