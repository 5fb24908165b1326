"""``nervous search | inspect | install | uninstall | list`` against the stand-in."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from install_helpers import digest

from nervous.testing.clawhub_server import ClawHubStandin


def test_search_json_carries_per_registry_status(run: Any) -> None:
    code, out, _ = run("search", "demo")
    assert code == 0 and out["ok"] is True
    assert out["registries"][0]["registry"] == "clawhub" and out["registries"][0]["status"] == "ok"
    assert out["hits"][0]["ref"] == "clawhub:@alice/demo"


def test_search_table_for_people(run: Any) -> None:
    code, out, _ = run("search", "demo", as_json=False)
    assert code == 0 and "REGISTRY" in out and "@alice/demo" in out


def test_inspect_with_files(run: Any) -> None:
    code, out, _ = run("inspect", "demo", "--files")
    assert code == 0 and out["version"]["version"] == "1.1.0"
    assert {f["path"] for f in out["version"]["files"]} == {"SKILL.md", "scripts/run.sh"}
    assert [v["version"] for v in out["versions"]] == ["1.1.0", "1.0.0"]


def test_install_without_a_terminal_or_yes_is_refused(run: Any, workdir: Path, standin: ClawHubStandin) -> None:
    before = digest(workdir)
    code, out, _ = run("install", "demo")
    assert code == 1 and out["error"]["code"] == "confirmation_required"
    assert "--yes" in out["error"]["message"] and "silence is never approval" in out["error"]["message"]
    assert digest(workdir) == before and "/api/v1/download" not in standin.paths_requested()


def test_install_list_uninstall(run: Any, workdir: Path) -> None:
    code, out, _ = run("install", "demo", "--yes", "--version", "1.0.0")
    assert code == 0 and out["version"] == "1.0.0" and Path(out["path"]) == workdir / "skills" / "demo"
    (workdir / "skills" / "handmade").mkdir()
    (workdir / "skills" / "handmade" / "SKILL.md").write_text("---\nname: handmade\ndescription: x\n---\n")
    code, out, _ = run("list")
    assert [(s["name"], s["managed"], s["version"]) for s in out["skills"]] == [
        ("demo", True, "1.0.0"), ("handmade", False, None)]
    assert out["skills"][0]["modified"] is False and out["skills"][0]["version_on_disk"] is None
    code, text, _ = run("list", as_json=False)
    assert "unmanaged" in text and "managed" in text and "modified" not in text
    (workdir / "skills" / "demo" / "SKILL.md").write_text("edited by hand\n")
    code, out, _ = run("list")
    assert out["skills"][0]["modified"] is True
    code, text, _ = run("list", as_json=False)
    assert "managed (modified)" in text
    code, out, _ = run("uninstall", "handmade")
    assert code == 1 and out["error"]["code"] == "not_ours"
    code, out, _ = run("uninstall", "demo")
    assert code == 0 and not (workdir / "skills" / "demo").exists()
    assert (workdir / "skills" / "handmade" / "SKILL.md").is_file()


def test_ambiguous_slug_is_a_usage_error_listing_choices(run: Any) -> None:
    code, out, _ = run("install", "twin", "--yes")
    assert code == 2 and out["error"]["code"] == "ambiguous_slug"
    assert "@alice/twin" in out["error"]["message"] and "@bob/twin" in out["error"]["message"]


def test_people_get_a_progress_line(run: Any) -> None:
    code, out, err = run("install", "demo", "--yes", as_json=False)
    assert code == 0 and "Installed @alice/demo@1.1.0" in out and "downloading @alice/demo@1.1.0" in err
