"""Bundle loading: archive safety and fail-closed limits (specs/security.md §8, protocols.md §A7.4)."""

from __future__ import annotations

import io
import os
import stat
import warnings
import zipfile
from pathlib import Path

import pytest

from nervous.errors import BadInput
from nervous.kernel.bundle import Limits, load_directory, load_zip
from nervous.kernel.config import InstallConfig
from nervous.kernel.fingerprint import bundle_fingerprint, skill_fingerprint
from nervous.kernel.records import SkillRef

SKILL = b"---\nname: demo\ndescription: Demo skill.\n---\n# Demo\n"


def make_zip(entries: list[tuple[str, bytes]] | dict[str, bytes], *, modes: dict[str, int] | None = None,
             method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    items = entries.items() if isinstance(entries, dict) else entries
    with zipfile.ZipFile(buf, "w", method) as zf:
        for name, data in items:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = method
            if modes and name in modes:
                info.external_attr = modes[name] << 16
                info.create_system = 3
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # duplicate names are written on purpose
                zf.writestr(info, data)
    return buf.getvalue()


def refused(data: bytes, match: str, **kw: object) -> BadInput:
    with pytest.raises(BadInput, match=match) as exc:
        load_zip(data, **kw)  # type: ignore[arg-type]
    return exc.value


# --------------------------------------------------------------------------------------------
# Zips: good layouts


def test_clawhub_layout_keeps_meta_json_and_orders_files() -> None:
    meta = b'{\n  "ownerId": "u1",\n  "slug": "demo",\n  "version": "1.0.0",\n  "publishedAt": 1\n}'
    data = make_zip([("SKILL.md", SKILL), ("scripts/run.sh", b"echo hi\n"), ("README.md", b"Demo\n"),
                     ("_meta.json", meta)])
    b = load_zip(data, ref=SkillRef("demo"), version="1.0.0", registry="clawhub")
    assert [f.path for f in b.files] == ["_meta.json", "README.md", "scripts/run.sh", "SKILL.md"]
    assert b.file("_meta.json").data == meta  # type: ignore[union-attr]
    assert (b.version, b.registry, b.ref.name) == ("1.0.0", "clawhub", "demo")
    published = skill_fingerprint((f.path, f.sha256) for f in b.files if f.path != "_meta.json")
    assert bundle_fingerprint(b, exclude={"_meta.json"}) == published


def test_single_top_folder_is_stripped_and_dot_slash_ignored() -> None:
    data = make_zip([("demo-1.0.0/", b""), ("demo-1.0.0/SKILL.md", SKILL), ("./demo-1.0.0/x/y.txt", b"y")])
    assert [f.path for f in load_zip(data).files] == ["SKILL.md", "x/y.txt"]


def test_github_zip_strip_top_and_subpath() -> None:
    data = make_zip([("owner-repo-abc123/README.md", b"repo"),
                     ("owner-repo-abc123/skills/pdf/SKILL.md", SKILL),
                     ("owner-repo-abc123/skills/pdf/ref/a.md", b"a"),
                     ("owner-repo-abc123/skills/other/SKILL.md", SKILL)])
    b = load_zip(data, strip_top=True, subpath="skills/pdf")
    assert [f.path for f in b.files] == ["ref/a.md", "SKILL.md"]
    refused(data, "no files under", strip_top=True, subpath="skills/none")
    refused(make_zip({"a/SKILL.md": SKILL, "b/x": b"x"}), "single top-level folder", strip_top=True)


def test_skill_md_variants_and_missing() -> None:
    assert load_zip(make_zip({"SKILL.MD": SKILL})).files[0].path == "SKILL.MD"
    refused(make_zip({"README.md": b"x"}), "no SKILL.md")
    assert load_zip(make_zip({"README.md": b"x"}), require_skill_md=False).files


# --------------------------------------------------------------------------------------------
# Zips: refusals


@pytest.mark.parametrize(
    ("name", "match"),
    [
        ("../evil.sh", r"'\.\.'"),
        ("a/../../evil.sh", r"'\.\.'"),
        ("/etc/passwd", "absolute path"),
        ("C:/Windows/evil.dll", "absolute path"),
        ("scripts\\run.sh", "backslash"),
        ("a//b.txt", "empty"),
        ("a/./b.txt", r"'\.'"),
        ("../", r"'\.\.'"),
    ],
)
def test_unsafe_entry_names_refuse_the_whole_archive(name: str, match: str) -> None:
    exc = refused(make_zip([("SKILL.md", SKILL), (name, b"x")]), match)
    assert exc.details["entry"] == name and exc.exit_code == 2


def test_symlink_entry_refused() -> None:
    data = make_zip({"SKILL.md": SKILL, "link": b"/etc/passwd"}, modes={"link": stat.S_IFLNK | 0o777})
    exc = refused(data, "'link' is a symlink")
    assert exc.details == {"rule": "NV-LIMIT-001", "entry": "link"}


@pytest.mark.parametrize("kind", [stat.S_IFCHR, stat.S_IFBLK, stat.S_IFIFO, stat.S_IFSOCK])
def test_device_entries_refused(kind: int) -> None:
    refused(make_zip({"SKILL.md": SKILL, "dev": b""}, modes={"dev": kind | 0o644}), "device, FIFO or socket")


def test_regular_unix_modes_accepted() -> None:
    data = make_zip({"SKILL.md": SKILL, "run.sh": b"x"}, modes={"run.sh": stat.S_IFREG | 0o755})
    assert len(load_zip(data).files) == 2


@pytest.mark.parametrize("other", ["SKILL.md", "skill.md"])
def test_duplicate_names_refused(other: str) -> None:
    refused(make_zip([("SKILL.md", SKILL), (other, b"second")]), "duplicate entry")


def test_names_one_after_unicode_normalisation_are_duplicates() -> None:
    # "café" composed and decomposed: one file on a file system that normalises names (the scan would
    # read two files, the install keep one)
    refused(make_zip([("SKILL.md", SKILL), ("caf\u00e9.md", b"one"), ("cafe\u0301.md", b"two")]), "duplicate entry")
    refused(make_zip([("SKILL.md", SKILL), ("caf\u00e9/x.md", b"one"), ("cafe\u0301", b"two")]), "both a file and")


@pytest.mark.parametrize("order", ["root first", "top first"])
def test_an_entry_that_a_stripped_top_folder_duplicates_is_refused(order: str) -> None:
    entries = [("_meta.json", b"not what the top folder holds"), ("top/_meta.json", b"{}"), ("top/SKILL.md", SKILL)]
    if order == "top first":
        entries = entries[1:] + entries[:1]
    refused(make_zip(entries), "duplicate entry", strip_top=True)
    refused(make_zip(entries), "duplicate entry")  # stripped because the root holds no SKILL.md


def test_file_and_folder_clash_refused() -> None:
    refused(make_zip([("SKILL.md", SKILL), ("a", b"x"), ("a/b", b"y")]), "both a file and a folder")


def test_encrypted_entry_refused() -> None:
    data = bytearray(make_zip({"SKILL.md": SKILL}))
    # Set the "encrypted" flag bit in the local and the central directory headers.
    for sig, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        pos = data.find(sig)
        data[pos + offset] |= 0x01
    exc = refused(bytes(data), "encrypted")
    assert exc.details["rule"] == "NV-SUPPLY-002"


def test_zip_bomb_refused_by_ratio_while_reading() -> None:
    data = make_zip({"SKILL.md": SKILL, "bomb.txt": b"\0" * (4 * 1024 * 1024)})
    assert len(data) < 20_000
    exc = refused(data, "expands more than 100:1", limits=Limits(max_file_bytes=50 * 1024 * 1024))
    assert exc.details["limit"] == "max_compression_ratio" and exc.code == "limit_exceeded"


def test_zip_bomb_refused_by_declared_size() -> None:
    data = make_zip({"SKILL.md": SKILL, "bomb.txt": b"\0" * (12 * 1024 * 1024)})
    exc = refused(data, "larger than")
    assert exc.details["limit"] == "max_file_bytes"


def test_small_repetitive_file_is_not_a_bomb() -> None:
    assert load_zip(make_zip({"SKILL.md": SKILL, "blank.txt": b" " * 60_000})).file("blank.txt")


def test_lying_size_header_is_caught() -> None:
    data = bytearray(make_zip({"SKILL.md": SKILL, "big.txt": b"A" * 200_000}, method=zipfile.ZIP_STORED))
    # Declare a tiny uncompressed size in the central directory: reading must not trust it.
    pos = data.find(b"PK\x01\x02", data.find(b"PK\x01\x02") + 4)
    data[pos + 24:pos + 28] = (10).to_bytes(4, "little")
    with pytest.raises(BadInput):
        load_zip(bytes(data))


def test_limits_files_total_depth_path() -> None:
    many = {"SKILL.md": SKILL} | {f"f{i}.txt": b"x" for i in range(5)}
    assert refused(make_zip(many), "more than 3 files", limits=Limits(max_files=3)).details["limit"] == "max_files"
    big = {"SKILL.md": SKILL, "a.txt": os.urandom(3000), "b.txt": os.urandom(3000)}
    assert refused(make_zip(big), "in total", limits=Limits(max_total_bytes=5000)).details["limit"] == "max_total_bytes"
    deep = {"SKILL.md": SKILL, "/".join("d" * 11) + "/x": b"x"}
    assert refused(make_zip(deep), "deeper than 10").details["limit"] == "max_depth"
    long = {"SKILL.md": SKILL, "a" * 300: b"x"}
    assert refused(make_zip(long), "longer than 255").details["limit"] == "max_path_bytes"
    assert refused(make_zip(many), "download limit", limits=Limits(max_archive_bytes=100)).details["limit"] \
        == "max_archive_bytes"


def test_not_a_zip() -> None:
    exc = refused(b"PK\x03\x04 definitely not a zip", "not a readable zip")
    assert exc.code == "bad_archive"


def test_limits_from_config() -> None:
    cfg = InstallConfig(max_files=7, max_total_bytes=1000, max_file_bytes=100, max_compression_ratio=5.0)
    lim = Limits.from_config(cfg)
    assert (lim.max_files, lim.max_total_bytes, lim.max_file_bytes, lim.max_compression_ratio) == (7, 1000, 100, 5.0)
    assert Limits().max_files == InstallConfig().max_files


# --------------------------------------------------------------------------------------------
# Folders


def make_folder(root: Path, files: dict[str, bytes]) -> Path:
    for rel, data in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    return root


def test_load_directory_skips_a8_paths(tmp_path: Path) -> None:
    root = make_folder(tmp_path / "demo", {
        "SKILL.md": SKILL, "scripts/run.sh": b"echo\n", ".env": b"SECRET=1", ".git/HEAD": b"ref",
        "node_modules/x/index.js": b"n", ".clawhub/origin.json": b"{}", "build/out": b"o", "x.log": b"l",
        ".gitignore": b"build/\n*.log\n",
    })
    b = load_directory(root, registry="local", version="0.1.0")
    assert [f.path for f in b.files] == ["scripts/run.sh", "SKILL.md"]
    assert b.ref.name == "demo" and b.registry == "local"


def test_load_directory_names_what_it_left_out(tmp_path: Path) -> None:
    root = make_folder(tmp_path / "demo", {
        "SKILL.md": SKILL, "scripts/run.sh": b"echo\n", "scripts/.cache/x": b"c", ".env": b"SECRET=1",
        "node_modules/x/index.js": b"n", "build/out": b"o", "x.log": b"l", ".gitignore": b"build/\n*.log\n",
    })
    (root / os.fsdecode(b".name-\xff")).write_bytes(b"not UTF-8, but skipped as a dot name")
    left_out: list[str] = []
    b = load_directory(root, left_out=left_out)
    assert [f.path for f in b.files] == ["scripts/run.sh", "SKILL.md"]  # what is read does not change
    assert left_out == [".env", ".gitignore", ".name-\\xff", "build/", "node_modules/", "scripts/.cache/", "x.log"]


def test_load_directory_refuses_symlinks(tmp_path: Path) -> None:
    root = make_folder(tmp_path / "demo", {"SKILL.md": SKILL})
    outside = tmp_path / "secret.txt"
    outside.write_text("secret")
    os.symlink(outside, root / "notes.txt")
    with pytest.raises(BadInput, match="'notes.txt' is a symlink") as exc:
        load_directory(root)
    assert exc.value.details["entry"] == "notes.txt"
    (root / "notes.txt").unlink()
    os.symlink(tmp_path, root / "up")
    with pytest.raises(BadInput, match="'up' is a symlink"):
        load_directory(root)


def test_load_directory_skips_symlinks_in_ignored_paths(tmp_path: Path) -> None:
    root = make_folder(tmp_path / "demo", {"SKILL.md": SKILL, "node_modules/.keep": b""})
    os.symlink(tmp_path, root / "node_modules" / "loop")
    os.symlink(tmp_path, root / ".hidden-link")
    assert [f.path for f in load_directory(root).files] == ["SKILL.md"]


def test_load_directory_refuses_fifo(tmp_path: Path) -> None:
    root = make_folder(tmp_path / "demo", {"SKILL.md": SKILL})
    os.mkfifo(root / "pipe")
    with pytest.raises(BadInput, match="not a regular file"):
        load_directory(root)


def test_load_directory_limits(tmp_path: Path) -> None:
    root = make_folder(tmp_path / "demo", {"SKILL.md": SKILL, "big.bin": b"x" * 5000})
    with pytest.raises(BadInput, match="larger than 1000 bytes") as exc:
        load_directory(root, limits=Limits(max_file_bytes=1000))
    assert exc.value.details["limit"] == "max_file_bytes"
    with pytest.raises(BadInput, match="more than 1 files"):
        load_directory(root, limits=Limits(max_files=1))


def test_load_directory_requires_a_skill_and_a_folder(tmp_path: Path) -> None:
    root = make_folder(tmp_path / "demo", {"README.md": b"x"})
    with pytest.raises(BadInput, match="no SKILL.md"):
        load_directory(root)
    with pytest.raises(BadInput, match="not a folder"):
        load_directory(tmp_path / "missing")


# --------------------------------------------------------------------------------------------
# Remote listings


def test_check_listing_refuses_before_download() -> None:
    from nervous.kernel.bundle import check_listing, make_bundle

    check_listing([("SKILL.md", 10), ("scripts/a.sh", 20)])
    with pytest.raises(BadInput, match="'..'"):
        check_listing([("../x", 1)])
    with pytest.raises(BadInput, match="larger than"):
        check_listing([("SKILL.md", 10), ("big", 2_000)], limits=Limits(max_file_bytes=1_000))
    with pytest.raises(BadInput, match="duplicate"):
        check_listing([("a", 1), ("A", 1)])
    with pytest.raises(BadInput, match="not a plain relative file path"):
        check_listing([("./a", 1)])
    b = make_bundle([("SKILL.md", SKILL), ("a.txt", b"a")], ref=SkillRef("demo"), registry="github")
    assert [f.path for f in b.files] == ["a.txt", "SKILL.md"]
    with pytest.raises(BadInput, match="in total"):
        make_bundle([("SKILL.md", SKILL)], ref=SkillRef("demo"), limits=Limits(max_total_bytes=10))
