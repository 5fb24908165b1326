"""Python detector: walks the ``ast`` (never imports or runs the code).

Only strings that reach an execution, file or network sink are treated as commands or targets;
string constants elsewhere (for example a scanner's pattern list) are data.
"""

from __future__ import annotations

import ast
import gc
import re
import sys
from collections.abc import Callable
from typing import Any

from nervous.plugin.toolkit import is_credential_path, normalize_host

from . import rx, shell
from .collector import Collector
from .indicators import PASTE_HOSTS
from .text import URL_RE, host_matches, ip_kind, snippet

EXEC_FUNCS = {"system", "popen", "run", "call", "check_call", "check_output", "Popen", "getoutput",
              "getstatusoutput", "spawnl", "spawnlp", "spawnv", "spawnvp", "execl", "execlp", "execv", "execvp",
              "execve", "create_subprocess_exec", "create_subprocess_shell", "startfile"}
EXEC_MODULES = {"os", "subprocess", "commands", "asyncio", "sh", "pexpect"}
NET_MODULES = {"requests", "httpx", "urllib", "urllib2", "urllib3", "aiohttp", "http", "socket", "websocket",
               "websockets", "smtplib", "ftplib", "paramiko", "boto3", "telnetlib", "pycurl", "grpc", "openai",
               "anthropic", "google", "slack_sdk", "telegram", "discord", "tweepy", "httplib2", "mechanize",
               "selenium", "playwright", "feedparser", "yfinance", "ccxt", "web3", "stripe", "twilio"}
SEND_METHODS = {"post", "put", "patch"}
FETCH_FUNCS = {"get", "post", "put", "patch", "delete", "request", "urlopen", "urlretrieve", "Request", "head",
               "stream", "fetch", "send"}


def _const_str(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant) and isinstance(v.value, str):
                parts.append(v.value)
            else:
                parts.append("${X}")
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _const_str(node.left), _const_str(node.right)
        if left is not None or right is not None:
            return (left or "${X}") + (right or "${X}")
    return None


def _dotted(node: ast.AST) -> str:
    """``a.b().c`` for the expression ``a.b().c``; ``?`` stands for any other head.

    A loop, not a recursion: it is asked about every call of a module.
    """
    parts: list[str] = []
    while True:
        if isinstance(node, ast.Name):
            head = node.id
            break
        if isinstance(node, ast.Attribute):
            parts.append("." + node.attr)
            node = node.value
        elif isinstance(node, ast.Call):
            parts.append("()")
            node = node.func
        else:
            head = "?"
            break
    if not parts:
        return head
    parts.reverse()
    return head + "".join(parts)


def call_name(call: ast.Call) -> str:
    """The dotted name of the function a call calls, as the checks ask for it: a module's function reached through a
    dynamic import or ``getattr`` under its own name (``os.system`` for ``__import__('os').system``)."""
    fn = _dotted(call.func)
    if fn.startswith(("__import__().", "importlib.import_module().", "import_module().")):
        return _imported_module(call.func) + fn[fn.index("()") + 2:]
    if fn.startswith(("getattr()", "builtins.", "__builtins__.")):
        return _builtin_called(call.func, fn)
    return fn


def _builtin_called(func: ast.AST, fn: str) -> str:
    """``exec`` for the callee ``builtins.exec`` or ``getattr(builtins, 'ex' + 'ec')``: a builtin reached through
    the builtins module is that builtin; one whose name is built at run time is taken to run code (``exec``),
    what a name spelled in pieces is there to hide; ``os.system`` for ``getattr(__import__('os'), 'system')``.
    Any other callee keeps its name."""
    if fn.count(".") == 1 and fn.startswith(("builtins.", "__builtins__.")):
        return fn.partition(".")[2]
    if fn != "getattr()" or not isinstance(func, ast.Call) or len(func.args) < 2:
        return fn
    owner, name = func.args[0], _const_str(func.args[1])
    module = owner.id if isinstance(owner, ast.Name) else (
        _imported_module(owner) if _dotted(owner) in ("__import__()", "importlib.import_module()") else None)
    if module in ("builtins", "__builtins__"):
        return "exec" if name is None or "${X}" in name else name
    if module in ("os", "subprocess") and name and "${X}" not in name:
        return f"{module}.{name}"  # ``getattr(__import__('os'), 'system')``
    return fn


def _imported_module(func: ast.AST) -> str:
    """``os`` for the callee ``__import__('os').system``: the module a dynamic import names, or ``?``."""
    while isinstance(func, ast.Attribute):
        func = func.value
    if isinstance(func, ast.Call) and func.args:
        name = _const_str(func.args[0])
        if name:
            return str(name).partition(".")[0]
    return "?"


def _is_environ(node: ast.AST) -> bool:
    """``_dotted(node) in ("os.environ", "environ")`` without building the name."""
    if isinstance(node, ast.Name):
        return node.id == "environ"
    return (isinstance(node, ast.Attribute) and node.attr == "environ" and isinstance(node.value, ast.Name)
            and node.value.id == "os")


#: fields that never hold a node (names, numbers, constants, type comments), Python 3.11 to 3.13
_LEAF_FIELDS = frozenset({
    ("Name", "id"), ("Constant", "value"), ("Constant", "kind"), ("Attribute", "attr"), ("keyword", "arg"),
    ("arg", "arg"), ("arg", "type_comment"), ("alias", "name"), ("alias", "asname"), ("FunctionDef", "name"),
    ("FunctionDef", "type_comment"), ("AsyncFunctionDef", "name"), ("AsyncFunctionDef", "type_comment"),
    ("ClassDef", "name"), ("ImportFrom", "module"), ("ImportFrom", "level"), ("FormattedValue", "conversion"),
    ("Assign", "type_comment"), ("For", "type_comment"), ("AsyncFor", "type_comment"), ("With", "type_comment"),
    ("AsyncWith", "type_comment"), ("AnnAssign", "simple"), ("comprehension", "is_async"), ("Global", "names"),
    ("Nonlocal", "names"), ("ExceptHandler", "name"), ("MatchAs", "name"), ("MatchStar", "name"),
    ("MatchMapping", "rest"), ("MatchClass", "kwd_attrs"), ("MatchSingleton", "value"), ("TypeIgnore", "tag"),
    ("TypeIgnore", "lineno"), ("TypeVar", "name"), ("ParamSpec", "name"), ("TypeVarTuple", "name")})
#: list fields that may hold ``None`` beside nodes (``**x`` in a dict display, a keyword-only argument
#: without a default); every other list field holds nodes only
_HOLEY_LISTS = frozenset({("Dict", "keys"), ("arguments", "kw_defaults")})
#: the tables above are checked against these versions' grammars; a later one gets every field checked
_KNOWN_GRAMMAR = sys.version_info < (3, 14)
#: per node class: its fields that can hold nodes (:func:`_fields_of`) and its list in :class:`_NodesByKind`
_CLASS_TABLE: dict[type, tuple[tuple[tuple[str, bool], ...], int]] = {}


def _fields_of(cls: type) -> tuple[tuple[str, bool], ...]:
    """The fields of a node class that can hold nodes, each with whether its value must be checked."""
    name = cls.__name__
    if not _KNOWN_GRAMMAR:
        return tuple((f, True) for f in cls._fields if f != "ctx")  # type: ignore[attr-defined]
    return tuple((f, (name, f) in _HOLEY_LISTS) for f in cls._fields  # type: ignore[attr-defined]
                 if f != "ctx" and (name, f) not in _LEAF_FIELDS)


_LEAVES_OF: dict[str, tuple[str, ...]] = {}
for _cls, _field in sorted(_LEAF_FIELDS):
    _LEAVES_OF[_cls] = (*_LEAVES_OF.get(_cls, ()), _field)


def _may_spell(node: ast.AST, word: str) -> bool:
    """False when ``ast.unparse(node)`` cannot hold the lower-case ASCII ``word`` in any case.

    For a ``word`` no keyword holds and whose letters have no case variant outside ASCII for the rule
    expressions (RE2's case folding: so for ``environ``, tested): a match is a run of ASCII letters.
    ``ast.unparse`` writes its own keywords and punctuation, each name as it is, a bytes constant as
    its ``repr`` and a string's characters with quotes, braces and backslash escapes added. An escape
    can spell letters (``"\\x0e" + "nviron"`` is written ``\\x0environ``): a string with a character
    that may be escaped (outside printable ASCII) is asked with every such character escaped, which
    holds every run of letters any of its spellings does. Printing a value is common and writing it
    out costs about thirty microseconds; reading its names costs a few.
    """
    if not _KNOWN_GRAMMAR:
        return True
    leaves = _LEAVES_OF
    for n in walk(node):
        fields = leaves.get(type(n).__name__)
        if fields is None:
            continue
        d = n.__dict__
        for name in fields:
            v = d.get(name)
            for x in v if type(v) is list else (v,):
                if isinstance(x, str):
                    if x.isascii() and x.isprintable():
                        if word in x.lower():
                            return True
                    elif word in x.encode("unicode_escape").decode("ascii").lower():
                        return True
                elif isinstance(x, bytes):
                    if word in repr(x).lower():
                        return True
                # numbers, None, True, False, Ellipsis: digits and fixed words
    return False


def walk(node: ast.AST, kinds: _NodesByKind | None = None) -> list[ast.AST]:
    """Every node under ``node`` but the expression contexts, in the order of ``ast.walk`` (breadth first).

    ``ast.walk`` is a generator over ``iter_child_nodes`` and ``iter_fields``: three Python-level
    generators per node, about a tenth of the scan of a large Python module. This is one loop over a
    list that grows as it is read, each node class's field names looked up once and each field read
    from the node's dictionary (a field that is absent or ``None`` has no node under it either way).
    The ``ctx`` field (``Load``/``Store``/``Del`` of every name, attribute and subscript, leaves with
    nothing under them) is not followed: a third of a module's nodes, which no detector asks about
    and every pass over the nodes would otherwise step over. Nor are the fields the grammar gives a
    name, a number or a constant (``Name.id``, ``Constant.value``...): a name or a constant is then a
    leaf read once, and a node field's value needs no type check (a node, a list of nodes, or
    ``None``), but for the two list fields that may hold ``None``.

    With ``kinds``, each node is also sorted into it as it is reached (:meth:`_NodesByKind.add`): the
    detector's one pass over a module's nodes.
    """
    out = [node]
    append, extend = out.append, out.extend
    AST = ast.AST
    table = _CLASS_TABLE
    add = kinds.add if kinds is not None else None
    for n in out:  # the list grows as it is read
        cls = type(n)
        entry = table.get(cls)
        if entry is None:
            entry = table[cls] = (_fields_of(cls), _kind_of(cls))
        fields, k = entry
        if add is not None and k >= 0:
            add(n, k)
        if not fields:
            continue
        d = n.__dict__
        for name, check in fields:
            f = d.get(name)
            if f is None:
                continue
            if type(f) is list:
                if check:
                    extend([x for x in f if isinstance(x, AST)])
                else:
                    extend(f)
            elif not check or isinstance(f, AST):
                append(f)
    return out


#: the node classes each list of :class:`_NodesByKind` holds, in the order they are asked about
_KINDS: tuple[type | tuple[type, ...], ...] = (
    ast.Call, ast.Constant, ast.Subscript, ast.Assign, (ast.Import, ast.ImportFrom),
    (ast.ListComp, ast.DictComp, ast.SetComp, ast.GeneratorExp, ast.For))
_KIND_OF: dict[type, int] = {}


class _NodesByKind:
    """A module's nodes sorted once by what the detector's passes ask about, each list in walk order.

    Six passes over a module used to step over every node asking ``isinstance`` (and the name of every
    call's function, a recursive ``_dotted``, again in each pass); each pass now reads only the nodes it
    can act on, in the same order, and each call's function name is computed once, with its first and
    last dotted parts (``head_of``, ``last_of``) that every pass used to split it for.
    """

    __slots__ = ("imports", "loops", "assigns", "main", "calls", "subscripts", "_others", "fn_of", "head_of",
                 "last_of")

    def __init__(self, nodes: list[ast.AST] | None = None) -> None:
        self.imports: list[ast.AST] = []  # Import, ImportFrom
        self.loops: list[ast.AST] = []  # comprehensions and for loops
        self.assigns: list[ast.Assign] = []
        self.main: list[ast.AST] = []  # constants, subscripts and calls, interleaved as walked
        self.calls: list[ast.Call] = []
        self.subscripts: list[ast.Subscript] = []
        self._others: tuple[list[Any], ...] = (self.assigns, self.imports, self.loops)
        if nodes is None:
            return  # filled by :func:`_walk_sorted`
        for node in nodes:
            k = _kind_of(type(node))
            if k >= 0:
                self.add(node, k)
        self._name_calls()

    def add(self, node: ast.AST, k: int) -> None:
        """File a node of kind ``k`` (its index in ``_KINDS``, not -1)."""
        if k < 3:
            self.main.append(node)
            if k == 0:
                self.calls.append(node)  # type: ignore[arg-type]
            elif k == 2:
                self.subscripts.append(node)  # type: ignore[arg-type]
        else:
            self._others[k - 3].append(node)

    def _name_calls(self) -> None:
        self.fn_of: dict[int, str] = {}
        self.head_of: dict[int, str] = {}  # fn.split(".")[0]
        self.last_of: dict[int, str] = {}  # fn.split(".")[-1]
        fn_of, head_of, last_of = self.fn_of, self.head_of, self.last_of
        for n in self.calls:
            fn = call_name(n)
            key = id(n)
            fn_of[key] = fn
            head_of[key] = fn.partition(".")[0]
            last_of[key] = fn.rpartition(".")[2]


def _kind_of(cls: type) -> int:
    """Which list of :class:`_NodesByKind` a node class goes to (its index in ``_KINDS``), or -1; asked once
    per class (``issubclass``: the same answer ``isinstance`` gives per node)."""
    k = _KIND_OF.get(cls)
    if k is None:
        k = _KIND_OF[cls] = next((i for i, bases in enumerate(_KINDS) if issubclass(cls, bases)), -1)
    return k


def _walk_sorted(tree: ast.AST) -> tuple[list[ast.AST], _NodesByKind]:
    """``walk(tree)`` and ``_NodesByKind`` of its nodes, in one loop: each node is sorted as it is reached.

    The same lists in the same order as the two steps one after the other (a node is reached in walk
    order, and sorted there); one pass over a module's nodes instead of two.
    """
    kinds = _NodesByKind()
    nodes = walk(tree, kinds)
    kinds._name_calls()
    return nodes, kinds


_ENV_GETTERS = ("os.getenv", "getenv", "os.environ.get", "environ.get")
_ENV_ARG_SINKS = ("dict", "dumps", "dump", "str", "repr", "print", "json", "post", "put", "send", "write", "items",
                  "list", "sorted", "format", "b64encode", "encode", "urlencode")
_OPEN_HEADS = ("open", "io", "codecs", "builtins", "gzip", "os")
_WRITE_CALLS = ("write_text", "write_bytes", "mkdir", "makedirs", "touch", "copy", "copy2", "copyfile", "copytree",
                "move", "rename", "replace", "symlink_to", "dump", "savefig", "save", "to_csv", "to_excel", "to_json",
                "to_parquet", "writestr", "extractall", "urlretrieve")
_DELETE_CALLS = ("remove", "unlink", "rmdir", "removedirs", "rmtree")
_KILL_CALLS = ("kill", "killpg", "terminate")
_SQL_CALLS = ("execute", "executescript", "query", "sql")
#: every last part of a call's name that one of the per-call checks in :func:`analyze` can act on (each
#: check there asks for one of these before anything else); a call named otherwise is only asked whether
#: its name mentions a webhook
_CALL_LASTS = frozenset({
    *(f.rpartition(".")[2] for f in _ENV_GETTERS), "setdefault", *_ENV_ARG_SINKS, "items", "keys", "values",
    *EXEC_FUNCS, *FETCH_FUNCS, "_create_unverified_context", "connect", "create_connection", "sendall", "sendto",
    "dup2", "spawn", "open", *_WRITE_CALLS, *_DELETE_CALLS, *_KILL_CALLS, *_SQL_CALLS, "eval", "exec", "compile",
    "loads", "print", "info", "write"})


def _env_reads(sorted_: _NodesByKind) -> dict[int, str]:
    """Each node of the module that reads a named environment variable, by ``id``: ``_env_name`` of every
    subscript and call (the only nodes it names anything for), asked once per module."""
    out: dict[int, str] = {}
    for node in sorted_.subscripts:
        if _is_environ(node.value):
            key = _const_str(node.slice)
            if key:
                out[id(node)] = key
    fn_of = sorted_.fn_of
    for call in sorted_.calls:
        if call.args and fn_of[id(call)] in _ENV_GETTERS:
            key = _const_str(call.args[0])
            if key:
                out[id(call)] = key
    return out


def _env_vars_of(assigns: list[ast.Assign], reads: dict[int, str]) -> dict[str, set[str]]:
    """The variables holding environment reads (``X = os.environ["K"]``; ``Y = X``): two rounds over the
    module's ``name = value`` assignments, in order, each value's reads and names listed once.

    A module that reads no variable has none; a second round after a first that found none finds none.
    """
    env_vars: dict[str, set[str]] = {}
    if not reads:
        return env_vars
    targets = {a.targets[0].id for a in assigns}  # type: ignore[attr-defined]
    steps: list[tuple[str, list[tuple[bool, str]]]] = []  # per assignment: its reads and target names, as walked
    for a in assigns:
        seen: list[tuple[bool, str]] = []
        for sub in walk(a.value):
            if type(sub) is ast.Name:
                if sub.id in targets:
                    seen.append((False, sub.id))
            else:
                name = reads.get(id(sub))
                if name is not None:
                    seen.append((True, name))
        if seen:
            steps.append((a.targets[0].id, seen))  # type: ignore[attr-defined]
    for _ in range(2):  # propagate through one level of intermediate variables
        for target, seen in steps:
            names: set[str] = set()
            for is_read, name in seen:
                if is_read:
                    names.add(name)
                elif name in env_vars:
                    names |= env_vars[name]
            if names:
                env_vars[target] = names
        if not env_vars:
            break
    return env_vars


def _fetch_names(assigns: list[ast.Assign], sorted_: _NodesByKind) -> set[str]:
    """Variables assigned from an expression that makes a network request (``r = requests.get(...)``)."""
    out: set[str] = set()
    fn_of, head_of, last_of = sorted_.fn_of, sorted_.head_of, sorted_.last_of
    for node in assigns:
        for sub in walk(node.value):
            if not isinstance(sub, ast.Call):
                continue
            key = id(sub)
            if last_of[key] in FETCH_FUNCS:
                low = fn_of[key].lower()
                if head_of[key] in NET_MODULES or "session" in low or "client" in low:
                    out |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return out


def analyze(c: Collector, file: str, source: str, *, lines_offset: int = 0) -> bool:
    """Classify Python source; returns False when it does not parse.

    The cyclic garbage collector is paused meanwhile (and left as it was found). A module's syntax
    tree is hundreds of thousands of fresh objects with no cycle among them (freed by reference
    counting when this returns); while it is built and read, each collection the allocations trigger
    traverses the tree again, and everything else the process holds: in a run holding the wild
    sample, about a third of this function's CPU (0.70x paused, the band's Python modules).
    """
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        return _analyze(c, file, source, lines_offset)
    finally:
        if paused:
            gc.enable()


def _analyze(c: Collector, file: str, source: str, lines_offset: int) -> bool:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return False
    src_lines = source.split("\n")

    def ln(node: ast.AST) -> int:
        return getattr(node, "lineno", 1) + lines_offset

    def snip(node: ast.AST) -> str:
        i = getattr(node, "lineno", 1) - 1
        return snippet(src_lines[i]) if 0 <= i < len(src_lines) else ""

    nodes, sorted_ = _walk_sorted(tree)
    node: Any  # (the per-node loop below tells the kinds apart by exact class, which mypy does not follow)
    imports: set[str] = set()
    for node in sorted_.imports:
        if isinstance(node, ast.Import):
            imports |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imports.add(node.module.split(".")[0])
    has_net = bool(imports & NET_MODULES)
    has_socket = "socket" in imports
    if imports & NET_MODULES:
        c.tag("network:*" if not has_socket or len(imports & NET_MODULES) > 1 else "network:*", file, lines_offset + 1)
    if "smtplib" in imports:
        c.flags.add("network_send")
        c.fact("network_send", file, lines_offset + 1, "py-smtp")
    filtered_env: set[int] = set()  # os.environ.items() iterated with a filter: not a dump
    for node in sorted_.loops:
        if isinstance(node, (ast.ListComp, ast.DictComp, ast.SetComp, ast.GeneratorExp)):
            for gen in node.generators:
                if gen.ifs:
                    filtered_env.add(id(gen.iter))
        elif isinstance(node, ast.For) and any(isinstance(b, ast.If) for b in node.body[:1]):
            filtered_env.add(id(node.iter))
    dup2 = pty = False
    str_vars: dict[str, str] = {}
    assigns = [n for n in sorted_.assigns if len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)]
    environ_assigns = EnvironAssigns(assigns)
    env_read = _env_reads(sorted_)
    env_vars = _env_vars_of(assigns, env_read)
    for node in assigns:  # (a value's string does not depend on other variables: one round gives them all)
        const = _const_str(node.value)
        if const and "://" in const and URL_RE.match(const.strip()):
            str_vars[node.targets[0].id] = const.strip()  # type: ignore[attr-defined]
    fetch_names: set[str] | None = None  # asked only for dynamic code, rare: found when first asked
    fetched_text: set[str] | None = None  # (asked only for a process run)
    # other names given to the builtins that run code, and what each variable was last given (for what a dynamic
    # code call runs: ``payload = b64decode(…)`` then ``exec(payload)``)
    runners = {a.targets[0].id for a in assigns if isinstance(a.value, ast.Name)  # type: ignore[attr-defined]
               and a.value.id in ("exec", "eval")}
    given: dict[str, ast.AST] | None = None
    call_lasts = _CALL_LASTS
    fn_of, head_of, last_of = sorted_.fn_of, sorted_.head_of, sorted_.last_of
    Constant, Subscript = ast.Constant, ast.Subscript
    for node in sorted_.main:
        t = type(node)
        if t is Constant:
            value = node.value  # type: ignore[attr-defined]
            if isinstance(value, str) and _may_be_url_or_path(value):
                _string_constant(c, file, ln(node), value, has_net)
            continue
        if t is Subscript:
            key = env_read.get(id(node))
            if key:
                c.tag(f"read:env:{key}", file, ln(node))
            continue
        k = id(node)
        fn, last = fn_of[k], last_of[k]
        if fn in runners:
            fn = last = "exec"  # ``run = exec`` then ``run(…)``
        if last in call_lasts:
            head = head_of[k]
            # environment
            if node.args and (fn in _ENV_GETTERS or fn == "os.environ.setdefault"):
                key = _const_str(node.args[0])
                if key:
                    c.tag(f"read:env:{key}", file, ln(node))
            if last in _ENV_ARG_SINKS and any(_is_environ(a) for a in node.args):
                c.hit("NV-CRED-004", file, ln(node), snip(node))
                c.fact("env_dump", file, ln(node), "py-env-arg")
            if fn in ("os.environ.items", "environ.items", "os.environ.keys", "os.environ.values") \
                    and id(node) not in filtered_env:
                c.hit("NV-CRED-004", file, ln(node), snip(node))
                c.fact("env_dump", file, ln(node), "py-env-items")
            # a process whose standard streams are a socket is a remote shell
            if has_socket and last in EXEC_FUNCS and any(
                    kw.arg in ("stdin", "stdout", "stderr") and isinstance(kw.value, ast.Call)
                    and _dotted(kw.value.func).endswith("fileno") for kw in node.keywords):
                dup2 = True
            # process execution
            if last in EXEC_FUNCS and (head in EXEC_MODULES or fn in ("system", "popen", "Popen", "run")):
                if head == "asyncio" or head in ("os", "subprocess", "commands", "sh", "pexpect") or last in ("Popen", "system"):
                    if fetched_text is None:
                        fetched_text = _fetched_text_names(assigns, sorted_)
                    _exec_call(c, file, ln(node), node, fetched_text)
            # network
            if last in FETCH_FUNCS and (head in NET_MODULES or "session" in fn.lower() or "client" in fn.lower()
                                        or (has_net and head in ("self", "s", "sess", "http", "api", "r"))):
                url = _const_str(node.args[0]) if node.args else None
                if url is None and node.args and isinstance(node.args[0], ast.Name):
                    url = str_vars.get(node.args[0].id)
                if url is None:
                    for kw in node.keywords:
                        if kw.arg == "url":
                            url = _const_str(kw.value) or (str_vars.get(kw.value.id) if isinstance(kw.value, ast.Name) else None)
                host = normalize_host(url) if url and URL_RE.search(url) else "*"
                if host.startswith("${x}") or "$" in host:
                    host = "*"
                c.tag(f"network:{host}", file, ln(node))
                method = last.lower()
                if node.args and not isinstance(node.args[0], ast.Constant) and _carries_environment(node.args[0], environ_assigns):
                    c.flags.add("network_send")
                    c.fact("network_send", file, ln(node), "py-query")
                if last == "request" and node.args:
                    method = (_const_str(node.args[0]) or "").lower()
                if method in SEND_METHODS or any(kw.arg in ("data", "json", "files") for kw in node.keywords) and method != "get" \
                        or (last == "Request" and (len(node.args) > 1 or any(kw.arg == "data" for kw in node.keywords))):
                    c.flags.add("network_send")
                    c.fact("network_send", file, ln(node), "py")
                    c.tag(f"write:remote:{host}", file, ln(node))
                for env_name in _secret_refs(node, env_vars):
                    if url and URL_RE.search(url):
                        c.fact("secret_flow", file, ln(node), f"{env_name}|{url}")
                if any(kw.arg == "files" for kw in node.keywords):
                    c.hit("NV-EXFIL-002", file, ln(node), snip(node))
                if method == "delete":
                    c.tag(f"delete:remote:{host}", file, ln(node))
                for kw in node.keywords:
                    if kw.arg == "verify" and isinstance(kw.value, ast.Constant) and kw.value.value is False:
                        c.hit("NV-NET-001", file, ln(node), snip(node))
            if fn in ("ssl._create_unverified_context", "ssl.create_default_context") and fn.endswith("unverified_context"):
                c.hit("NV-NET-001", file, ln(node), snip(node))
            if last in ("connect", "create_connection") and has_socket:
                c.tag("network:*", file, ln(node))
            if last == "sendall" or last == "sendto":
                c.flags.add("network_send")
                c.fact("network_send", file, ln(node), "py")
            if fn in ("os.dup2", "dup2"):
                dup2 = True
            if fn in ("pty.spawn",):
                pty = True
            # files
            if last == "open" and head in _OPEN_HEADS or fn == "open":
                target = (_const_str(node.args[0]) or _path_expr(node.args[0], {})) if node.args else None
                mode = _const_str(node.args[1]) if len(node.args) > 1 else None
                for kw in node.keywords:
                    if kw.arg == "mode":
                        mode = _const_str(kw.value)
                if mode and any(ch in mode for ch in "wax+"):
                    c.tag(f"write:{target or '?'}", file, ln(node))
                    _agent_state_write(c, file, ln(node), target, snip(node))
                elif target and is_credential_path(target):
                    c.tag(f"read:file:{target}", file, ln(node))
            if last in _WRITE_CALLS:
                if last not in ("dump", "save") or head not in ("json", "pickle", "yaml") or node.args:
                    arg = node.args[-1] if last in ("copy", "copy2", "copyfile", "copytree", "move") and node.args else (
                        node.args[0] if node.args else None)
                    target = _const_str(arg) if arg is not None else None
                    c.tag(f"write:{target or '?'}", file, ln(node))
                    _agent_state_write(c, file, ln(node), target or _dotted(node.func), snip(node))
                if last == "urlretrieve":
                    c.fact("download_to_file", file, ln(node))
            if last in _DELETE_CALLS and (
                    head in ("os", "shutil", "pathlib", "Path") or last in ("unlink", "rmtree", "rmdir") or "path" in fn.lower()):
                target = _const_str(node.args[0]) if node.args else None
                c.tag(f"delete:{target or '?'}", file, ln(node))
                if last == "rmtree":
                    source = ast.unparse(node.args[0]) if node.args else ""
                    if not rx.search(r"(?i)tmp|temp|cache|build|dist|__pycache__|out", source):
                        c.hit("NV-DESTR-002", file, ln(node), snip(node), command="shutil.rmtree")
            if last in _KILL_CALLS and head in ("os", "proc", "process", "p", "self"):
                c.tag("delete:process", file, ln(node))
            if last in _SQL_CALLS and node.args:
                sql = _const_str(node.args[0]) or ""
                if rx.search(r"(?i)\b(?:drop\s+table|delete\s+from|truncate)\b", sql):
                    c.tag("delete:db:?", file, ln(node))
                elif rx.search(r"(?i)\b(?:insert|update|create\s+table|replace\s+into)\b", sql):
                    c.tag("write:db:?", file, ln(node))
            # dynamic code
            if fn in ("eval", "exec", "compile") and node.args and not isinstance(node.args[0], ast.Constant):
                inner = ast.unparse(node.args[0])
                decoded = inner  # what the code is made from: the argument, or the variable's value
                if isinstance(node.args[0], ast.Name):
                    if given is None:
                        given = {a.targets[0].id: a.value for a in assigns}  # type: ignore[attr-defined]
                    value = given.get(node.args[0].id)
                    decoded = ast.unparse(value) if value is not None else inner
                if rx.search(r"(?i)b64decode|base64|decode\(|codecs|zlib|marshal|bytes\.fromhex|rot13|fromhex|\bchr\(",
                             decoded):
                    c.hit("NV-EXEC-002", file, ln(node), snip(node))
                    c.fact("encoded_exec", file, ln(node))
                else:
                    if fetch_names is None:
                        fetch_names = _fetch_names(assigns, sorted_)
                    if rx.search(r"(?i)urlopen|requests|\.text|\.content|\.read\(\)|\.json\(\)|recv", inner) or (
                            any(rx.search(rf"\b{re.escape(n)}\b", inner) for n in fetch_names)):
                        c.hit("NV-EXEC-004", file, ln(node), snip(node))
                    else:
                        c.tag("shell:*", file, ln(node))
                        c.flags.add("incomplete")
            if fn in ("marshal.loads", "pickle.loads") and node.args:
                inner = ast.unparse(node.args[0])
                if rx.search(r"(?i)urlopen|requests|\.content|\.read\(\)|recv|b64decode", inner):
                    c.hit("NV-EXEC-004", file, ln(node), snip(node))
            if fn in ("print", "logging.info", "logger.info", "sys.stdout.write") and node.args \
                    and _may_spell(node.args[0], "environ"):
                text = ast.unparse(node.args[0])
                if rx.search(r"(?i)environ(?:\.get)?\s*[\[(]\s*['\"][A-Z_]*(?:KEY|TOKEN|SECRET|PASSW)", text):
                    c.hit("NV-CRED-003", file, ln(node), snip(node))
        if "webhook" in fn.lower():
            c.fact("webhook_post", file, ln(node))
    _secret_bundles(c, file, nodes, env_vars, ln, snip, sorted_, reads=env_read)
    _dropper(c, file, sorted_, lines_offset)
    path_vars = _path_vars(assigns)
    _path_reads(c, file, sorted_, path_vars, ln, snip)
    if _PERSIST_WORDS.search(source):
        _startup_writes(c, file, nodes, path_vars, ln)
    _staged_download(c, file, sorted_, ln, snip)
    if _KEY_HOOK.search(source):
        _keystrokes_sent(c, file, tree, sorted_.calls, ln, snip)
    if has_socket and (dup2 or pty) and any(k for k in c.tags if k.startswith("shell:")) or (dup2 and pty):
        c.hit("NV-EXEC-005", file, lines_offset + 1, "socket connected to a spawned shell")
    return True


def _carries_environment(node: ast.AST, assigns: list[ast.Assign] | EnvironAssigns) -> bool:
    """The expression (a URL being built) holds the process environment, directly or through a variable."""
    text = ast.unparse(node)
    if rx.search(r"\benviron\b", text):
        return True
    names = {n.id for n in walk(node) if isinstance(n, ast.Name)}
    if not isinstance(assigns, list):
        return any(assigns.holds_environ(n) for n in names)
    return any(isinstance(a.targets[0], ast.Name) and a.targets[0].id in names
               and rx.search(r"\benviron\b", ast.unparse(a.value)) for a in assigns)


class EnvironAssigns:
    """Which variables a module assigns an expression naming ``environ`` to, asked per name.

    Asking every assignment of the module for every request (as a list) is quadratic in a module of many
    requests and assignments; this indexes the assignments by target once and remembers each answer.
    """

    def __init__(self, assigns: list[ast.Assign]) -> None:
        self._by_name: dict[str, list[ast.Assign]] = {}
        for a in assigns:
            target = a.targets[0]
            if isinstance(target, ast.Name):
                self._by_name.setdefault(target.id, []).append(a)
        self._known: dict[str, bool] = {}

    def holds_environ(self, name: str) -> bool:
        known = self._known.get(name)
        if known is None:
            known = self._known[name] = any(rx.search(r"\benviron\b", ast.unparse(a.value)) is not None
                                            for a in self._by_name.get(name, ()))
        return known


AGENT_MEMORY_FILE = rx.compile(r"(?i)(?:^|/)(?:SOUL|MEMORY|AGENTS|IDENTITY|USER)\.md$")


def _path_expr(node: ast.AST, path_vars: dict[str, str]) -> str | None:
    """A filesystem path built statically (``Path.home() / '.ssh' / 'id_rsa'``, ``os.path.join(...)``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return path_vars.get(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        left, right = _path_expr(node.left, path_vars), _path_expr(node.right, path_vars)
        return f"{left.rstrip('/')}/{right.lstrip('/')}" if left is not None and right is not None else None
    if isinstance(node, ast.JoinedStr):
        parts = [_path_expr(v.value, path_vars) if isinstance(v, ast.FormattedValue) else _path_expr(v, path_vars)
                 for v in node.values]
        return "".join(parts) if all(p is not None for p in parts) else None  # type: ignore[arg-type]
    if isinstance(node, ast.Call):
        fn = _dotted(node.func)
        last = fn.split(".")[-1]
        if last == "home" or (last == "expanduser" and node.args and _const_str(node.args[0]) == "~"):
            return "~"
        if last in ("Path", "PurePath", "PosixPath", "join", "expanduser") and node.args:
            parts = [_path_expr(a, path_vars) for a in node.args]
            if all(p is not None for p in parts):
                return "/".join(p.rstrip("/") for p in parts if p is not None)
        if last in ("resolve", "absolute", "expanduser") and isinstance(node.func, ast.Attribute):
            return _path_expr(node.func.value, path_vars)
    return None


def _path_vars(assigns: list[ast.Assign]) -> dict[str, str]:
    """Variables holding a path built statically (two rounds: a path built from another path variable)."""
    path_vars: dict[str, str] = {}
    for _ in range(2):
        for a in assigns:
            value = _path_expr(a.value, path_vars)
            if value and ("/" in value or value.startswith(("~", "."))):
                path_vars[a.targets[0].id] = value  # type: ignore[attr-defined]
        if not path_vars:  # the second round would ask the same questions of the same (empty) variables
            break
    return path_vars


def _path_reads(c: Collector, file: str, sorted_: _NodesByKind, path_vars: dict[str, str], ln: Any, snip: Any) -> None:
    """Reads of credential files and the agent's memory through paths built from pieces."""
    last_of = sorted_.last_of
    for node in sorted_.calls:
        if not isinstance(node.func, (ast.Attribute, ast.Name)):
            continue
        last = last_of[id(node)]
        if last in ("read_text", "read_bytes", "open") and isinstance(node.func, ast.Attribute) and last != "open":
            path = _path_expr(node.func.value, path_vars)
        elif last == "open" and node.args:
            mode = _const_str(node.args[1]) if len(node.args) > 1 else "r"
            path = _path_expr(node.args[0], path_vars) if not (mode and any(ch in mode for ch in "wax+")) else None
        else:
            continue
        if not path or isinstance(node.args[0] if node.args else None, ast.Constant):
            continue
        if is_credential_path(path):
            c.tag(f"read:file:{path}", file, ln(node))
            if not rx.search(r"(?:^|/)\.env(?:\.|$)", path):
                c.hit("NV-CRED-001", file, ln(node), snip(node), path=path)
                c.fact("harvest_read", file, ln(node), "py-path:" + shell.credential_category(path))
        elif AGENT_MEMORY_FILE.search(path) and path.startswith(("~", "/")):
            c.fact("harvest_read", file, ln(node), "py-path:agent-memory")


#: the words of a file the shell or the login runs, or of the agent's own state, one of which a module writing such a
#: file spells (``shell.PERSIST_PATH`` and ``shell.AGENT_STATE`` decide on the path once it is built)
_PERSIST_WORDS = rx.compile(r"authorized_keys|bashrc|zshrc|profile|zshenv|zlogin|bash_login|fish|Launch(?:Agents|Daemons)"
                            r"|systemd|autostart|cron|hooks|init\.d|sudoers|rc\.local|CurrentVersion"
                            r"|(?:SOUL|MEMORY|AGENTS|IDENTITY|USER|HEARTBEAT|TOOLS|CLAUDE)\.md|openclaw|clawdbot"
                            r"|clawhub|clawdhub|\.claude|\.codex|\.cursor|skill-evolver")


def _startup_writes(c: Collector, file: str, nodes: list[ast.AST], path_vars: dict[str, str], ln: Any) -> None:
    """Text a module writes into a file the shell runs at start (``~/.bashrc``, a crontab, a launch agent), into
    ``authorized_keys`` or into the agent's own memory or settings, read as the shell reads the same write:
    ``echo '<line>' >> <file>`` for each line of each string written there (``with open(rc, 'a') as f: f.write(…)``,
    ``Path(rc).write_text(…)``)."""
    def persist_target(node: ast.AST | None) -> str | None:
        path = _path_expr(node, path_vars) if node is not None else None
        return path if path and (shell.PERSIST_PATH.search(path) or shell.AGENT_STATE.search(path)) else None

    def writes_to(call: ast.Call) -> str | None:
        """The startup or agent file an ``open(…)`` call opens for writing."""
        if _dotted(call.func).rpartition(".")[2] != "open" or not call.args:
            return None
        mode = _const_str(call.args[1]) if len(call.args) > 1 else next(
            (_const_str(k.value) for k in call.keywords if k.arg == "mode"), "r")
        return persist_target(call.args[0]) if mode and any(ch in mode for ch in "wa") else None

    written: list[tuple[str, ast.Call]] = []  # (target, the call that writes)
    handles: dict[str, str] = {}  # ``with open(rc, 'a') as f``: f -> rc
    for node in nodes:
        if isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if isinstance(item.context_expr, ast.Call) and isinstance(item.optional_vars, ast.Name):
                    target = writes_to(item.context_expr)
                    if target:
                        handles[item.optional_vars.id] = target
    for node in nodes:
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute) or not node.args:
            continue
        owner, attr = node.func.value, node.func.attr
        if attr in ("write", "writelines"):
            target = handles.get(owner.id) if isinstance(owner, ast.Name) else (
                writes_to(owner) if isinstance(owner, ast.Call) else None)
        elif attr == "write_text":
            target = persist_target(owner)
        else:
            continue
        if target:
            written.append((target, node))
    for target, call in written:
        arg = call.args[0]
        texts = [_const_str(e) for e in arg.elts] if isinstance(arg, (ast.List, ast.Tuple)) else [_const_str(arg)]
        for text in texts:
            shell.echoed(c, file, ln(call), text or "", f">> {target}")


def _staged_download(c: Collector, file: str, sorted_: _NodesByKind, ln: Any, snip: Any) -> None:
    """NV-EXEC-003 in Python: a file fetched from the network is then run as a process."""
    names: set[str] = set()
    paths: set[str] = set()
    head_of, last_of = sorted_.head_of, sorted_.last_of
    for a in sorted_.assigns:  # (the names and paths are sets: the order of the two kinds does not matter)
        if isinstance(a.value, ast.Call) and last_of[id(a.value)] == "urlretrieve":
            for t in a.targets:
                first = t.elts[0] if isinstance(t, ast.Tuple) and t.elts else t
                if isinstance(first, ast.Name):
                    names.add(first.id)
    for node in sorted_.calls:
        if last_of[id(node)] == "urlretrieve" and len(node.args) > 1:
            target = node.args[1]
            if isinstance(target, ast.Name):
                names.add(target.id)
            elif _const_str(target):
                paths.add(str(_const_str(target)))
    if not names and not paths:
        return
    for node in sorted_.calls:
        last, head = last_of[id(node)], head_of[id(node)]
        if not ((last in EXEC_FUNCS and (head in EXEC_MODULES or last in ("Popen", "system")))
                or last in ("startfile", "execv", "execl", "execvp", "spawnl", "run_path", "spec_from_file_location",
                            "SourceFileLoader", "load_source")):  # (a module loaded from the file runs it too)
            continue
        inner = [n for a in node.args for n in walk(a)]
        if any(isinstance(n, ast.Name) and n.id in names for n in inner) or any(
                isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in paths for n in inner):
            c.hit("NV-EXEC-003", file, ln(node), snip(node), shape="downloaded file executed")
            c.fact("download_exec", file, ln(node))
            return


def _agent_state_write(c: Collector, file: str, line: int, target: str | None, snip: str) -> None:
    if not target:
        return
    m = shell.AGENT_STATE.search(target)
    if m:
        c.hit("NV-PERSIST-002", file, line, snip, target=m.group(1))
        c.flags.add("persistence")
    if shell.PERSIST_PATH.search(target):
        c.hit("NV-PERSIST-001", file, line, snip)


#: an expression that reads a response's body (``requests.get(u).text``, ``urlopen(u).read()``)
_FETCHED_TEXT = rx.compile(r"(?:\burlopen|\brequests\.\w+|\bhttpx\.\w+|\burllib3?\.\w+)\([^\n]*\)\s*\.(?:text|content|read\(\)|json\(\))")


def _template(node: ast.AST) -> str | None:
    """A command written as a template, its fields unknown: ``'… %s …' % x`` and ``'… {} …'.format(x)``."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        text = _const_str(node.left)
        return rx.sub(r"%(?:\([^)]*\))?[-#0 +]*\d*(?:\.\d+)?[sdrifx]", "${X}", text) if text else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        text = _const_str(node.func.value)
        return rx.sub(r"\{[^{}]*\}", "${X}", text) if text else None
    return None


def _fetched_text_names(assigns: list[ast.Assign], sorted_: _NodesByKind) -> set[str]:
    """Variables holding what a request brought back: assigned a response's body (``code = requests.get(u).text``),
    or the body of a variable holding a response (``r = requests.get(u)`` then ``code = r.text``)."""
    responses = _fetch_names(assigns, sorted_)
    out: set[str] = set()
    for node in assigns:
        value = node.value
        while True:  # down the chain of a body read: ``r.read().decode().strip()``, ``requests.get(u).text``
            if isinstance(value, ast.Call):
                value = value.func
            elif isinstance(value, ast.Attribute) and value.attr not in _BODY_READS:
                value = value.value
            else:
                break
        read = isinstance(value, ast.Attribute) and (
            isinstance(value.value, ast.Name) and value.value.id in responses
            or _FETCHED_TEXT.search(ast.unparse(node.value)) is not None)
        if read:
            out.add(node.targets[0].id)  # type: ignore[attr-defined]
    return out


#: what reads a response's body
_BODY_READS = frozenset({"text", "content", "read", "json", "data"})
#: the options that hand a shell or an interpreter its program as the next argument
_PROGRAM_OPTIONS = frozenset({"-c", "-e", "/c", "-Command", "--eval"})


def _runs_fetched(first: ast.AST, fetched: set[str]) -> bool:
    """The program a shell or an interpreter is given is a variable holding fetched text: the command string
    itself, or the argument after ``-c`` in an argument list (``['bash', '-c', code]``)."""
    def held(e: ast.AST) -> bool:
        return isinstance(e, ast.Name) and e.id in fetched
    if isinstance(first, (ast.List, ast.Tuple)):
        elts = first.elts
        return any(held(e) and _const_str(elts[i - 1]) in _PROGRAM_OPTIONS for i, e in enumerate(elts) if i)
    return held(first)


def _exec_call(c: Collector, file: str, line: int, node: ast.Call, fetched: set[str]) -> None:
    """A process run: its command read as the shell would read it. ``fetched``: :func:`_fetched_text_names`."""
    if not node.args:
        c.tag("shell:*", file, line)
        return
    first = node.args[0]
    # a command whose text is what a request brought back: code from the network run by a shell
    dynamic = [e for e in (first.elts if isinstance(first, (ast.List, ast.Tuple)) else [first])
               if not isinstance(e, ast.Constant)]
    if any(_FETCHED_TEXT.search(ast.unparse(e)) for e in dynamic) or fetched and _runs_fetched(first, fetched):
        c.hit("NV-EXEC-004", file, line, "command text fetched from the network")
    fed = next((_const_str(k.value) for k in node.keywords if k.arg == "input"), None)
    cmd: str | None = None
    if isinstance(first, (ast.List, ast.Tuple)):
        parts = [_const_str(e) for e in first.elts]
        if parts and parts[0] is None and _dotted(first.elts[0]) == "sys.executable":
            parts[0] = "python3"  # the interpreter running the skill's own code
        if parts and parts[0]:
            cmd = " ".join(shell.quote(p) if p is not None else "${X}" for p in parts)
        else:
            c.tag("shell:*", file, line)
            return
    else:
        cmd = _const_str(first) or _template(first)
    if cmd is None:
        shell_true = any(kw.arg == "shell" and isinstance(kw.value, ast.Constant) and kw.value.value for kw in node.keywords)
        c.tag("shell:*", file, line)
        if shell_true or _dotted(node.func) in ("os.system", "os.popen", "subprocess.getoutput"):
            c.tag("delete:?", file, line)
            c.flags.add("incomplete")
        return
    cmd = cmd.replace("${X}", "$X")
    shell.analyze_line(c, file, line, cmd)
    shell.echoed(c, file, line, fed or "", f"| {cmd}")  # what the process reads on its standard input


def _may_be_url_or_path(value: str) -> bool:
    """False for a string :func:`_string_constant` has nothing to say about: a URL has a "/", a file path
    a "/" or a leading "." (most of a module's strings are neither, and are not asked further)."""
    return "/" in value or value.lstrip()[:1] == "."


def _string_constant(c: Collector, file: str, line: int, value: str, has_net: bool) -> None:
    if len(value) > 500:
        return
    if has_net and "://" in value and URL_RE.match(value.strip()):  # (no URL without "://")
        c.tag(f"network:{normalize_host(value.strip())}", file, line)
    v = value.strip()
    if ("/" in v or v.startswith(".")) and len(v) < 200 and is_credential_path(v):
        c.tag(f"read:file:{v}", file, line)
        if not rx.search(r"(?:^|/)\.env(?:\.|$)", v):
            c.hit("NV-CRED-001", file, line, snippet(v), path=v)
            c.fact("harvest_read", file, line, "py-const:" + shell.credential_category(v))


def _env_name(node: ast.AST) -> str | None:
    """The environment variable a node reads (``os.environ["X"]``, ``os.getenv("X")``...), if any."""
    if isinstance(node, ast.Subscript) and _dotted(node.value) in ("os.environ", "environ"):
        return _const_str(node.slice)
    if isinstance(node, ast.Call) and _dotted(node.func) in ("os.getenv", "getenv", "os.environ.get", "environ.get") \
            and node.args:
        return _const_str(node.args[0])
    return None


def _env_names_in(node: ast.AST, env_vars: dict[str, set[str]]) -> set[str]:
    return _env_names_of(walk(node), env_vars)


def _env_names_of(subs: list[ast.AST], env_vars: dict[str, set[str]]) -> set[str]:
    """The environment variables read by these nodes, directly or through a variable holding them."""
    out: set[str] = set()
    for sub in subs:
        t = type(sub)
        if t is ast.Name:  # _env_name is None for any node but a subscript or a call
            if sub.id in env_vars:  # type: ignore[attr-defined]
                out |= env_vars[sub.id]  # type: ignore[attr-defined]
        elif t is ast.Subscript or t is ast.Call:
            name = _env_name(sub)
            if name:
                out.add(name)
    return out


def _secret_refs(call: ast.Call, env_vars: dict[str, set[str]]) -> set[str]:
    """Secret-named variables that reach a request outside its ``headers``/``auth`` arguments."""
    from nervous.plugin.toolkit import is_secret_env

    out: set[str] = set()
    parts: list[ast.expr] = list(call.args) + [kw.value for kw in call.keywords
                                                if kw.arg not in ("headers", "auth", "cert")]
    for part in parts:
        out |= {n for n in _env_names_in(part, env_vars) if is_secret_env(n)}
    return out


#: calls that turn a structure into bytes or text that can leave the process
SERIALISERS = {"dumps", "dump", "b64encode", "urlsafe_b64encode", "b32encode", "b85encode", "hexlify", "encode",
               "str", "repr", "print", "write", "write_text", "write_bytes", "writelines", "post", "put", "patch",
               "send", "sendall", "sendto", "sendmail", "send_message", "urlencode", "info", "debug", "warning",
               "error", "compress", "Request", "urlopen"}
DECODERS = {"b64decode", "urlsafe_b64decode", "b32decode", "b85decode", "a85decode", "fromhex", "unhexlify",
            "decompress", "decodebytes"}


def _secret_names(node: ast.AST, env_vars: dict[str, set[str]]) -> set[str]:
    from nervous.plugin.toolkit import is_secret_env

    return {n for n in _env_names_in(node, env_vars) if is_secret_env(n)}


def _secret_bundles(c: Collector, file: str, nodes: list[ast.AST], env_vars: dict[str, set[str]],
                    ln: Callable[[ast.AST], int], snip: Callable[[ast.AST], str], sorted_: _NodesByKind,
                    reads: dict[int, str] | None = None) -> None:
    """NV-CRED-005: several secrets gathered into one container that is serialised, encoded, printed or sent.

    A client constructed with its own key and secret is not this (the container goes to a constructor, not to
    a serialiser); a ``return`` of a settings dict is not either.
    """
    from nervous.plugin.toolkit import is_secret_env

    # a container holds at most the secrets the whole module reads: fewer than two there, none anywhere
    # (each container's own walk below is quadratic in the nesting of large data literals); given the
    # module's reads (``_env_reads``), they are all it reads: a variable holds only names read somewhere
    anywhere = set(reads.values()) if reads is not None else _env_names_of(nodes, env_vars)
    if sum(1 for n in anywhere if is_secret_env(n)) < 2:
        return
    containers: dict[int, set[str]] = {}
    for node in nodes:
        if isinstance(node, (ast.Dict, ast.List, ast.Tuple, ast.Set)):
            names = _secret_names(node, env_vars)
            if len(names) >= 2:
                containers[id(node)] = names
    if not containers:
        return
    bundled: dict[str, set[str]] = {}  # variable -> secrets it holds
    for node in sorted_.assigns:  # every assignment, in walk order
        if id(node.value) in containers:
            for t in node.targets:
                if isinstance(t, ast.Name):
                    bundled[t.id] = containers[id(node.value)]
    for node in sorted_.calls:
        if sorted_.last_of[id(node)] not in SERIALISERS:
            continue
        for arg in list(node.args) + [kw.value for kw in node.keywords]:
            held: set[str] = set()
            for sub in walk(arg):
                if id(sub) in containers:
                    held |= containers[id(sub)]
                elif isinstance(sub, ast.Name) and sub.id in bundled:
                    held |= bundled[sub.id]
            if len(held) >= 2:
                # one service's credentials together (``ACME_CLIENT_ID`` and ``ACME_CLIENT_SECRET`` in a token
                # request) are how a client signs in to that service: a person checks where they go. A harvest
                # gathers secrets of several services
                services = {n.split("_", 1)[0].lower() for n in held}
                one = next(iter(services)) if len(services) == 1 and all("_" in n for n in held) else None
                if one and not _addressed_to(node, nodes, one):
                    one = None  # an address written in the call that is not that service's: sent elsewhere
                h = c.hit("NV-CRED-005", file, ln(node), snip(node), secrets=sorted(held),
                          sink=_dotted(node.func).split(".")[-1])
                if one:
                    h.action = "review"
                    h.evidence["one_service"] = one
                    h.evidence["check"] = (f"sends the {one.upper()}_* credentials together; check that the "
                                           "request goes to that service's own address")
                else:
                    c.fact("harvest_send", file, ln(node), "py-secret-bundle")
                return


def _addressed_to(call: ast.Call, nodes: list[ast.AST], service: str) -> bool:
    """The secrets of ``service`` sent by ``call`` go to that service, as far as the code says: every address
    written in the call names it in its host over HTTPS (none written: it comes from the skill's settings), and
    the module writes no address on a bare IP, a paste host or plain HTTP that the call could be given."""
    inside = {id(sub) for sub in walk(call)}
    for sub in nodes:
        if not (isinstance(sub, ast.Constant) and isinstance(sub.value, str) and "://" in sub.value[:12]):
            continue
        url = sub.value.strip().lower()
        host = normalize_host(url)
        if id(sub) in inside and (not url.startswith("https://")
                                  or not any(service in label for label in host.split(".")[:-1])):
            return False
        if ip_kind(host) == "public" or host_matches(host, url, PASTE_HOSTS) or (
                url.startswith("http://") and host not in ("localhost", "127.0.0.1")):
            return False
    return True


def _dropper(c: Collector, file: str, sorted_: _NodesByKind, offset: int) -> None:
    """NV-EXEC-006: decode embedded data, write a file, run a process, then delete or chmod the file."""
    decode = write = run = cleanup = None
    head_of, last_of = sorted_.head_of, sorted_.last_of
    for node in sorted_.calls:
        last, head = last_of[id(node)], head_of[id(node)]
        if last in DECODERS and decode is None:
            decode = node
        elif last in ("write", "write_bytes", "write_text") and write is None:
            write = node
        elif last in EXEC_FUNCS and (head in EXEC_MODULES or last in ("Popen", "system")) and run is None:
            run = node
        elif (last in ("remove", "unlink", "chmod") and head in ("os", "Path", "pathlib", "path", "p", "f", "tmp")
              or last == "unlink") and cleanup is None:
            cleanup = node
    if decode is not None and write is not None and run is not None and cleanup is not None:
        line = getattr(run, "lineno", 1) + offset
        c.hit("NV-EXEC-006", file, line, "decoded data written to a file, executed and cleaned up",
              decode_line=getattr(decode, "lineno", 1) + offset, write_line=getattr(write, "lineno", 1) + offset,
              cleanup_line=getattr(cleanup, "lineno", 1) + offset)
        c.fact("download_exec", file, line)


#: a global keyboard hook (``pynput``'s listener, the ``keyboard`` module's callbacks)
_KEY_HOOK = rx.compile(r"\bListener\s*\(|\bkeyboard\.(?:on_press|on_release|hook)\s*\(")
#: the calls that send what they are given over the network, and those that keep it for later
_SENDS = rx.compile(r"(?:^|\.)(?:post|put|patch|urlopen|send|sendall|sendto|sendmail|send_message|request)$")
_KEEPS = rx.compile(r"(?:^|\.)(?:append|extend|write|writelines|put|put_nowait)$")


def _keystrokes_sent(c: Collector, file: str, tree: ast.AST, calls: list[ast.Call], ln: Any, snip: Any) -> None:
    """NV-EXFIL-002: a global keyboard hook whose handler sends the key it is given, or keeps every key in a
    program that sends (a hot-key handler compares the key; a key logger records it)."""
    functions = {n.name: n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    program_sends = any(_SENDS.search(_dotted(n.func)) for n in calls)
    for call in calls:
        name = _dotted(call.func)
        if name.endswith("keyboard.Listener") or name == "Listener":
            handlers = [k.value for k in call.keywords if k.arg in ("on_press", "on_release")]
        elif name in ("keyboard.on_press", "keyboard.on_release", "keyboard.hook"):
            handlers = list(call.args[:1])
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
                    c.hit("NV-EXFIL-002", file, ln(inner), snip(inner), action="review" if c.security_tool else "refuse",
                          sends="every key the user types (a global keyboard hook)")
                    c.flags.add("network_send")
                    c.fact("network_send", file, ln(inner), "py-keystrokes")
                    return
