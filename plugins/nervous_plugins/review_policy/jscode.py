"""JavaScript/TypeScript detector: line patterns (no parser), following sinks rather than any string."""

from __future__ import annotations

from typing import Any

from nervous.plugin.toolkit import is_credential_path, normalize_host

from . import rx, shell
from .collector import Collector
from .text import URL_RE, snippet

EXEC_CALL = rx.compile(r"\b(?:exec|execSync|spawn|spawnSync|execFile|execFileSync|execa|execaSync|\$)\s*\(\s*"
                       r"(?:(['\"])(.*?)\1|`([^`]*)`|\[\s*(['\"])([^'\"]+)\4)")
DYN_EXEC = rx.compile(r"\b(?:exec|execSync|spawn|spawnSync|execFile|execFileSync)\s*\(\s*[A-Za-z_$]")
CHILD = rx.compile(r"child_process|\bexeca\b|\bshelljs\b|Deno\.Command|Bun\.spawn|zx/globals|from ['\"]zx['\"]")
FETCH = rx.compile(r"\b(?:fetch|axios(?:\.\w+)?|got(?:\.\w+)?|ky(?:\.\w+)?|superagent|needle|request|"
                   r"https?\.(?:request|get)|new\s+WebSocket|net\.connect|net\.createConnection|"
                   r"XMLHttpRequest|undici\.\w+)\s*\(")
SEND = rx.compile(r"""(?i)method\s*:\s*['"](?:post|put|patch)['"]|\baxios\.(?:post|put|patch)\b|\.(?:post|put|patch)\s*\(\s*[`'"]https?:|"""
                  r"""\bsendBeacon\s*\(|\.write\s*\(\s*JSON\.stringify|\bgot\.(?:post|put)\b""")
DELETE_REQ = rx.compile(r"""(?i)method\s*:\s*['"]delete['"]|\baxios\.delete\b|\.delete\s*\(\s*[`'"]https?:""")
FS_WRITE = rx.compile(r"\b(?:fs|fsp|fs\.promises|fse|Deno|Bun)\.(?:writeFile|writeFileSync|appendFile|appendFileSync|"
                      r"createWriteStream|mkdir|mkdirSync|copyFile|copyFileSync|rename|renameSync|cp|cpSync|"
                      r"outputFile|writeJson|ensureDir|writeTextFile|write)\s*\(\s*(?:(['\"`])([^'\"`]*)\1)?")
FS_DELETE = rx.compile(r"\b(?:fs|fsp|fs\.promises|fse|Deno)\.(?:rm|rmSync|unlink|unlinkSync|rmdir|rmdirSync|remove|"
                       r"removeSync|emptyDir|truncate|truncateSync)\s*\(\s*(?:(['\"`])([^'\"`]*)\1)?|\brimraf\s*\(")
ENV_READ = rx.compile(r"process\.env(?:\.([A-Za-z_][\w]*)|\[\s*['\"]([^'\"]+)['\"]\s*\])|Deno\.env\.get\(\s*['\"]([^'\"]+)|"
                      r"Bun\.env\.([A-Za-z_]\w*)|import\.meta\.env\.([A-Za-z_]\w*)")
ENV_DUMP = rx.compile(r"(?:JSON\.stringify|Object\.(?:entries|keys|values|assign\(\s*\{\s*\}\s*,))\s*\(\s*process\.env\s*\)"
                      r"|console\.(?:log|dir)\s*\(\s*process\.env\s*\)|Deno\.env\.toObject\(\)|body\s*:\s*process\.env\b")
EVAL = rx.compile(r"\beval\s*\(|\bnew\s+Function\s*\(|\bvm\.run\w*\s*\(|\bFunction\s*\(\s*[a-z]"
                  r"|\.then\s*\(\s*(?:eval|Function|vm\.runInThisContext)\s*\)")
TLS_OFF = rx.compile(r"rejectUnauthorized\s*:\s*false|NODE_TLS_REJECT_UNAUTHORIZED|strictSSL\s*:\s*false")
STRING = rx.compile(r"""(['"`])((?:(?!\1).){2,300}?)\1""")

# FS_WRITE and FS_DELETE name a quote they opened (a back-reference): they run on ``re``, which no
# whole-file screen can vouch for (``rx.line_screenable``), so each was tried on every line of every
# file. Every match of either holds one of these literal stretches (their names, without the word
# boundary and the space before the parenthesis), which a file without them has on none of its lines.
_FS_WRITE_NAMES = rx.compile(r"(?:fs|fsp|fs\.promises|fse|Deno|Bun)\.(?:writeFile|writeFileSync|appendFile|"
                             r"appendFileSync|createWriteStream|mkdir|mkdirSync|copyFile|copyFileSync|rename|"
                             r"renameSync|cp|cpSync|outputFile|writeJson|ensureDir|writeTextFile|write)")
_FS_DELETE_NAMES = rx.compile(r"(?:fs|fsp|fs\.promises|fse|Deno)\.(?:rm|rmSync|unlink|unlinkSync|rmdir|rmdirSync|"
                              r"remove|removeSync|emptyDir|truncate|truncateSync)|rimraf")


WRITE_TARGET = rx.compile(r"""\b(?:createWriteStream|writeFile|writeFileSync|appendFileSync|copyFileSync|renameSync|"""
                          r"""download\w*)\s*\(\s*[`'"]([^`'"]{2,200})[`'"]""")
RUN_CALL = rx.compile(r"\b(?:exec|execSync|spawn|spawnSync|execFile|execFileSync|fork|execa|execaSync)\s*\(\s*[`'\"[]")


_BODY = rx.compile(r"\bbody\s*:")
_PAYLOAD = rx.compile(r"\b(?:body|data|params|JSON\.stringify|searchParams|query)\b")
_KILL = rx.compile(r"\bprocess\.kill\s*\(|\.kill\s*\(\s*['\"]SIG")
_LOG_SECRET = rx.compile(r"console\.(?:log|error)\s*\([^)]*process\.env\.[A-Z_]*(?:KEY|TOKEN|SECRET|PASSW)")
_SHELL_PIPE = rx.compile(r"\b(?:reverse|bind)[_ ]?shell\b|\.pipe\(\s*\w+\.stdin\s*\)")
_READ_HINT = rx.compile(r"readFile|homedir|join|resolve|open")
#: the expressions :func:`analyze` searches on each line, tried in one RE2 set pass first
_LINE_RULES = rx.Prefilter([EXEC_CALL, DYN_EXEC, URL_RE, SEND, _BODY, _PAYLOAD, DELETE_REQ, FS_WRITE, FS_DELETE,
                            ENV_READ, ENV_DUMP, EVAL, TLS_OFF, _KILL, _LOG_SECRET, _READ_HINT, _SHELL_PIPE])

#: EXEC_CALL's name and parenthesis (its ``\s`` on ``re`` is Unicode space: never printable ASCII)
_EXEC_CALL_NAMES = (r"(?:exec|execSync|spawn|spawnSync|execFile|execFileSync|execa|execaSync|\$)"
                    r"[^\x21-\x7e]*\(")
#: every expression the line loop of :func:`analyze` acts on, in one: a line it finds nothing in has nothing
#: for that loop (each of its steps needs one of them to match the line), so one search replaces a dozen
#: there (the expressions on ``re`` by the literal stretches all their matches hold, above)
_ANY_LINE = rx.compile("|".join(f"(?:{p})" for p in (
    _EXEC_CALL_NAMES, DYN_EXEC.pattern, URL_RE.pattern, SEND.pattern, _BODY.pattern, _PAYLOAD.pattern,
    DELETE_REQ.pattern, _FS_WRITE_NAMES.pattern, _FS_DELETE_NAMES.pattern, ENV_READ.pattern, ENV_DUMP.pattern,
    EVAL.pattern, TLS_OFF.pattern, _KILL.pattern, _LOG_SECRET.pattern, _READ_HINT.pattern, _SHELL_PIPE.pattern)))


#: a variable given what a request brought back (``const t = await r.text()``, ``let code = (await res.json())…``)
_FETCHED_VAR = rx.compile(r"\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*[^;\n]*?\.(?:text|json|arrayBuffer)\s*\(\s*\)")
#: a variable run as code or as a command: ``eval(t)``, ``new Function(t)``, ``exec(cmd)`` (not ``/re/.exec(s)``)
_RUNS_VAR = rx.compile(r"(?:^|[^\w.$])(?:eval|Function|exec|execSync)\s*\(\s*([A-Za-z_$][\w$]*)\s*[,)]"
                       r"|\b(?:child_process|cp|childProcess)\.(?:exec|execSync)\s*\(\s*([A-Za-z_$][\w$]*)\s*[,)]"
                       r"|\bvm\.run\w*\s*\(\s*([A-Za-z_$][\w$]*)\s*[,)]")


def _fetched_code(c: Collector, file: str, lines: list[str], offset: int, source: str) -> None:
    """NV-EXEC-004 in two steps: the body of a response kept in a variable, then run as code or a command."""
    fetched = {m.group(1) for m in _FETCHED_VAR.finditer(source)}
    if not fetched:
        return
    for i, line in enumerate(lines, 1):
        for m in _RUNS_VAR.finditer(line) if "(" in line else ():
            if next(g for g in m.groups() if g) in fetched:
                c.hit("NV-EXEC-004", file, i + offset, snippet(line), shape="a fetched body run as code")
                return


#: the user's home in a JavaScript path expression
_JS_HOME = rx.compile(r"os\.homedir\(\)|\bhomedir\(\)|process\.env\.HOME\b|process\.env\[\s*['\"]HOME['\"]\s*\]|['\"`]~/")
#: a file the shell or the login runs, named in a path expression (``'/.bashrc'``, ``'.ssh', 'authorized_keys'``)
_JS_STARTUP = rx.compile(rf"\.(?:{shell.RC_NAMES})\b|authorized_keys")


def _startup_write(c: Collector, file: str, no: int, line: str) -> None:
    """Text written into a file of the user's home the shell runs at start (or ``authorized_keys``), read as the
    shell reads the same write: ``echo '<line>' >> <file>`` for each line of each string written there."""
    home, name = _JS_HOME.search(line), _JS_STARTUP.search(line)
    if not home or not name:
        return
    target = "~/.ssh/authorized_keys" if name.group(0) == "authorized_keys" else "~/" + name.group(0)
    for m in STRING.finditer(line):
        if m.end() <= name.start():
            continue  # the path's own pieces
        written = [part for part in m.group(2).replace("\\n", "\n").split("\n") if not _JS_STARTUP.search(part)]
        shell.echoed(c, file, no, "\n".join(written), f">> {target}")


_ASSIGNED = rx.compile(r"(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=")


def _env_in_request(c: Collector, file: str, lines: list[str], offset: int, dumped: set[str]) -> None:
    """A request that carries a variable given the whole environment (in its address, body or headers) sends it,
    as :mod:`pycode` reads ``urlopen(url + d)``."""
    names = rx.inline(r"\b(?:" + "|".join(sorted(rx.escape(n) for n in dumped)) + r")\b")
    for i, line in enumerate(lines, 1):
        m = FETCH.search(line)
        if m and names.search(line[m.end():]):
            c.flags.add("network_send")
            c.fact("network_send", file, i + offset, "js-query")
            return


def _staged_download(c: Collector, file: str, lines: list[str], offset: int, may: Any = None) -> None:
    """NV-EXEC-003 in JavaScript: a fetched response written to a file that is then run."""
    if may is not None and not may(WRITE_TARGET):  # found on no line of the file (``rx.Screen``)
        return
    targets = {m.group(1) for ln in lines for m in WRITE_TARGET.finditer(ln)}
    if not targets:
        return
    for i, line in enumerate(lines, 1):
        if RUN_CALL.search(line) and any(t in line[RUN_CALL.search(line).start():] for t in targets):  # type: ignore[union-attr]
            c.hit("NV-EXEC-003", file, i + offset, snippet(line), shape="downloaded file executed")
            c.fact("download_exec", file, i + offset)
            return


def analyze(c: Collector, file: str, source: str, *, lines_offset: int = 0) -> None:
    lines = source.split("\n")
    child = bool(CHILD.search(source))
    has_fetch = bool(FETCH.search(source))
    if has_fetch:
        c.tag("network:*" if not URL_RE.search(source) else "network:*", file, lines_offset + 1)
    long_lines = sum(1 for ln in lines if len(ln) > 1000)
    if long_lines and len(source) > 2000 and sum(len(ln) for ln in lines if len(ln) > 1000) > 0.5 * len(source):
        c.hit("NV-OBF-005", file, lines_offset + 1, "minified code", kind="minified")
        c.flags.add("obfuscation")
        c.flags.add("incomplete")
        for t in ("shell:*", "write:?", "delete:?", "network:*"):
            c.tag(t, file, lines_offset + 1)
        return
    # an expression that finds nothing in the whole source matches none of its lines (rx.Screen)
    may = rx.Screen(source).may_match
    if has_fetch:
        _staged_download(c, file, lines, lines_offset, may)
        if may(_RUNS_VAR):
            _fetched_code(c, file, lines, lines_offset, source)
    in_exec_call = may(EXEC_CALL)
    in_dyn_exec = may(DYN_EXEC)
    in_url_re = may(URL_RE)
    in_send = may(SEND)
    in_body = may(_BODY)
    in_payload = may(_PAYLOAD)
    in_delete_req = may(DELETE_REQ)
    in_fs_write = may(FS_WRITE) and _FS_WRITE_NAMES.search(source) is not None
    in_fs_delete = may(FS_DELETE) and _FS_DELETE_NAMES.search(source) is not None
    in_env_read = may(ENV_READ)
    in_env_dump = may(ENV_DUMP)
    in_eval = may(EVAL)
    in_tls_off = may(TLS_OFF)
    in_kill = may(_KILL)
    in_log_secret = may(_LOG_SECRET)
    in_read_hint = may(_READ_HINT)
    in_shell_pipe = may(_SHELL_PIPE)
    marked = rx.marked_lines(_ANY_LINE, source) if _ANY_LINE is not None else None  # (None: the tests' slow path)
    # without a block comment opening anywhere, the lines left unmarked need no step at all
    todo = sorted(marked) if marked is not None and "/*" not in source else range(len(lines))
    in_block = False
    dumped: set[str] = set()  # variables given the environment (``const d = JSON.stringify(process.env)``)
    for index in todo:
        i = index + 1
        no = i + lines_offset
        line = lines[index]
        s = line.strip()
        if in_block:
            if "*/" in s:
                in_block = False
            continue
        if s.startswith("/*") and "*/" not in s:
            in_block = True
            continue
        if s.startswith("//") or s.startswith("*"):
            continue
        if marked is not None and index not in marked:
            continue
        # the line's expressions in one set pass (each then searched only where the set saw it)
        sc = _LINE_RULES.scan(line)
        if child or "exec" in line:
            for m in (sc.finditer(EXEC_CALL) if in_exec_call else ()):
                cmd = m.group(2) or m.group(3) or m.group(5)
                if cmd is None:
                    continue
                cmd = rx.sub(r"\$\{[^}]*\}", "$X", cmd)
                if m.group(5):
                    c.tag(f"shell:{m.group(5).split()[0].rsplit('/', 1)[-1]}", file, no)
                    rest = line[m.end():]
                    args = rx.findall(r"['\"]([^'\"]+)['\"]", rest.split("]")[0])
                    cmd = " ".join([m.group(5), *args])
                shell.analyze_line(c, file, no, cmd)
            if child and (in_dyn_exec and sc.search(DYN_EXEC)):
                c.tag("shell:*", file, no)
        for m in (sc.finditer(URL_RE) if in_url_re else ()):
            if has_fetch or child:
                c.tag(f"network:{normalize_host(m.group(0))}", file, no)
        if (in_send and sc.search(SEND)) or (has_fetch and (in_body and sc.search(_BODY))):
            c.flags.add("network_send")
            c.fact("network_send", file, no, "js")
            hosts = [normalize_host(u.group(0)) for u in URL_RE.finditer(line)] or ["*"]
            for h in hosts:
                c.tag(f"write:remote:{h}", file, no)
        if has_fetch and (in_payload and sc.search(_PAYLOAD)):
            window = "\n".join(lines[max(0, i - 6): i + 6])
            urls = [u.group(0) for u in URL_RE.finditer(window)]
            for m2 in ENV_READ.finditer(line):
                name = next((g for g in m2.groups() if g), None)
                if name and not rx.search(r"(?i)authorization|bearer|x-api-key|headers", line):
                    from nervous.plugin.toolkit import is_secret_env

                    if is_secret_env(name):
                        for u in urls:
                            c.fact("secret_flow", file, no, f"{name}|{u}")
        if (in_delete_req and sc.search(DELETE_REQ)):
            c.tag("delete:remote:*", file, no)
        m = sc.search(FS_WRITE) if in_fs_write else None
        if m:
            c.tag(f"write:{m.group(2) or '?'}", file, no)
            target = m.group(2) or ""
            if shell.AGENT_STATE.search(target) or shell.AGENT_STATE.search(line):
                sm = shell.AGENT_STATE.search(target) or shell.AGENT_STATE.search(line)
                assert sm is not None
                c.hit("NV-PERSIST-002", file, no, snippet(line), target=sm.group(1))
                c.flags.add("persistence")
            _startup_write(c, file, no, line)  # (first: its reading of the text written is the line's finding)
            if shell.PERSIST_PATH.search(line):
                c.hit("NV-PERSIST-001", file, no, snippet(line))
        m = sc.search(FS_DELETE) if in_fs_delete else None
        if m:
            c.tag(f"delete:{m.group(2) or '?'}", file, no)
        for m in (sc.finditer(ENV_READ) if in_env_read else ()):
            name = next((g for g in m.groups() if g), None)
            if name:
                c.tag(f"read:env:{name}", file, no)
        if (in_env_dump and sc.search(ENV_DUMP)):
            c.hit("NV-CRED-004", file, no, snippet(line))
            c.fact("env_dump", file, no, "js-env")
            held = _ASSIGNED.match(s)
            if held:
                dumped.add(held.group(1))
        if (in_eval and sc.search(EVAL)):
            if rx.search(r"(?i)atob|base64|Buffer\.from", line):
                c.hit("NV-EXEC-002", file, no, snippet(line))
                c.fact("encoded_exec", file, no)
            elif rx.search(r"(?i)fetch|\.text\(\)|response|res\.data|\.body\b|axios|http", line):
                c.hit("NV-EXEC-004", file, no, snippet(line))
            else:
                c.tag("shell:*", file, no)
        if (in_tls_off and sc.search(TLS_OFF)):
            c.hit("NV-NET-001", file, no, snippet(line))
        if (in_kill and sc.search(_KILL)):
            c.tag("delete:process", file, no)
        if (in_log_secret and sc.search(_LOG_SECRET)):
            c.hit("NV-CRED-003", file, no, snippet(line))
        # the read hint is the line's, not the string's: tested once, before the strings are listed
        for m in (STRING.finditer(line) if (in_read_hint and sc.search(_READ_HINT)) else ()):
            v = m.group(2)
            if ("/" in v or v.startswith(".")) and is_credential_path(v):
                c.tag(f"read:file:{v}", file, no)
                if not rx.search(r"(?:^|/)\.env(?:\.|$)", v):
                    c.hit("NV-CRED-001", file, no, snippet(line), path=v)
                    c.fact("harvest_read", file, no, "js-const:" + shell.credential_category(v))
                break
        if (in_shell_pipe and sc.search(_SHELL_PIPE)) and rx.search(r"net\.|socket", source):
            if rx.search(r"spawn\(\s*['\"](?:/bin/)?(?:ba)?sh|cmd\.exe", source):
                c.hit("NV-EXEC-005", file, no, snippet(line))
    if dumped and has_fetch:
        _env_in_request(c, file, lines, lines_offset, dumped)
