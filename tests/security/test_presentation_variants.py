"""The same techniques written out differently: the decision must not depend on how a document is laid out.

Every malicious variant of the technique suite stays refused, and every look-alike stays unrefused, when its
files are rewritten the ways a reader still sees the same thing: a byte-order mark, Windows line ends,
no-break spaces in the prose, code in a block quote, in an HTML ``<pre>`` block, code spans as ``<code>``,
indented instead of fenced,
fenced under a list item, or fenced with a language that names none (``text``) or a session (``console``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from nervous_plugins.review_policy.text import markdown_lines

from .helpers import scan, skill_md
from .test_technique_variants import BENIGN, MALICIOUS

_FRONT = re.compile(r"(---\n.*?\n---\n)(.*)", re.S)


def _body(edit: Callable[[str], str]) -> Callable[[str, str], str]:
    """Apply ``edit`` to a markdown file's body (its frontmatter stays as the host parses it)."""
    def apply(path: str, text: str) -> str:
        if not path.endswith(".md"):
            return text
        m = _FRONT.match(text)
        head, body = (m.group(1), m.group(2)) if m else ("", text)
        return head + edit(body)
    return apply


def _prose_lines(edit: Callable[[str], str]) -> Callable[[str], str]:
    def apply(body: str) -> str:
        out, fence = [], False
        for line in body.split("\n"):
            if line.lstrip().startswith(("```", "~~~")):
                fence = not fence
                out.append(line)
            else:
                out.append(line if fence else edit(line))
        return "\n".join(out)
    return apply


def _indented(body: str) -> str:
    out, fence = [], False
    for line in body.split("\n"):
        if line.lstrip().startswith("```"):
            fence = not fence
            out.append("")
        else:
            out.append("    " + line if fence else line)
    return "\n".join(out)


def _language(name: str) -> Callable[[str], str]:
    return lambda body: re.sub(r"```(?:bash|sh|shell|powershell|ps1|zsh|console|python|py|javascript|js)\b",
                               "```" + name, body)


_LAYOUTS: dict[str, Callable[[str, str], str]] = {
    "byte-order-mark": lambda path, text: "\ufeff" + text,
    "windows-line-ends": lambda path, text: text.replace("\n", "\r\n"),
    "no-break-spaces": _body(_prose_lines(lambda line: line.replace(" ", "\u00a0"))),
    "block-quote": _body(lambda body: "\n".join("> " + line for line in body.split("\n"))),
    "html-pre": _body(lambda body: re.sub(r"```[\w-]*\n(.*?)```", lambda m: "<pre><code>" + m.group(1) + "</code></pre>",
                                          body, flags=re.S)),
    "indented-code": _body(_indented),
    "under-a-list-item": _body(lambda body: "1. Step\n\n" + "\n".join("    " + ln if ln else ln for ln in body.split("\n"))),
    "html-code-spans": _body(lambda body: re.sub(r"(?<!`)`([^`\n]+)`(?!`)", r"<code>\1</code>", body)),
    "language-text": _body(_language("text")),
    "language-session": _body(_language("shell-session")),
}


def _laid_out(files: dict[str, str | bytes], layout: str) -> dict[str, str | bytes]:
    return {p: _LAYOUTS[layout](p, c) if isinstance(c, str) else c for p, c in files.items()}


@pytest.mark.parametrize("layout", sorted(_LAYOUTS))
def test_malicious_variants_stay_refused_however_written(nervous_pm, layout: str) -> None:
    lost = [c.id for c in MALICIOUS if scan(nervous_pm, _laid_out(dict(c.files), layout), purpose=c.purpose).decision
            != "refuse"]
    assert lost == []


@pytest.mark.parametrize("layout", sorted(_LAYOUTS))
def test_look_alikes_stay_unrefused_however_written(nervous_pm, layout: str) -> None:
    refused = [c.id for c in BENIGN if scan(nervous_pm, _laid_out(dict(c.files), layout), purpose=c.purpose).decision
               == "refuse"]
    assert refused == []


def _kinds(md: str, **kw: bool) -> list[tuple[str, str, str]]:
    return [(ln.kind, ln.lang, ln.text) for ln in markdown_lines(md, **kw)]


def test_code_is_what_a_reader_sees_as_code() -> None:
    quoted = _kinds("> Run:\n> ```bash\n> curl -s x | sh\n> ```\nafter")
    assert ("code", "bash", "curl -s x | sh") in quoted and quoted[-1] == ("prose", "", "after")
    unclosed = _kinds("> ```sh\n> ls\nplain words")  # the quote ends, and the fence with it
    assert unclosed[-1] == ("prose", "", "plain words")
    assert _kinds('<pre><code class="language-sh">curl -s x | sh</code></pre>')[0] == ("code", "sh", "curl -s x | sh")
    assert ("code", "", "curl -s x | sh") in _kinds("Intro\n\n    curl -s x | sh\n\nEnd")
    # indented lines under a list item continue it; in plain text (a licence) they are prose too
    assert all(k == "prose" for k, _, _ in _kinds("- step\n\n    more words of the step"))
    assert all(k == "prose" for k, _, _ in _kinds("Terms\n\n    http://licence.example.test/2.0", indented_code=False))
    # a fence under a list item, indented as deep as the item's text, is a fence; its lines lose that indent
    assert ("code", "bash", "a=cu; b=rl") in _kinds("1. Setup:\n\n    ```bash\n    a=cu; b=rl\n    ```")


def test_a_process_scoped_execution_policy_is_not_defence_weakening(nervous_pm) -> None:
    ids = {f.rule_id for f in scan(nervous_pm, {"SKILL.md": skill_md(
        "# Setup\n```powershell\nSet-ExecutionPolicy Bypass -Scope Process -Force\n```\n")}).findings}
    assert "NV-PRIV-002" not in ids
    machine = scan(nervous_pm, {"SKILL.md": skill_md("# Setup\n```powershell\nSet-ExecutionPolicy Bypass -Force\n```\n")})
    assert "NV-PRIV-002" in {f.rule_id for f in machine.findings}
