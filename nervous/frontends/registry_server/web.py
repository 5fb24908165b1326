"""Server-rendered pages for people: search, and a skill's page. No scripts, no build step.

Every piece of stored text is HTML-escaped, SKILL.md is rendered by a small Markdown subset that
escapes first, and the Content-Security-Policy forbids any script, so skill text can never run.
"""

from __future__ import annotations

import html
import re
import unicodedata
import urllib.parse
from collections.abc import Callable
from typing import Any

from .catalog import effective_verdict, installable_versions, latest_version
from .rules import Reject
from .service import Registry, Reply

CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; "
       "base-uri 'none'; frame-ancestors 'none'")
_STYLE = """body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2em auto;padding:0 1em;color:#222}
a{color:#0645ad}header{display:flex;gap:1em;align-items:center;border-bottom:1px solid #ddd;padding-bottom:.5em}
input[type=search]{width:60%;padding:.4em}.v{padding:.1em .5em;border-radius:3px;font-size:90%}
.clean{background:#e3f6e3}.suspicious{background:#fff3cd}.malicious{background:#f8d7da}
pre{background:#f5f5f5;padding:.6em;overflow:auto}table{border-collapse:collapse}td,th{padding:.2em .8em;
text-align:left;border-bottom:1px solid #eee}code{background:#f5f5f5;padding:0 .2em}.skillmd{border:1px solid #ddd;
padding:0 1em;margin:1em 0}"""

e = html.escape


def page(title: str, body: str) -> Reply:
    text = (f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{e(title)}</title>"
            f"<meta name=viewport content='width=device-width,initial-scale=1'><style>{_STYLE}</style></head>"
            f"<body><header><strong><a href='/'>nervous registry</a></strong>"
            f"<form action='/' method=get><input type=search name=q placeholder='Search skills'>"
            f" <button>Search</button></form></header><main>{body}</main></body></html>")
    return Reply(200, text, {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff",
                             "Referrer-Policy": "no-referrer", "Cache-Control": "no-store"},
                 "text/html; charset=utf-8")


def markdown(text: str) -> str:
    """A safe Markdown subset: headings, fenced code, lists, paragraphs, inline code. Escapes everything."""
    out: list[str] = []
    lines = text.replace("\r\n", "\n").split("\n")
    if lines and lines[0].strip() == "---":  # frontmatter shown as code
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
        if end is not None:
            out.append("<pre class=frontmatter>" + e("\n".join(lines[1:end])) + "</pre>")
            lines = lines[end + 1:]
    in_code = False
    para: list[str] = []
    in_list = False

    def inline(s: str) -> str:
        return re.sub(r"`([^`]+)`", r"<code>\1</code>", e(s))

    def flush() -> None:
        nonlocal in_list
        if para:
            out.append("<p>" + inline(" ".join(para)) + "</p>")
            para.clear()
        if in_list:
            out.append("</ul>")
            in_list = False

    for line in lines:
        if line.startswith("```"):
            if in_code:
                out.append("</pre>")
                in_code = False
            else:
                flush()
                out.append("<pre>")
                in_code = True
            continue
        if in_code:
            out.append(e(line) + "\n")
            continue
        m = re.match(r"^(#{1,6})\s+(.*)$", line)
        if m:
            flush()
            level = len(m.group(1))
            out.append(f"<h{level + 1 if level < 6 else 6}>{inline(m.group(2))}</h{level + 1 if level < 6 else 6}>")
        elif re.match(r"^\s*[-*]\s+", line):
            if para:
                out.append("<p>" + inline(" ".join(para)) + "</p>")
                para.clear()
            if not in_list:
                out.append("<ul>")
                in_list = True
            out.append("<li>" + inline(re.sub(r"^\s*[-*]\s+", "", line)) + "</li>")
        elif not line.strip():
            flush()
        else:
            para.append(line)
    if in_code:
        out.append("</pre>")
    flush()
    return "\n".join(out)


def _verdict(v: str) -> str:
    return f"<span class='v {e(v)}'>{e(v)}</span>"


def index(r: Registry, q: dict[str, str]) -> Reply:
    # control characters (a NUL, an escape) have no place in a query, a title or a form value
    query = "".join(ch for ch in (q.get("q") or "") if unicodedata.category(ch) not in ("Cc", "Cs")).strip()
    with_suspicious = q.get("includeSuspicious") in ("1", "true", "on")
    if query:
        params = {"q": query, "limit": "50", **({"includeSuspicious": "true"} if with_suspicious else {})}
        rows = r.search(params)["results"]
        title = f"Results for {query}"
    else:
        docs = sorted((d for _, d in r.rows() if not r.suspicious(d)), key=lambda d: -int(d.get("updatedAt", 0)))
        rows = [r.search_row(0.0, d) for d in docs[:50]]
        title = "Recently updated skills"
    items = []
    for row in rows:
        owner = row.get("ownerHandle") or ""
        slug = row["slug"]
        href = f"/{urllib.parse.quote(owner)}/skills/{urllib.parse.quote(slug)}" if owner else None
        name = e(row.get("displayName") or slug)
        link = f"<a href='{e(href)}'>{name}</a>" if href else name
        flag = " " + _verdict("suspicious") if (row.get("trust") or {}).get("clawHubVerdict") == "suspicious" else ""
        items.append(f"<li class=result>{link} <small>{e(owner and '@' + owner)}/{e(slug)}</small>{flag}"
                     f"<br>{e(row.get('summary') or '')}</li>")
    box = (f"<form action='/' method=get><input type=search name=q value='{e(query, quote=True)}'>"
           f" <label><input type=checkbox name=includeSuspicious value=1{' checked' if with_suspicious else ''}>"
           f" include suspicious</label> <button>Search</button></form>")
    body = f"<h1>{e(title)}</h1>{box}<ul class=results>{''.join(items) or '<li>No skills found.</li>'}</ul>"
    return page(title, body)


def skill_page(r: Registry, owner: str, slug: str, q: dict[str, str]) -> Reply:
    doc = r.find(slug, {"ownerHandle": owner}, "json")
    latest = latest_version(doc)
    if latest is None:
        raise Reject(404, "Skill not found")
    wanted = q.get("version")
    shown = next((v for v in installable_versions(doc) if v["version"] == wanted), latest) if wanted else latest
    mod = shown.get("moderation") or {}
    verdict = effective_verdict(shown)
    text = r.skill_md(shown) or ""
    versions = "".join(
        f"<tr><td><a href='?version={e(urllib.parse.quote(v['version']))}'>{e(v['version'])}</a></td>"
        f"<td>{_verdict(effective_verdict(v))}</td><td>{e(v.get('changelog') or '')}</td></tr>"
        for v in installable_versions(doc)[::-1])
    files = "".join(f"<tr><td><code>{e(f['path'])}</code></td><td>{f['size']}</td><td><code>{e(f['sha256'][:16])}…"
                    f"</code></td></tr>" for f in shown["files"])
    effects = ", ".join(e(s) for s in mod.get("sideEffects", [])) or "none found"
    rules = ", ".join(e(x) for x in mod.get("ruleIds", [])) or "none"
    override = mod.get("override")
    note = (f"<p>Moderator override by @{e(override['by'])}: {e(override['reason'])}</p>" if override else "")
    ref = f"@{doc['owner']}/{doc['slug']}"
    body = (f"<h1>{e(doc.get('displayName') or slug)}</h1><p>{e(doc.get('summary') or '')}</p>"
            f"<p>@{e(doc['owner'])}/{e(doc['slug'])} · version {e(shown['version'])} · verdict {_verdict(verdict)}"
            f" · policy {e(str(mod.get('policy') or 'default'))}@{e(str(mod.get('policyVersion', '1')))}</p>{note}"
            f"<h2>Install</h2><pre>nervous install clawhub:{e(ref)} --version {e(shown['version'])}\n"
            f"clawhub --registry {e(r.site_url or '<this server>')} install {e(doc['slug'])} --version "
            f"{e(shown['version'])}</pre>"
            f"<h2>Side effects</h2><p>{effects} (risk: {e(str(mod.get('riskLevel') or 'unknown'))}; rules: {rules})</p>"
            f"<h2>SKILL.md</h2><div class=skillmd>{markdown(text)}</div>"
            f"<h2>Files</h2><table><tr><th>Path</th><th>Bytes</th><th>SHA-256</th></tr>{files}</table>"
            f"<h2>Versions</h2><table><tr><th>Version</th><th>Verdict</th><th>Changelog</th></tr>{versions}</table>")
    return page(f"{doc.get('displayName') or slug} — nervous registry", body)


def web_routes(r: Registry, endpoint: Callable[..., Any]) -> list[Any]:
    from starlette.routing import Route

    return [
        Route("/", endpoint(lambda req, _b: index(r, dict(req.query_params)), "read")),
        Route("/{owner}/skills/{slug}", endpoint(
            lambda req, _b: skill_page(r, req.path_params["owner"].lstrip("@").lower(),
                                       req.path_params["slug"].lower(), dict(req.query_params)), "read")),
    ]
