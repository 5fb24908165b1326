"""The OpenClaw skills: valid frontmatter, the nervous binary required, commands the CLI understands,
and ``nervous integrations install openclaw`` copying them without clobbering the user's skills."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from nervous.frontends.integrations import MARKER, bundled_skills
from nervous.kernel.skillmd import parse_skill_md, validate_skill_md
from nervous.testing.cli import run_cli

REPO = Path(__file__).resolve().parents[2]
NAMES = ["goal-workflow", "skill-acquisition", "skill-evolver"]


def commands(text: str) -> list[list[str]]:
    """Every ``nervous ...`` line of the skill's bash blocks, split like a shell would."""
    out = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            if line.strip().startswith("nervous "):
                out.append(shlex.split(line)[1:])
    return out


def test_the_bundled_skills_are_shipped_inside_the_package() -> None:
    assert sorted(bundled_skills()) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_frontmatter_validates_and_requires_the_nervous_binary(name: str) -> None:
    text = bundled_skills()[name]
    assert validate_skill_md(text, directory=name) == []
    doc = parse_skill_md(text, directory=name)
    assert doc.name == name and doc.description
    assert doc.required_bins == ("nervous",)
    assert doc.metadata.sources == ("openclaw",)
    assert doc.body.count("\n") < 80, "keep the skills short"
    assert "--json" in doc.body and "warnings" in doc.body
    assert "never approval" in doc.body.lower()


@pytest.mark.parametrize("name", NAMES)
def test_the_top_level_copies_match_the_packaged_ones(name: str) -> None:
    top = (REPO / "integrations" / "openclaw" / name / "SKILL.md").read_text(encoding="utf-8")
    assert top == bundled_skills()[name]


@pytest.mark.parametrize("name", NAMES)
def test_every_command_the_skills_use_exists_with_those_options(name: str) -> None:
    import click

    from nervous.frontends.cli import main

    cmds = commands(bundled_skills()[name])
    assert cmds
    ctx = click.Context(main)
    for argv in cmds:
        command: click.Command | None = main
        rest = list(argv)
        while isinstance(command, click.Group):
            command = command.get_command(ctx, rest.pop(0))
            assert command is not None, f"{argv}: no such command"
        known = {opt for p in command.params for opt in (*p.opts, *p.secondary_opts)}
        for word in rest:
            if word.startswith("--"):
                assert word in known, f"{argv}: {word} is not an option of this command"
        choices = {o: p.type.choices for p in command.params if isinstance(p.type, click.Choice) for o in p.opts}
        for option, value in zip(rest, rest[1:], strict=False):
            if option in choices and not value.startswith("<"):
                assert set(value.split("|")) <= set(choices[option]), f"{argv}: {value}"


def test_the_evolver_commands_in_the_skill_are_understood() -> None:
    from nervous.engines.evolver.commands import parse_command

    runs = [argv[-1] for argv in commands(bundled_skills()["skill-evolver"]) if argv[:2] == ["evolve", "run"]]
    assert len(runs) >= 8
    for text in runs:
        concrete = (text.replace("<id>", "candidate-1").replace("<name>", "learned-x")
                    .replace("<reason>", "too broad").replace("<feedback>", "narrow it")
                    .replace("<manual|assisted|autonomous>", "manual"))
        assert parse_command(concrete)["operation"], text


def test_install_copies_the_skills_and_reruns_are_idempotent(tmp_path: Path) -> None:
    res = run_cli("integrations", "install", "openclaw", "--workspace", str(tmp_path), "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["ok"] is True and [s["action"] for s in out["skills"]] == ["installed"] * 3
    for name in NAMES:
        copied = tmp_path / "skills" / name / "SKILL.md"
        assert copied.read_text(encoding="utf-8") == bundled_skills()[name]
        assert json.loads((copied.parent / MARKER).read_text())["managed_by"] == "nervous"
    again = json.loads(run_cli("integrations", "install", "openclaw", "--workspace", str(tmp_path),
                               "--json").stdout)
    assert [s["action"] for s in again["skills"]] == ["unchanged"] * 3
    edited = tmp_path / "skills" / "skill-evolver" / "SKILL.md"
    edited.write_text("mine", encoding="utf-8")
    res = run_cli("integrations", "install", "openclaw", "--workspace", str(tmp_path), "--json")
    assert res.returncode == 1 and json.loads(res.stdout)["error"]["code"] == "modified", res.stdout
    assert edited.read_text(encoding="utf-8") == "mine", "an edited copy is kept without --force"
    again = json.loads(run_cli("integrations", "install", "openclaw", "--workspace", str(tmp_path), "--force",
                               "--json").stdout)
    assert [s["action"] for s in again["skills"]] == ["unchanged", "unchanged", "replaced"]
    assert edited.read_text(encoding="utf-8") == bundled_skills()["skill-evolver"]


def test_an_unmanaged_skill_of_the_same_name_is_never_overwritten_without_force(tmp_path: Path) -> None:
    mine = tmp_path / "skills" / "skill-acquisition"
    mine.mkdir(parents=True)
    (mine / "SKILL.md").write_text("---\nname: skill-acquisition\ndescription: mine\n---\nmine\n", encoding="utf-8")
    res = run_cli("integrations", "install", "openclaw", "--workspace", str(tmp_path), "--json")
    assert res.returncode == 1
    err = json.loads(res.stdout)["error"]
    assert err["code"] == "unmanaged_skill" and "--force" in err["message"]
    assert (mine / "SKILL.md").read_text(encoding="utf-8").endswith("mine\n")
    assert not (tmp_path / "skills" / "skill-evolver").exists(), "nothing is written when one target conflicts"
    res = run_cli("integrations", "install", "openclaw", "--workspace", str(tmp_path), "--force", "--json")
    assert res.returncode == 0
    assert [s["action"] for s in json.loads(res.stdout)["skills"]] == ["installed", "replaced", "installed"]
    assert (mine / "SKILL.md").read_text(encoding="utf-8") == bundled_skills()["skill-acquisition"]


def test_bad_workspaces_are_usage_errors(tmp_path: Path) -> None:
    res = run_cli("integrations", "install", "openclaw", "--workspace", str(tmp_path / "missing"), "--json")
    assert res.returncode == 2 and json.loads(res.stdout)["error"]["code"] == "invalid_workspace"
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "skills").symlink_to(tmp_path / "elsewhere")
    res = run_cli("integrations", "install", "openclaw", "--workspace", str(tmp_path / "ws"), "--json")
    assert res.returncode == 2 and json.loads(res.stdout)["error"]["code"] == "unsafe_path"
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_the_evolver_skill_keeps_the_originals_invocation_metadata() -> None:
    doc = parse_skill_md(bundled_skills()["skill-evolver"], directory="skill-evolver")
    assert doc.metadata.always is True and doc.metadata.skill_key == "skill-evolver"
    assert doc.frontmatter["user-invocable"] is True
    hint = doc.frontmatter["argument-hint"]
    for word in ("review", "approve", "reject", "revise", "publish", "rollback", "show mode", "set mode"):
        assert word in hint


@pytest.mark.parametrize("kind", ["fifo", "device", "marker-link"])
def test_a_target_that_is_not_a_regular_file_is_never_replaced_even_with_force(tmp_path: Path, kind: str) -> None:
    import os
    import stat

    folder = tmp_path / "skills" / "goal-workflow"
    folder.mkdir(parents=True)
    target = folder / ("SKILL.md" if kind != "marker-link" else ".nervous-integration.json")
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "device":
        if os.geteuid() != 0:
            pytest.skip("making a device node needs root")
        os.mknod(target, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a private node like /dev/null
    else:
        (tmp_path / "elsewhere.json").write_text("{}")
        target.symlink_to(tmp_path / "elsewhere.json")
    before = os.lstat(target)
    res = run_cli("integrations", "install", "openclaw", "--workspace", str(tmp_path), "--force", "--json")
    assert res.returncode == 2 and json.loads(res.stdout)["error"]["code"] == "unsafe_path", res.stdout
    after = os.lstat(target)
    assert (stat.S_IFMT(after.st_mode), after.st_ino) == (stat.S_IFMT(before.st_mode), before.st_ino)
    assert not (tmp_path / "skills" / "skill-evolver").exists(), "nothing is written when one target is unsafe"
