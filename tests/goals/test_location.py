"""Which document a process uses: project/context resolution and pinning (specs/goals.md §8.1)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nervous.engines.goals import GoalError
from nervous.engines.goals.location import PIN_VARIABLE, resolve_scope, slug


def _repo(root: Path, head: str = "ref: refs/heads/main") -> Path:
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "HEAD").write_text(head + "\n", encoding="utf-8")
    (root / "src").mkdir()
    return root


def test_slug() -> None:
    assert slug("  My Repo!! (v2)  ") == "my-repo-v2"
    assert slug("feature/ABC_1.2") == "feature-abc_1.2"
    assert len(slug("x" * 200)) == 80 and slug("///") == ""


def test_project_from_git_root_and_branch(tmp_path: Path) -> None:
    root = _repo(tmp_path / "My Repo")
    env: dict[str, str] = {}
    scope = resolve_scope(env, root / "src")
    digest = hashlib.sha1(str(root).encode()).hexdigest()[:8]
    assert scope.project == f"my-repo-{digest}" and scope.context == "main"
    assert scope.key == f"my-repo-{digest}/main"


def test_env_overrides(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    scope = resolve_scope({"NERVOUS_PROJECT": "Team Board", "NERVOUS_CONTEXT": "Sprint 12"}, root)
    assert (scope.project, scope.context) == ("team-board", "sprint-12")


def test_without_git_uses_cwd_and_default(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    scope = resolve_scope({}, plain)
    assert scope.project.startswith("plain-") and scope.context == "default"


def test_detached_head(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo", head="0123456789abcdef0123456789abcdef01234567")
    assert resolve_scope({}, root).context == "detached-0123456"


def test_worktree_gitdir_file(tmp_path: Path) -> None:
    real = tmp_path / "gitdata"
    real.mkdir()
    (real / "HEAD").write_text("ref: refs/heads/topic/x\n", encoding="utf-8")
    wt = tmp_path / "wt"
    wt.mkdir()
    (wt / ".git").write_text(f"gitdir: {real}\n", encoding="utf-8")
    assert resolve_scope({}, wt).context == "topic-x"


def test_context_is_pinned_across_a_branch_switch(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    env: dict[str, str] = {}
    assert resolve_scope(env, root).context == "main"
    assert json.loads(env[PIN_VARIABLE]) == {str(root): "main"}
    (root / ".git" / "HEAD").write_text("ref: refs/heads/other\n", encoding="utf-8")
    assert resolve_scope(env, root).context == "main"  # same process: pinned
    assert resolve_scope({}, root).context == "other"  # a new session sees the branch
    child = subprocess.run(
        [sys.executable, "-c", "from nervous.engines.goals import resolve_scope; print(resolve_scope().context)"],
        cwd=root, env={**os.environ, **env, "NERVOUS_CONTEXT": ""}, capture_output=True, text=True, check=True)
    assert child.stdout.strip() == "main"  # children inherit the pin
    assert resolve_scope({**env, "NERVOUS_CONTEXT": "explicit"}, root).context == "explicit"


def test_goals_path_must_be_absolute(tmp_path: Path) -> None:
    with pytest.raises(GoalError) as err:
        resolve_scope({"NERVOUS_GOALS_PATH": "goals.json"}, tmp_path)
    assert err.value.code == "config_error" and "NERVOUS_GOALS_PATH" in err.value.message
    scope = resolve_scope({"NERVOUS_GOALS_PATH": str(tmp_path / "g.json")}, tmp_path)
    assert scope.path == tmp_path / "g.json"
