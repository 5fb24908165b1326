"""Fingerprints and ClawHub's path ordering (specs/protocols.md §A8)."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nervous.kernel.fingerprint import (
    IgnoreRules,
    bundle_fingerprint,
    folder_entries,
    folder_fingerprint,
    is_fingerprinted_path,
    skill_fingerprint,
    skills_sh_folder_hash,
    sort_paths,
)
from nervous.kernel.records import SkillBundle, SkillFile, SkillRef

ORDER_VECTOR = (
    "_meta.json, #x.md, ~x, 1.md, a b.md, a-b/c.txt, a.b, ä.md, a.txt, A.txt, a@b.md, a/b.txt, a+b.md, "
    "a10.md, a2.md, aB.md, Ab.md, b_c.md, b-c.md, b.md, README.md, scripts-extra/x, Scripts/b, "
    "scripts/run.sh, skill-card.md, SKILL.md, z.md"
).split(", ")

VECTOR_FILES = {
    "SKILL.md": b"---\nname: demo\ndescription: Demo skill.\n---\n# Demo\n",
    "scripts/run.sh": b"echo hi\n",
    "README.md": b"Demo\n",
    "b_c.md": b"x\n",
    "b-c.md": b"y\n",
}
VECTOR_FINGERPRINT = "56f7124df215ff5da1cbedf33e2992d53cb36e23ad61a8a5377b6fd1725de347"
CODE_POINT_FINGERPRINT = "485d3f0080e883a037351779d6149f01cd7829d11db16a32eba0c2533a7b311a"

NODE = shutil.which("node")


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_tree(root: Path, files: dict[str, bytes]) -> Path:
    for rel, data in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    return root


def node_sort(strings: list[str]) -> list[str]:
    script = ("const v=JSON.parse(require('fs').readFileSync(0,'utf8'));"
              "v.sort((a,b)=>a.localeCompare(b)||(a<b?-1:a>b?1:0));process.stdout.write(JSON.stringify(v))")
    out = subprocess.run([NODE or "node", "-e", script], input=json.dumps(strings), capture_output=True,
                         text=True, check=True, timeout=60)
    result: list[str] = json.loads(out.stdout)
    return result


def test_ordering_vector() -> None:
    for start in (list(reversed(ORDER_VECTOR)), sorted(ORDER_VECTOR)):
        assert sort_paths(start) == ORDER_VECTOR
    assert sorted(ORDER_VECTOR) != ORDER_VECTOR  # the pitfall is real


def test_fingerprint_vector() -> None:
    hashes = {p: sha(d) for p, d in VECTOR_FILES.items()}
    assert hashes["SKILL.md"] == "1f2d9a687431e0c8f99127354157e5a83dfca980bafe06fafeee0b89217bd8cc"
    assert hashes["b-c.md"] == "3bb2abb69ebb27fbfe63c7639624c6ec5e331b841a5bc8c3ebc10b9285e90877"
    assert skill_fingerprint(hashes.items()) == VECTOR_FINGERPRINT
    assert skill_fingerprint(reversed(list(hashes.items()))) == VECTOR_FINGERPRINT
    code_point = "\n".join(f"{p}:{h}" for p, h in sorted(hashes.items()))
    assert hashlib.sha256(code_point.encode()).hexdigest() == CODE_POINT_FINGERPRINT


def test_empty_paths_and_hashes_dropped() -> None:
    hashes = {p: sha(d) for p, d in VECTOR_FILES.items()}
    assert skill_fingerprint([*hashes.items(), ("", "ab"), ("x.md", "")]) == VECTOR_FINGERPRINT
    assert skill_fingerprint([]) == hashlib.sha256(b"").hexdigest()


def test_folder_fingerprint_matches_vector_and_skips(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "demo", {
        **VECTOR_FILES,
        ".hidden": b"h", ".git/config": b"g", ".clawhub/origin.json": b"{}", "node_modules/x/i.js": b"n",
        "sub/.env": b"secret", "build/out.bin": b"b", "notes.log": b"l", "keep.log": b"k",
    })
    (root / ".gitignore").write_text("build/\n*.log\n!keep.log\n")
    (root / ".clawhubignore").write_text("keep.log\n")
    os.symlink(root / "README.md", root / "link.md")
    os.symlink(root / "scripts", root / "linkdir")
    assert folder_fingerprint(root) == VECTOR_FINGERPRINT
    assert [p for p, _ in folder_entries(root)] == ["README.md", "SKILL.md", "b-c.md", "b_c.md", "scripts/run.sh"]


def test_bundle_fingerprint_with_and_without_meta() -> None:
    files = [SkillFile(p, d) for p, d in VECTOR_FILES.items()]
    meta = SkillFile("_meta.json", b'{\n  "slug": "demo"\n}')
    bundle = SkillBundle(ref=SkillRef("demo"), files=(*files, meta, SkillFile(".DS_Store", b"x")))
    assert bundle_fingerprint(bundle, exclude={"_meta.json"}) == VECTOR_FINGERPRINT
    with_meta = {p: sha(d) for p, d in VECTOR_FILES.items()} | {"_meta.json": meta.sha256}
    assert bundle_fingerprint(bundle) == skill_fingerprint(with_meta.items())
    ignored = SkillBundle(ref=SkillRef("demo"), files=(*files, SkillFile(".gitignore", b"*.tmp\n"),
                                                        SkillFile("x.tmp", b"t")))
    assert bundle_fingerprint(ignored) == VECTOR_FINGERPRINT


def test_skills_sh_folder_hash_uses_collation() -> None:
    entries = [(p, len(d), sha(d)) for p, d in VECTOR_FILES.items()]
    payload = "\n".join(f"{p}\0{len(VECTOR_FILES[p])}\0{sha(VECTOR_FILES[p])}"
                        for p in ["b_c.md", "b-c.md", "README.md", "scripts/run.sh", "SKILL.md"])
    assert skills_sh_folder_hash(entries) == hashlib.sha256(payload.encode()).hexdigest()


def test_is_fingerprinted_path() -> None:
    assert is_fingerprinted_path("scripts/run.sh")
    for bad in ("", ".env", "a/.git/x", "node_modules/a.js", "a/node_modules/b", "a//b"):
        assert not is_fingerprinted_path(bad)


@pytest.mark.parametrize(
    ("rules", "path", "is_dir", "ignored"),
    [
        ("*.log", "a/b/c.log", False, True),
        ("*.log\n!keep.log", "keep.log", False, False),
        ("/root.txt", "root.txt", False, True),
        ("/root.txt", "sub/root.txt", False, False),
        ("build/", "build", False, False),
        ("build/", "build/x.js", False, True),
        ("build/", "a/build/x.js", False, True),
        ("docs/*.md", "docs/a.md", False, True),
        ("docs/*.md", "docs/sub/a.md", False, False),
        ("docs/*.md", "x/docs/a.md", False, False),
        ("**/tmp", "a/b/tmp", True, True),
        ("a/**/z", "a/z", False, True),
        ("a/**/z", "a/b/c/z", False, True),
        ("a/**", "a/b/c", False, True),
        ("a/**", "a", True, False),
        ("dir\n!dir/keep", "dir/keep", False, True),  # cannot re-include inside an ignored folder
        ("file?.txt", "file1.txt", False, True),
        ("file[0-9].txt", "filea.txt", False, False),
        ("file[!0-9].txt", "filea.txt", False, True),
        ("\\#hash", "#hash", False, True),
        ("# comment\n\n", "# comment", False, False),
        ("trailing   ", "trailing", False, True),
    ],
)
def test_gitignore_semantics(rules: str, path: str, is_dir: bool, ignored: bool) -> None:
    assert IgnoreRules(rules).ignored(path, is_dir=is_dir) is ignored


_path_chars = st.sampled_from(list("aAbBzZ019_-.~@#+ /äÄéß") + ["SKILL", "skill", "scripts", "md"])
_paths = st.lists(_path_chars, min_size=1, max_size=10).map("".join)


@settings(max_examples=200, deadline=None)
@given(st.lists(_paths, max_size=30))
def test_sort_is_a_total_order_independent_of_input_order(paths: list[str]) -> None:
    once = sort_paths(paths)
    assert sort_paths(reversed(paths)) == once
    assert sort_paths(once) == once
    assert sorted(once) == sorted(paths)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(_paths, st.binary(max_size=8), max_size=12))
def test_fingerprint_independent_of_entry_order(files: dict[str, bytes]) -> None:
    entries = [(p, sha(d)) for p, d in files.items()]
    assert skill_fingerprint(entries) == skill_fingerprint(list(reversed(entries)))


def test_ascii_keys_are_the_collators_keys() -> None:
    """ASCII paths are keyed from the table's lines for ASCII characters, without building the collator."""
    from nervous.kernel import fingerprint

    assert fingerprint._ascii_elements() is not None
    collator = _collator()
    for cp in range(0x80):
        for text in (chr(cp), f"a{chr(cp)}b", f"{chr(cp)}{chr(cp)}A"):
            assert fingerprint.collation_key.__wrapped__(text)[0] == collator.sort_key(text), repr(text)
    for path in ORDER_VECTOR:  # ``ä.md`` takes the collator
        assert fingerprint.collation_key.__wrapped__(path)[0] == collator.sort_key(path), path


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(max_codepoint=0x7F), max_size=40))
def test_any_ascii_text_keys_as_the_collator_does(text: str) -> None:
    from nervous.kernel import fingerprint

    assert fingerprint.collation_key.__wrapped__(text)[0] == _collator().sort_key(text)


@functools.cache
def _collator() -> Any:
    """The whole collator (about 0.2 s to build), once for the tests that compare against it."""
    import pyuca

    return pyuca.Collator()


@pytest.mark.skipif(NODE is None, reason="node is not installed: no localeCompare to compare against")
def test_ordering_agrees_with_node_locale_compare() -> None:
    """Differential test: thousands of random paths sorted by pyuca and by Node's ICU."""
    import random

    rng = random.Random(20260304)
    alphabet = [chr(c) for c in range(0x20, 0x7F)] + list("äöüßéèÀÉçñøåæœ€£§°·¿") + ["\u4e2d", "\u0430", "\u03b1"]
    strings = list({"".join(rng.choice(alphabet) for _ in range(rng.randint(1, 10))) for _ in range(6000)})
    strings += ORDER_VECTOR
    assert sort_paths(strings) == node_sort(strings)


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_fingerprint_agrees_with_node_implementation() -> None:
    """The fingerprint algorithm as ClawHub writes it in JavaScript, run by Node on the same entries."""
    rng_files = {f"{n}/{c}.md": f"{n}{c}\n".encode() for n in ("a", "B", "_x", "c-d", "c_d") for c in ("Z", "y", "1")}
    entries = [{"path": p, "sha256": sha(d)} for p, d in rng_files.items()]
    script = ("const c=require('crypto');const f=JSON.parse(require('fs').readFileSync(0,'utf8'));"
              "f.sort((a,b)=>a.path.localeCompare(b.path));"
              "process.stdout.write(c.createHash('sha256').update(f.map(x=>x.path+':'+x.sha256).join('\\n')).digest('hex'))")
    out = subprocess.run([NODE or "node", "-e", script], input=json.dumps(entries), capture_output=True,
                         text=True, check=True, timeout=60)
    assert skill_fingerprint((e["path"], e["sha256"]) for e in entries) == out.stdout


def test_folder_entries_walks_any_depth_and_says_what_it_left_out(tmp_path: Path) -> None:
    import os

    from nervous.kernel.fingerprint import folder_entries

    (tmp_path / "SKILL.md").write_text("x")
    fd = os.open(tmp_path, os.O_RDONLY)
    try:
        for _ in range(1200):  # deeper than the interpreter's recursion limit
            os.mkdir("a", dir_fd=fd)
            sub = os.open("a", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = sub
        with os.fdopen(os.open("deep.md", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as f:
            f.write("deep")
    finally:
        os.close(fd)
    try:
        (tmp_path / "link.md").symlink_to(tmp_path / "SKILL.md")
        os.mkfifo(tmp_path / "pipe.md")
        left_out: list[tuple[str, str]] = []
        entries = folder_entries(tmp_path, left_out=left_out)
        assert [p for p, _ in entries] == ["SKILL.md", "a/" * 1200 + "deep.md"]
        assert sorted(left_out) == [("link.md", "a symbolic link"), ("pipe.md", "not a regular file")]
    finally:  # pytest's own clean-up of old temporary folders recurses once per level
        import shutil
        import sys

        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 30_000))
        try:
            shutil.rmtree(tmp_path / "a")
        finally:
            sys.setrecursionlimit(limit)
