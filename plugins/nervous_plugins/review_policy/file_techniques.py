"""Techniques told from a whole file, whatever its language: each needs two or three parts that sit on
different lines (a program's clipboard read, its test and its write; a ``.pth`` file written with code in it;
a start-up entry and the hidden program it runs).

Each part alone is capability (a clipboard tool, a path file, a launch agent): only the combination is a
technique of spec §9, so each check here refuses and each is searched only where its literals occur.
"""

from __future__ import annotations

import ast

from . import rx
from .collector import Collector
from .text import snippet

#: reading the clipboard (shell tools, Python, PowerShell, JavaScript, the Windows API)
_CLIP_READ = rx.compile(r"(?i)\bpbpaste\b|\bxclip\b[^\n]*\s-o\b|\bxsel\b[^\n]*\s-[a-z]*o|\bwl-paste\b"
                        r"|\bpyperclip\.paste\s*\(|\bGet-Clipboard\b|clipboard\.readText\s*\(|GetClipboardData\s*\(")
#: writing it
_CLIP_WRITE = rx.compile(r"(?i)\|\s*pbcopy\b|\bxclip\b[^\n]*-sel|\bxsel\b[^\n]*\s-[a-z]*i|\|\s*wl-copy\b"
                         r"|\bpyperclip\.copy\s*\(|\bSet-Clipboard\b|clipboard\.writeText\s*\(|SetClipboardData\s*\(")
#: what a payment address looks like to a program testing for one (the prefixes of Bitcoin's and Ethereum's
#: addresses side by side, or a character class of Base58's first letters)
_ADDRESS_TEST = rx.compile(r"(?i)\bbc1\b[^\n]{0,40}\b0x|\b0x[^\n]{0,40}\bbc1|\[13\]\[a-km-z|0x\[0-9a-f")
#: a ``.pth`` file opened or redirected for writing: Python's ``site`` runs each of its lines that starts with
#: ``import`` at every interpreter start
_PTH_WRITE = rx.compile(r"""(?i)\.pth['"]\s*\)?\s*,\s*['"][wa]|\.pth['"]\s*\)\s*\.write_text\s*\(|>>?[^\n>|&]*\.pth\b"""
                        r"""|\btee\s+(?:-a\s+)?['"]?[^\s'"]*\.pth\b""")
_SITE_DIR = rx.compile(r"(?i)site-packages|dist-packages|getsitepackages|getusersitepackages|\bUSER_SITE\b"
                       r"|get_paths\(\)\s*\[\s*['\"](?:pure|plat)lib")
_IMPORT_LINE = rx.compile(r"""['"]\s*import\s+\w|\bimport\s+\w+\s*[;,]""")
#: a program a launch agent or a systemd unit starts, when it is a dot-named file under a temporary folder
_HIDDEN_PROGRAM = rx.compile(r"(?:<string>\s*|Exec(?:Start|StartPre|StartPost)\s*=\s*)"
                             r"(?:/usr/bin/env\s+\w+\s+)?(?:/private)?(?:/tmp|/var/tmp|/dev/shm)/(?:[\w.-]+/)*\.[\w-][\w.-]*")
#: a global keyboard hook (``pynput``'s listener, the ``keyboard`` module's callbacks)
_KEY_HOOK = rx.compile(r"\bListener\s*\(|\bkeyboard\.(?:on_press|on_release|hook)\s*\(")
#: the literals the checks below need, one of them at least (the caller's whole-file set pass, which includes
#: :data:`SCREENED`, says whether any occurs: most files hold none, and cost nothing here)
_GATE = rx.compile(r"pbcopy|xclip|xsel|wl-copy|pyperclip|[Cc]lipboard|\.[Pp][Tt][Hh]|<string>|ExecStart|Listener|keyboard\.")
SCREENED = (_GATE,)


def analyze(c: Collector, path: str, text: str, sc: rx.Scanned) -> None:
    """Record each technique whose parts are all in ``text``; ``sc`` is a set pass over ``text`` that includes
    :data:`SCREENED`."""
    if not sc.may_match(_GATE):
        return
    _clipboard_swap(c, path, text)
    _pth_code(c, path, text)
    _hidden_start_program(c, path, text)
    if path.endswith((".py", ".pyw")) and _KEY_HOOK.search(text):
        _keystrokes_sent(c, path, text)


def _line_of(text: str, pos: int) -> tuple[int, str]:
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return text.count("\n", 0, pos) + 1, text[start:end if end >= 0 else len(text)]


def _clipboard_swap(c: Collector, path: str, text: str) -> None:
    """NV-FIN-002: a program reads the clipboard, tests it for a payment address and writes the clipboard: what
    the user pastes as the recipient is then another address."""
    write = _CLIP_WRITE.search(text)
    if write and _CLIP_READ.search(text) and _ADDRESS_TEST.search(text):
        ln, line = _line_of(text, write.start())
        c.hit("NV-FIN-002", path, ln, snippet(line), action="review" if c.security_tool else None,
              replaces="a payment address copied to the clipboard")
        c.flags.add("financial")


def _pth_code(c: Collector, path: str, text: str) -> None:
    """NV-PERSIST-001: a ``.pth`` file written into a ``site-packages`` folder with an import line in it runs that
    code in every Python process from then on."""
    m = _PTH_WRITE.search(text)
    if m is None or _SITE_DIR.search(text) is None:
        return
    ln, line = _line_of(text, m.start())
    end = text.find("\n", m.start())
    end = text.find("\n", end + 1) if end >= 0 else -1  # the write's line and the next (``.write(`` after it)
    following = text[m.start():end if end >= 0 else len(text)]
    if _IMPORT_LINE.search(following):
        c.hit("NV-PERSIST-001", path, ln, snippet(line), action="review" if c.security_tool else "refuse",
              runs="a .pth file's import line, at every Python start")
        c.flags.add("persistence")


def _hidden_start_program(c: Collector, path: str, text: str) -> None:
    """NV-PERSIST-001: a launch agent or a systemd unit whose program is a hidden file in a temporary folder
    (nothing a user installs lives there, named so that a listing does not show it)."""
    m = _HIDDEN_PROGRAM.search(text)
    if m:
        ln, line = _line_of(text, m.start())
        c.hit("NV-PERSIST-001", path, ln, snippet(line), action="review" if c.security_tool else "refuse",
              runs="a hidden file in a temporary folder, at every login or boot")
        c.flags.add("persistence")


#: the calls that send what they are given over the network (Python)
_SENDS = rx.compile(r"(?:^|\.)(?:post|put|patch|urlopen|send|sendall|sendto|sendmail|send_message|request)$")
#: the calls that keep what they are given for later
_KEEPS = rx.compile(r"(?:^|\.)(?:append|extend|write|writelines|put|put_nowait)$")


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return _dotted(node.value) + "." + node.attr
    return ""


def _keystrokes_sent(c: Collector, path: str, text: str) -> None:
    """NV-EXFIL-002: a global keyboard hook whose handler sends the key it is given, or keeps every key in a
    program that sends (a hot-key handler compares the key; a key logger records it)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return
    functions = {n.name: n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    program_sends = any(_SENDS.search(_dotted(n.func)) for n in calls)
    for call in calls:
        name = _dotted(call.func)
        if name.endswith("keyboard.Listener") or name == "Listener":
            handlers = [k.value for k in call.keywords if k.arg in ("on_press", "on_release")]
        elif name in ("keyboard.on_press", "keyboard.on_release", "keyboard.hook"):
            handlers = call.args[:1]
        else:
            continue
        for handler in handlers:
            fn = functions.get(handler.id) if isinstance(handler, ast.Name) else handler
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            params = [a.arg for a in fn.args.args if a.arg != "self"]
            if not params:
                continue
            key = params[0]
            for inner in ast.walk(fn):
                if not isinstance(inner, ast.Call):
                    continue
                used = any(isinstance(a, ast.Name) and a.id == key
                           for arg in [*inner.args, *(k.value for k in inner.keywords)] for a in ast.walk(arg))
                callee = _dotted(inner.func)
                if used and (_SENDS.search(callee) or program_sends and _KEEPS.search(callee)):
                    c.hit("NV-EXFIL-002", path, inner.lineno, snippet(text.split("\n")[inner.lineno - 1]),
                          action="review" if c.security_tool else "refuse",
                          sends="every key the user types (a global keyboard hook)")
                    c.flags.add("network_send")
                    c.fact("network_send", path, inner.lineno, "py-keystrokes")
                    return
