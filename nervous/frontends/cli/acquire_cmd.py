"""``nervous acquire``, ``approve``, ``cancel`` and ``done``: the acquisition loop from a shell.

Two front ends on one engine (:class:`nervous.engines.acquire.Acquirer`). People at a terminal get a
table, prompts, the plan and an outcome prompt; without a terminal nothing ever waits for input
(the exact ``nervous approve TOKEN`` commands are printed instead — silence is never approval).
Agents pass ``--json`` and get the state document with the next allowed actions and the tokens.
"""

from __future__ import annotations

import os
import sys
import time
import unicodedata
from typing import Any

import click

from ...errors import Refused
from ...kernel.texttable import terminal_lines, terminal_safe
from .app import emit, get_app, json_option

_OUTCOMES = ("success", "task_mismatch", "runtime_error", "auth_error", "dependency_missing", "api_error")
_OUTCOME_KEYS = {"s": "success", "m": "task_mismatch", "r": "runtime_error", "a": "auth_error",
                 "d": "dependency_missing", "p": "api_error"}
_DECISION = {"allow": ("✓ allow", "green"), "review": ("! review", "yellow"), "refuse": ("✗ refuse", "red")}
_CLASS_NAMES = {"read_only": "read-only", "write": "writes", "destructive": "deletes",
                "sensitive_credentials": "credentials", "shell": "shell", "network": "network"}


# ---------------------------------------------------------------------- terminal helpers


def _interactive() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def _colour() -> bool:
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def _style(text: str, **kw: Any) -> str:
    return click.style(text, **kw) if _colour() else text


def _width(text: str) -> int:
    """Columns ``text`` takes in a terminal (wide emoji count two)."""
    total, last = 0, 0
    for ch in text:
        if ch == "\ufe0f":  # emoji presentation widens the previous narrow symbol
            total += 1 if last == 1 else 0
            last = 2
            continue
        if unicodedata.combining(ch) or ch == "\u200d":
            continue
        last = 2 if unicodedata.east_asian_width(ch) in "WF" else 1
        total += last
    return total


def _fit(text: str, width: int) -> str:
    if _width(text) <= width:
        return text + " " * (width - _width(text))
    out = ""
    for ch in text:
        if _width(out + ch) > width - 1:
            break
        out += ch
    out += "…"
    return out + " " * (width - _width(out))


def _columns() -> int:
    if sys.stdout.isatty():
        try:
            return max(60, min(os.get_terminal_size(sys.stdout.fileno()).columns, 100))
        except OSError:
            pass
    return 80


def _table(rows: list[list[str]], headers: list[str], shrink: tuple[int, ...]) -> list[str]:
    """Rows padded by display width; the ``shrink`` columns give way until the table fits."""
    widths = [max(_width(str(r[i])) for r in [headers, *rows]) for i in range(len(headers))]
    budget = _columns() - 2 * (len(headers) - 1)
    while sum(widths) > budget:
        i = max(shrink, key=lambda k: widths[k])
        if widths[i] <= 6:
            break
        widths[i] -= 1
    lines = ["  ".join(_fit(h, w) for h, w in zip(headers, widths, strict=True)).rstrip()]
    lines += ["  ".join(_fit(str(c), w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    return lines


def _count(n: Any) -> str:
    if not isinstance(n, int):
        return "–"
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M"
    if n >= 1000:
        return f"{n / 1000:.1f}k"
    return str(n)


def _effects(classes: list[str]) -> str:
    from ...kernel.sideeffects import ICONS

    return ", ".join(f"{ICONS[c]} {_CLASS_NAMES.get(c, c)}" for c in classes) or "unknown"


def _relative(path: str) -> str:
    """A path under the current directory is shown relative to it."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def _acquirer() -> Any:
    from ...engines.acquire import Acquirer

    return Acquirer(get_app().manager)


# ---------------------------------------------------------------------- rendering


def _history(c: dict[str, Any]) -> str:
    h = c.get("history") or {}
    if not h:
        return "new"
    return f"{h.get('successes', 0)}✓{h.get('failures', 0)}✗" + ("⚡" if h.get("reflex") else "")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "es" if word.endswith("s") else "s")


def _show_perception(state: dict[str, Any]) -> None:
    if state["hit"]:
        click.echo(f"Perception: hit — region {_style(state['region'], bold=True)} (solved before)")
    else:
        names = ", ".join(r["registry"] for r in state["registries"]) or "no registry"
        click.echo(f"Perception: miss — searched {names} for \"{' '.join(state['keywords'][:5])}\"")


def _show_candidates(state: dict[str, Any]) -> None:
    cands = state["candidates"]
    if not cands:
        return
    rows = []
    for c in cands:
        mark = _DECISION.get(c["decision"], (c["decision"], None))[0].split()[0]
        source = c["registry"] + ("" if c.get("reviewed", True) else "?")
        rows.append([str(c["index"] + 1), c["name"], c["version"] or "–", source, _count(c.get("stars")),
                     _count(c.get("downloads")), c.get("scan_status") or "–",
                     f"{c.get('icons') or ''} {c['risk']} {mark}".strip(), _history(c)])
    click.echo("")
    lines = _table(rows, ["#", "skill", "ver", "source", "stars", "dl", "scan", "verdict", "runs"],
                   shrink=(1, 7, 6, 2))
    click.echo(_style(lines[0], bold=True))
    for c, line in zip(cands, lines[1:], strict=True):
        colour = _DECISION.get(c["decision"], ("", None))[1]
        click.echo(_style(line, fg=colour) if c["decision"] != "allow" else line)
    click.echo("verdict: side effects, our risk, ✓ allow / ! review / ✗ refuse"
               + ("; source? = unreviewed" if any(not c.get("reviewed", True) for c in cands) else ""))
    click.echo("")
    width = _columns() - 5
    for c in cands:
        summary = c.get("summary") or ""
        click.echo(f"{c['index'] + 1:>2}. {_fit(c['name'] + ' — ' + summary, width).rstrip()}")
        click.echo(f"    effects: {_effects(c.get('classes') or [])}"
                   + ("" if c.get("reviewed", True) else " · unreviewed source")
                   + (" · UNVERIFIED (no published digests)" if c.get("verified") is False
                      and c["decision"] != "refuse" else ""))
        for reason in (c.get("reasons") or [])[:3]:
            tag = "refused" if c["decision"] == "refuse" else "review"
            click.echo(f"    {tag}: {_fit(reason, width - 12).rstrip()}")
        for note in c.get("notes") or []:
            if "no clean registry scan" not in note:
                click.echo(f"    registry: {_fit(note, width - 14).rstrip()}")
        h = c.get("history") or {}
        if h:
            click.echo(f"    history: {_plural(h.get('successes', 0), 'success')}, "
                       f"{_plural(h.get('failures', 0), 'failure')}, weight {h.get('effective_weight', 0):.2f}"
                       + (", reflex ⚡" if h.get("reflex") else ""))
    for lesson in state.get("lessons") or []:
        if lesson.get("type") == "skill_quality_warning":
            click.echo(f"    warning: {lesson.get('slug')}: {lesson.get('detail', '')}")


def _approve_commands(state: dict[str, Any]) -> None:
    tokens = [(c, c["token"]) for c in state["candidates"] if c.get("token")]
    if not tokens:
        return
    click.echo("")
    click.echo("Nothing is installed without your explicit approval. To install a candidate run:")
    for c, token in tokens:
        extra = " --confirm-suspicious" if c.get("needs_confirmation") else ""
        click.echo(f"  nervous approve {token}{extra}   # {c['index'] + 1}. {c['name']} {c['version']}")
    click.echo("or give several tokens to try them in that order; to stop:")
    click.echo(f"  nervous cancel {tokens[0][1]}")


def _show_plan(state: dict[str, Any]) -> None:
    plan = state.get("plan")
    if not plan:
        return
    click.echo("")
    click.echo(_style(f"Plan: {plan['skill']} v{plan['version']}", bold=True) + f" (installed in {_relative(plan['path'])})")
    if plan.get("description"):
        click.echo(f"  {_fit(plan['description'], _columns() - 3).rstrip()}")
    click.echo(f"  side effects: {_effects(plan.get('classes') or [])}")
    if plan.get("steps"):
        click.echo("  steps:")
        for i, step in enumerate(plan["steps"], 1):
            click.echo(f"    {i}. {_fit(step, _columns() - 8).rstrip()}")
    deps = plan["dependencies"]
    checks = [f"{'✓' if ok else '✗'} {name}" for name, ok in {**deps["bins"], **deps["any_bins"]}.items()]
    checks += [f"{'✓' if ok else '✗'} ${name} {'set' if ok else 'not set'}" for name, ok in deps["env"].items()]
    click.echo("  dependencies: " + (", ".join(checks) if checks else "none declared"))
    for check in plan.get("lesson_checks") or []:
        click.echo(f"  lesson: {check['key']} is often missing here — "
                   + ("present ✓" if check["present"] else "missing ✗: install it before running the skill"))
    for lesson in plan.get("lessons") or []:
        if lesson.get("type") == "env_ready":
            click.echo(f"  lesson: {lesson.get('key')} is usually set here")
        elif lesson.get("type") == "skill_quality_warning":
            click.echo(f"  lesson: {lesson.get('slug')} — {lesson.get('detail', '')}")


def _show_learned(state: dict[str, Any]) -> None:
    learned = state.get("learned")
    if not learned:
        return
    reflex = " · reflex ready ⚡" if learned["reflex"] else ""
    click.echo(f"Learned: {learned['slug']} in {learned['region']}: weight {learned['weight']:.3f} "
               f"({_plural(learned['successes'], 'success')}, {_plural(learned['failures'], 'failure')}){reflex}")


def _show_report(state: dict[str, Any]) -> None:
    for row in state.get("report") or []:
        click.echo(f"  - {row['candidate']} {row['version'] or ''}: {row['outcome']}"
                   + (f" — {row['detail']}" if row.get("detail") else ""))
        if row.get("remedy"):
            click.echo(f"    remedy: {row['remedy']}")


def _notice(state: dict[str, Any], task: str | None) -> None:
    n = state["notice"]
    click.echo(_style(f"⚡ Skill Cortex reflex: {n['name']} v{n['version']} ({n['success_rate']}% success rate)",
                      bold=True))
    what = f"Task: {task} " if task else ""
    click.echo(f"   {what}({', '.join(n['traits'])}) | Will install and execute. Say cancel to abort.")


def _safe_view(value: Any) -> Any:
    """A copy for display whose every string (registry text, stored documents) has its control
    characters shown as ``\\x1b``-style escapes (docs/cli.md): nothing reaches the terminal raw."""
    if isinstance(value, str):
        return terminal_lines(value)
    if isinstance(value, dict):
        return {k: _safe_view(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_safe_view(v) for v in value]
    return value


def _show(state: dict[str, Any], *, task: str | None = None, prompts: bool = False) -> None:
    """The human view of one state document (and, without prompts, what to run next)."""
    state = _safe_view(state)
    task = None if task is None else terminal_safe(task)
    st = state["state"]
    if st in ("awaiting_approval", "reflex", "no_candidates", "refused") and state["attempts"] == []:
        _show_perception(state)
    if st == "reflex":
        _notice(state, task)
        if not prompts:
            token = state["candidates"][0].get("token")
            click.echo(f"Continue: nervous approve {token}\nCancel:   nervous cancel {token}")
        return
    if st in ("awaiting_approval", "refused"):
        _show_candidates(state)
        if st == "awaiting_approval" and state["attempts"]:
            click.echo(state["message"])
        if st == "refused":
            click.echo(_style("Every candidate was refused; nothing was installed.", fg="red"))
        elif not prompts:
            _approve_commands(state)
        return
    if st == "no_candidates":
        click.echo("No registry offered a skill for this task.")
        return
    if st == "installed":
        inst = state["installed"]
        click.echo(f"Installed {inst['slug']} v{inst['version']} from {inst['registry']}.")
        _show_plan(state)
        if not prompts:
            click.echo("")
            click.echo("nervous does not run the skill: use it now, then report how it went:")
            click.echo(f"  nervous done {inst['slug']} --outcome success")
            click.echo("  (or: task_mismatch, runtime_error, auth_error, dependency_missing, api_error)")
        return
    _show_learned(state)
    if st == "retention":
        if not prompts:
            slug = state["installed"]["slug"]
            click.echo(state["message"].split(" (")[0])
            click.echo(f"  keep it:    nervous done {slug} --keep\n  remove it:  nervous done {slug} --release")
        return
    if st in ("retry", "awaiting_dependency", "awaiting_credentials"):
        click.echo(state["message"])
        if not prompts:
            slug = state["installed"]["slug"]
            click.echo(f"Then report again: nervous done {slug} --outcome ...")
        return
    if st == "failed":
        click.echo(_style(state["message"], fg="red"))
        _show_report(state)
        return
    click.echo(state["message"])


# ---------------------------------------------------------------------- the interactive loop


def _ask_candidates(acq: Any, state: dict[str, Any]) -> dict[str, Any] | None:
    by_number = {str(c["index"] + 1): c for c in state["candidates"] if c.get("token")}
    first_token = next(iter(by_number.values()))["token"]
    while True:
        several = f" (several in order: {','.join(by_number)})" if len(by_number) > 1 else ""
        answer = click.prompt(f"Install which candidate? {'/'.join(by_number)}{several}, or c to cancel",
                              default="", show_default=False).strip().lower()
        if answer in ("", "c", "cancel", "q", "n", "no"):
            return dict(acq.cancel(first_token).to_json())
        picks = [p.strip() for p in answer.replace(" ", ",").split(",") if p.strip()]
        if picks and all(p in by_number for p in picks) and len(set(picks)) == len(picks):
            chosen = [by_number[p] for p in picks]
            try:
                approval = _person_approval(chosen)
            except Refused as exc:
                click.echo(exc.message)
                continue
            click.echo(f"Installing {', then '.join(terminal_safe(c['name']) for c in chosen)}…")
            return dict(acq.approve(*(c["token"] for c in chosen), approval=approval).to_json())
        click.echo(f"Please answer {', '.join(by_number)} (or c to cancel).")


def _person_approval(chosen: list[dict[str, Any]]) -> Any:
    """The person's own answer at this terminal; a riskier candidate needs its name typed."""
    from ...engines.install.gate import Approval
    from .confirm import ask_person

    for c in chosen:
        why = [w for w, bad in (("review-level", c.get("decision") == "review"),
                                ("flagged suspicious by its registry", c.get("suspicious")),
                                ("UNVERIFIED (no published digests)", c.get("verified") is False)) if bad]
        if why:
            ask_person(f"{c['name']} v{c['version']} is {', '.join(why)}.", c["name"])
    return Approval.person("terminal")


def _ask_outcome(acq: Any, state: dict[str, Any]) -> dict[str, Any] | None:
    slug = state["installed"]["slug"]
    while True:
        click.echo("How did it go? [s]uccess, [m]ismatch, [r]untime error, [a]uth error,")
        answer = click.prompt("[d]ependency missing, a[p]i error, or Enter to report later",
                              default="", show_default=False).strip().lower()
        if not answer:
            click.echo(f"Report later with: nervous done {slug} --outcome success|<failure type>")
            return None
        outcome = _OUTCOME_KEYS.get(answer[:1]) if answer not in _OUTCOMES else answer
        if outcome:
            detail = None
            if outcome != "success":
                detail = click.prompt("What went wrong (optional)", default="", show_default=False) or None
            return dict(acq.done(slug, outcome, detail=detail, session=state["session"]).to_json())
        click.echo("Please answer s, m, r, a, d or p (or Enter to report later).")


def _interact(acq: Any, state: dict[str, Any], task: str | None) -> dict[str, Any]:
    """Drive the loop at a terminal until it ends or the person chooses to report later."""
    token = ""  # any token of the session lets the person cancel after the install
    while True:
        token = next((c["token"] for c in state["candidates"] if c.get("token")), token)
        _show(state, task=task, prompts=True)
        st = state["state"]
        nxt: dict[str, Any] | None
        if st == "reflex":
            answer = click.prompt("Enter to continue, c to cancel", default="", show_default=False).strip().lower()
            if answer.startswith("c"):
                nxt = acq.cancel(token).to_json()
            else:
                click.echo(f"Installing {terminal_safe(state['candidates'][0]['name'])}…")
                nxt = acq.approve(token).to_json()
        elif st == "awaiting_approval":
            nxt = _ask_candidates(acq, state)
        elif st == "installed":
            if state["mode"] != "reflex" and not click.confirm("\nUse this skill as planned?", default=True):
                nxt = acq.cancel(token).to_json()
            else:
                click.echo("Use the skill now (nervous does not run it).")
                nxt = _ask_outcome(acq, state)
        elif st == "retry":
            delay = float(state.get("retry_after") or 0)
            click.echo(f"Waiting {delay:g} s before the retry…")
            time.sleep(delay)
            nxt = _ask_outcome(acq, state)
        elif st in ("awaiting_dependency", "awaiting_credentials"):
            nxt = _ask_outcome(acq, state)
        elif st == "retention":
            keep = click.confirm(f"Keep {state['installed']['slug']} installed as a long-term skill?", default=False)
            nxt = acq.done(state["installed"]["slug"], keep=keep, session=state["session"]).to_json()
        else:
            return state
        if nxt is None:
            return state
        for w in nxt.get("warnings", []):
            click.echo(_style(f"warning: {terminal_lines(w)}", fg="yellow"), err=True)
        state = nxt


# ---------------------------------------------------------------------- commands


def _print(as_json: bool, result: Any, **show: Any) -> None:
    data = result.to_json()
    emit(as_json, data, lambda: _show(data, **show))


@click.command("acquire")
@click.argument("task")
@json_option
def acquire(task: str, as_json: bool) -> None:
    """Find, vet and (after your approval) install a skill for TASK, then hand over its plan."""
    acq = _acquirer()
    interactive = not as_json and _interactive()
    result = acq.start(task, interactive=as_json or interactive)
    if not interactive:
        _print(as_json, result, task=task)
        return
    data = result.to_json()
    for w in data.get("warnings", []):
        click.echo(_style(f"warning: {terminal_lines(w)}", fg="yellow"), err=True)
    _interact(acq, data, task)


@click.command("approve")
@click.argument("tokens", nargs=-1, required=True)
@click.option("--confirm-suspicious", is_flag=True,
              help="The user confirmed a candidate flagged suspicious or unverified ('install anyway').")
@json_option
def approve(tokens: tuple[str, ...], confirm_suspicious: bool, as_json: bool) -> None:
    """Install the candidate TOKEN approves (several tokens: try them in this order).

    At a terminal, with [approval] mode = "person", a candidate that needs the person's own
    confirmation asks them to type its name; elsewhere the answer is a needs_person state.
    """
    from .confirm import at_terminal

    acq = _acquirer()
    result = acq.approve(*tokens, confirm_suspicious=confirm_suspicious)
    if result.state == "needs_person" and at_terminal() and not as_json:
        chosen = [c for c in result.data["candidates"] if c.get("token") in tokens]
        result = acq.approve(*tokens, approval=_person_approval(chosen))
    _print(as_json, result)


@click.command("cancel")
@click.argument("token")
@json_option
def cancel(token: str, as_json: bool) -> None:
    """Cancel the acquisition TOKEN belongs to (uninstalls what it installed; nothing is learned)."""
    _print(as_json, _acquirer().cancel(token))


@click.command("done")
@click.argument("slug")
@click.option("--outcome", type=click.Choice(_OUTCOMES), default=None, help="How using the skill went.")
@click.option("--detail", default=None, help="What went wrong (sanitised; no secrets, names or paths).")
@click.option("--misleading", is_flag=True, help="With task_mismatch: the description promised what it cannot do.")
@click.option("--session", default=None, help="The acquisition, when several installed the same skill.")
@click.option("--keep/--release", "keep", default=None, help="Answer the retention suggestion.")
@json_option
def done(slug: str, outcome: str | None, detail: str | None, misleading: bool, session: str | None,
         keep: bool | None, as_json: bool) -> None:
    """Report the outcome of the acquired skill SLUG: learn, recover, clean up."""
    if outcome is None and keep is None:
        raise click.UsageError("give --outcome (how it went) or --keep/--release (the retention answer)")
    result = _acquirer().done(slug, outcome, detail=detail, session=session, keep=keep, misleading=misleading)
    _print(as_json, result)
