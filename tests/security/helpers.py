"""Builders for inert test skills (text only, never executed)."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path
from typing import Any

from nervous.kernel.records import ScanContext, SkillBundle, SkillFile, SkillRef

FRONT = "---\nname: {name}\ndescription: {description}\n{extra}---\n"


def skill_md(body: str, *, name: str = "demo-tool", description: str = "Formats reports for the user.",
             extra: str = "") -> str:
    return FRONT.format(name=name, description=description, extra=extra) + body


def bundle(files: dict[str, str | bytes], *, name: str = "demo-tool") -> SkillBundle:
    if "SKILL.md" not in files:
        files = {"SKILL.md": skill_md("# Demo\n"), **files}
    out = []
    for path, content in files.items():
        data = content.encode("utf-8") if isinstance(content, str) else content
        out.append(SkillFile(path, data))
    return SkillBundle(ref=SkillRef(name), files=tuple(out))


def scan(pm: Any, files: dict[str, str | bytes], *, purpose: str = "install", **ctx: Any) -> Any:
    from nervous.engines.scan.engine import scan_bundle

    return scan_bundle(pm, bundle(files), ScanContext(purpose=purpose, **ctx))  # type: ignore[arg-type]


def rule_ids(result: Any) -> set[str]:
    return {f.rule_id for f in result.findings}


def actions(result: Any, rule_id: str) -> set[str]:
    return {f.action for f in result.findings if f.rule_id == rule_id}


#: the wild sample of ordinary ClawHub skills (development data beside the checkout; tests skip without it)
WILD = Path(__file__).resolve().parents[3] / "shared" / "data" / "security" / "wild" / "wild.tar.gz"


def wild_items(ids: tuple[str, ...]) -> dict[str, SkillBundle]:
    """The wild sample's items with these ids as bundles, read in memory (never written out or run)."""
    files: dict[str, list[SkillFile]] = {i: [] for i in ids}
    with tarfile.open(WILD, "r:gz") as tf:
        for member in tf:
            parts = member.name.lstrip("./").split("/", 2)
            if member.isfile() and len(parts) == 3 and parts[0] == "items" and parts[1] in files:
                fh = tf.extractfile(member)
                assert fh is not None
                files[parts[1]].append(SkillFile(parts[2], fh.read()))
    return {i: SkillBundle(ref=SkillRef(i), files=tuple(sorted(fs, key=lambda f: f.path))) for i, fs in files.items()}


def corpus_archive(path: Path, items: dict[str, dict[str, str]]) -> Path:
    """A corpus archive laid out as the development data is (``items/<id>/<path>``), for the benchmarks."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for item, files in items.items():
            for name, text in files.items():
                data = text.encode()
                info = tarfile.TarInfo(f"items/{item}/{name}")
                info.size = len(data)
                tf.addfile(info, io.BytesIO(data))
    path.write_bytes(buf.getvalue())
    return path
