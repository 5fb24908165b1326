"""The ``intent-command`` built-in plugin: an intent judge that is any program, e.g. a host's LLM wrapper.

nervous calls no LLM. A host that has one sets ``[review] intent_command`` to a program; for each scan
the program reads one ``nervous.intent-request.v1`` JSON document on stdin and prints one verdict
object on stdout (the protocol is in docs/security.md). This lets agents that are not Python (a CLI,
an MCP client) contribute the judgement the static rules cannot make: does what the skill can do fit
what it says it is for?

A configured judge that cannot answer (missing program, time-out, exit status, unreadable answer)
gives the verdict ``unknown``, which the review policy treats as a concern: silence is never approval.
"""

from __future__ import annotations

import os
from typing import Any

from nervous.plugin import IntentVerdict, ScanContext, SideEffects, SkillBundle, hookimpl

REQUEST_SCHEMA = "nervous.intent-request.v1"

#: the rubric of specs/security.md §10, in the order a judge should weigh it
DIMENSIONS = ("purpose_capability", "instruction_scope", "install_mechanism", "credential_proportionality",
              "persistence_privilege")

#: answers a judge may give: the spec's words and the record's words
VERDICTS = {"benign": "coherent", "coherent": "coherent", "suspicious": "incoherent", "incoherent": "incoherent",
            "malicious": "deceptive", "deceptive": "deceptive", "unknown": "unknown"}

MAX_ANSWER_BYTES = 64 * 1024


class JudgeFailed(Exception):
    """The judge program gave no usable answer; the message says why."""


def build_request(bundle: SkillBundle, side_effects: SideEffects, context: ScanContext, *,
                  max_chars: int) -> dict[str, Any]:
    """The document a judge reads: the skill's own words, what the rules found, and the rubric.

    Text is sent SKILL.md first, then the other files by path, until ``max_chars`` is spent; every file
    is listed, with ``truncated`` when its text was cut or left out.
    """
    from nervous.plugin.toolkit import classes_of, parse_skill_md

    skill_md = bundle.skill_md
    doc = parse_skill_md(skill_md.data) if skill_md is not None else None
    ordered = sorted(bundle.files, key=lambda f: (f is not skill_md, f.path))
    budget = max_chars
    files = []
    for f in ordered:
        text = f.text()
        entry: dict[str, Any] = {"path": f.path, "size": f.size, "text": None, "truncated": False}
        if text is not None:
            entry["text"] = text[:budget]
            entry["truncated"] = len(text) > budget
            budget -= len(entry["text"])
        files.append(entry)
    scan = context.registry_scan
    return {
        "schema": REQUEST_SCHEMA,
        "purpose": context.purpose,
        "stated_purpose": context.stated_purpose,
        "skill": {"ref": str(bundle.ref), "registry": bundle.registry, "version": bundle.version,
                  "name": doc.name if doc else None, "description": doc.description if doc else None},
        "registry_scan": {"status": scan.status, "reason": scan.reason} if scan else None,
        "capabilities": {
            "classes": classes_of(side_effects.tags, primary_env=side_effects.primary_env,
                                  complete=side_effects.complete),
            "tags": list(side_effects.tags),
            "flags": list(side_effects.flags),
            "complete": side_effects.complete,
        },
        "findings": [{"rule_id": f.rule_id, "title": f.title, "severity": f.severity, "action": f.action,
                      "file": f.file, "line": f.line} for f in side_effects.findings],
        "files": files,
        "untrusted": ["skill", "files"],
        "dimensions": list(DIMENSIONS),
        "answer": {"verdict": ["benign", "suspicious", "malicious", "abstain"], "reason": "one sentence",
                   "dimensions": {d: "ok | note | concern" for d in DIMENSIONS}},
    }


def parse_answer(raw: bytes) -> IntentVerdict | None:
    """Read a judge's answer; ``None`` when it abstains. :class:`JudgeFailed` says what is wrong."""
    import json

    if len(raw) > MAX_ANSWER_BYTES:
        raise JudgeFailed(f"answer is {len(raw)} bytes, over the limit of {MAX_ANSWER_BYTES}")
    try:
        answer = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise JudgeFailed(f"answer is not a JSON object ({exc})") from None
    if not isinstance(answer, dict):
        raise JudgeFailed(f"answer is not a JSON object (got {type(answer).__name__})")
    verdict = answer.get("verdict")
    if verdict == "abstain":
        return None
    if not isinstance(verdict, str) or verdict not in VERDICTS:
        raise JudgeFailed(f"answer's verdict is {verdict!r}; expected one of "
                          f"{', '.join(sorted({*VERDICTS, 'abstain'}))}")
    reason = answer.get("reason", "")
    if not isinstance(reason, str):
        raise JudgeFailed(f"answer's reason is not text (got {type(reason).__name__})")
    dims = answer.get("dimensions") or {}
    if not isinstance(dims, dict):
        raise JudgeFailed(f"answer's dimensions is not an object (got {type(dims).__name__})")
    concerns = [str(d) for d, v in dims.items() if v == "concern"]
    if concerns:
        reason = f"{reason} (concerns: {', '.join(concerns)})" if reason else f"concerns: {', '.join(concerns)}"
    return IntentVerdict(VERDICTS[verdict], reason=reason[:1000])  # type: ignore[arg-type]


def run_judge(command: list[str], request: dict[str, Any], *, timeout: float) -> bytes:
    """Run the judge program once with the request on stdin; its stdout, or :class:`JudgeFailed`."""
    import json
    import signal
    import subprocess

    data = json.dumps(request, ensure_ascii=False).encode("utf-8")
    try:
        proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True)
    except OSError as exc:
        raise JudgeFailed(f"cannot start {command[0]!r}: {exc.strerror or exc}") from None
    try:
        out, err = proc.communicate(data, timeout=timeout)
    except subprocess.TimeoutExpired:
        # the whole process group: a wrapper's children must not outlive the judgement
        killpg = getattr(os, "killpg", None)
        if killpg is not None:
            try:
                killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        proc.kill()
        proc.communicate()
        raise JudgeFailed(f"no answer within {timeout:g} s") from None
    if proc.returncode != 0:
        last = err.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        raise JudgeFailed(f"exited with status {proc.returncode}" + (f": {last[0][:300]}" if last[0] else ""))
    return out


@hookimpl(trylast=True)
def nervous_judge_intent(bundle: SkillBundle, side_effects: SideEffects, context: ScanContext,
                         manager: Any) -> IntentVerdict | None:
    review = manager.config.review
    command = list(review.intent_command)
    if not command:
        return None
    judge = f"intent-command ({os.path.basename(command[0])})"
    request = build_request(bundle, side_effects, context, max_chars=review.intent_max_chars)
    try:
        verdict = parse_answer(run_judge(command, request, timeout=review.intent_timeout))
    except JudgeFailed as exc:
        return IntentVerdict("unknown", reason=f"the judge program failed: {exc}", judge=judge)
    if verdict is None:
        return None
    return IntentVerdict(verdict.verdict, reason=verdict.reason, judge=judge)
