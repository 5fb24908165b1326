"""Techniques told from a whole file, whatever its language: each needs two or three parts that sit on
different lines (a program's clipboard read, its test and its write; a ``.pth`` file written with code in it;
a start-up entry and the hidden program it runs). (A key logger needs Python's syntax tree: the Python
detector reads it.)

Each part alone is capability (a clipboard tool, a path file, a launch agent): only the combination is a
technique of spec §9, so each check here refuses and each is searched only where its literals occur.
"""

from __future__ import annotations

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
#: the literals the checks below need, one of them at least (the caller's whole-file set pass, which includes
#: :data:`SCREENED`, says whether any occurs: most files hold none, and cost nothing here)
_GATE = rx.compile(r"pbcopy|xclip|xsel|wl-copy|pyperclip|[Cc]lipboard|\.[Pp][Tt][Hh]|<string>|ExecStart")
SCREENED = (_GATE,)


def analyze(c: Collector, path: str, text: str, sc: rx.Scanned) -> None:
    """Record each technique whose parts are all in ``text``; ``sc`` is a set pass over ``text`` that includes
    :data:`SCREENED`."""
    if not sc.may_match(_GATE):
        return
    _clipboard_swap(c, path, text)
    _pth_code(c, path, text)
    _hidden_start_program(c, path, text)


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

