"""docs/acquire.md is executed: both transcripts (a person's and an agent's) must print what the page
shows, so the documentation cannot drift from the code."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from nervous.testing.transcripts import Transcript, console_blocks, rewrite

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "acquire.md"
PROJECT = "/home/me/project"


def project_config(project: Path) -> None:
    """The example configuration, as a project file pointing at the example registry."""
    text = (ROOT / "examples" / "nervous.toml").read_text(encoding="utf-8")
    registry = str(ROOT / "examples" / "registry")
    (project / ".nervous.toml").write_text(text.replace('paths = ["registry"]', f"paths = [{registry!r}]"),
                                           encoding="utf-8")


def transcript(tmp_path: Path) -> Transcript:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    project_config(project)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NERVOUS_", "CLAWHUB_"))}
    env.update(NERVOUS_HOME=str(home), NERVOUS_NOW="2026-06-17T09:00:00Z", NERVOUS_DISABLE_PLUGIN_AUTOLOAD="1",
               NO_COLOR="1", COLUMNS="80")
    return Transcript(env, project, replace=[(str(project), PROJECT)])


def test_both_transcripts_are_executable(tmp_path: Path) -> None:
    blocks = console_blocks(DOC.read_text(encoding="utf-8"))
    assert sum(len(b) for b in blocks) >= 8, "docs/acquire.md lost its transcripts"
    run = transcript(tmp_path)
    problems = [p for block in blocks for step in block for p in run.check(step)]
    assert not problems, "\n\n".join(problems)


if __name__ == "__main__":  # refresh the page after an intended change: python tests/acquire/test_acquire_docs.py
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        DOC.write_text(rewrite(DOC.read_text(encoding="utf-8"), transcript(Path(scratch))), encoding="utf-8")
elif not DOC.exists():  # pragma: no cover - the page ships with the docs
    pytest.skip("docs/acquire.md is missing", allow_module_level=True)
