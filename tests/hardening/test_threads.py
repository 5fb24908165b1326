"""``nervous.Nervous`` shared across threads (or one per thread) in one working directory."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from nervous import Nervous

_SKILL = "---\nname: {name}\ndescription: Demo skill {name} that formats text.\nversion: 1.0.0\n---\n# {name}\n"


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    work = tmp_path / "work"
    for name in ("demo", "other", "third"):
        (work / "catalog" / name).mkdir(parents=True)
        (work / "catalog" / name / "SKILL.md").write_text(_SKILL.format(name=name))
    (work / ".nervous.toml").write_text('[plugins.local]\npaths = ["catalog"]\n')
    monkeypatch.chdir(work)
    for key in [k for k in __import__("os").environ if k.startswith("NERVOUS_")]:
        monkeypatch.delenv(key)
    return work


def _nervous(work: Path) -> Nervous:
    return Nervous(home=work.parent / "home", autoload=False, overrides=['registries.use=["local"]'])


def _approve_all(jobs: list[tuple[Nervous, str]]) -> list[Any]:
    results: list[Any] = [None] * len(jobs)
    barrier = threading.Barrier(len(jobs))

    def go(i: int) -> None:
        nv, token = jobs[i]
        barrier.wait()
        try:
            results[i] = nv.approve(token).to_json()
        except BaseException as exc:  # noqa: BLE001  (the test reports any raw exception)
            results[i] = exc

    threads = [threading.Thread(target=go, args=(i,)) for i in range(len(jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    return results


@pytest.mark.parametrize("shared", [True, False], ids=["shared", "one-each"])
def test_concurrent_approvals_of_one_skill_end_cleanly(work: Path, shared: bool) -> None:
    first = _nervous(work)
    jobs = []
    for _ in range(6):
        nv = first if shared else _nervous(work)
        state = nv.request_install("demo").to_json()
        jobs.append((nv, state["candidates"][0]["token"]))
    results = _approve_all(jobs)
    assert not [r for r in results if isinstance(r, BaseException)], results
    states = sorted(r["state"] for r in results)
    assert states == ["failed"] * 5 + ["installed"], states
    for r in results:
        if r["state"] == "failed":
            assert "already installed" in r["attempts"][0]["detail"], r["attempts"]
    skills = work / "skills"
    assert sorted(p.name for p in skills.iterdir() if not p.name.endswith(".lock")) == ["demo"]
    listing = first.manager.install_target().installed()
    assert [r.slug for r in listing] == ["demo"]


def test_concurrent_installs_of_different_skills_all_succeed(work: Path) -> None:
    nv = _nervous(work)
    jobs = [(nv, nv.request_install(name).to_json()["candidates"][0]["token"]) for name in ("demo", "other", "third")]
    results = _approve_all(jobs)
    assert [r["state"] for r in results] == ["installed"] * 3, results
    assert sorted(r.slug for r in nv.manager.install_target().installed()) == ["demo", "other", "third"]
