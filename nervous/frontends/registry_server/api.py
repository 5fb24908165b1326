"""The ClawHub HTTP surface on Starlette: routes, rate limits, plain-text errors (protocols Part A).

Every endpoint body runs in Starlette's thread pool (the storage backends are synchronous).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ...errors import BadInput
from .ratelimit import RateLimiter, RateLimits
from .rules import Reject
from .service import Registry, Reply, bearer_token

MAX_JSON_BODY = 2 * 1024 * 1024
_CORS = {"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Headers": "Authorization, Content-Type",
         "Access-Control-Allow-Methods": "GET, POST, DELETE, OPTIONS"}


def _address(request: Request) -> str:
    return "ip:" + (request.client.host if request.client else "?")


def _caller(registry: Registry, request: Request) -> str:
    """Who a request is counted against: its token when the token is a live one, else its address
    (a made-up or revoked bearer string is no identity: it neither escapes the address's rate
    limit nor counts as another downloader). Reads the token store: call it off the event loop."""
    token = bearer_token(request.headers.get("authorization"))
    if token and registry.catalog.user_for(token) is not None:
        import hashlib

        return "t:" + hashlib.sha256(token.encode()).hexdigest()[:16]
    return _address(request)


def _base(request: Request) -> str:
    return str(request.base_url).rstrip("/")


def render(reply: Reply | Reject, extra: dict[str, str]) -> Response:
    if isinstance(reply, Reject):
        headers = {**_CORS, **extra, **reply.headers}
        if reply.body is not None:
            return Response(json.dumps(reply.body), reply.status, headers, "application/json")
        # (a message quoting the request may hold an unpaired surrogate: escaped, never a failed answer)
        return Response(reply.text.encode("utf-8", "backslashreplace"), reply.status, headers,
                        "text/plain; charset=utf-8")
    body = reply.body
    ctype = reply.content_type
    if isinstance(body, (dict, list)):
        data = json.dumps(body, ensure_ascii=False).encode()
        ctype = ctype or "application/json"
    elif isinstance(body, str):
        data = body.encode()
        ctype = ctype or "text/plain; charset=utf-8"
    else:
        data = bytes(body)
        ctype = ctype or "application/octet-stream"
    headers = {**_CORS, **extra}
    if reply.status < 300 and ctype.startswith("application/json"):
        headers["Cache-Control"] = "no-store"
    headers.update(reply.headers)
    return Response(data, reply.status, headers, ctype)


async def _read_body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        raise Reject(413, f"Request body exceeds {limit} bytes")
    chunks = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise Reject(413, f"Request body exceeds {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


Handler = Callable[[Request, bytes], Any]


def create_app(registry: Registry, *, rate_limits: RateLimits | None = None, web: bool = True) -> Starlette:
    limiter = RateLimiter(rate_limits or RateLimits())

    def endpoint(fn: Handler, bucket: str, body_limit: int | None = None) -> Callable[[Request], Any]:
        async def run(request: Request) -> Response:
            extra: dict[str, str] = {}
            try:
                if bearer_token(request.headers.get("authorization")):
                    caller = await run_in_threadpool(_caller, registry, request)
                else:
                    caller = _address(request)
                request.state.caller = caller
                extra = limiter.check(bucket, caller)
                body = await _read_body(request, body_limit) if body_limit else b""
                out = await run_in_threadpool(fn, request, body)
                reply = out if isinstance(out, Reply) else Reply(200, out)
            except Reject as exc:
                return render(exc, extra)
            except BadInput as exc:  # a key, a name or a text the store cannot hold: the request's fault
                return render(Reject(400, f"Invalid request: {exc.message}"), extra)
            except RecursionError:
                return render(Reject(400, "Invalid JSON body: nested too deeply"), extra)
            except UnicodeError:  # an unpaired surrogate (a JSON "\\ud800") where text must be stored or sent
                return render(Reject(400, "Invalid request: a text is not valid Unicode (an unpaired surrogate)"),
                              extra)
            except ValueError:  # a number too long to convert, a value the store cannot hold
                return render(Reject(400, "Invalid request: a value is malformed or too long"), extra)
            return render(reply, extra)

        return run

    r = registry

    def q(request: Request) -> dict[str, str]:
        return dict(request.query_params)

    def slug_of(request: Request) -> str:
        return str(request.path_params["slug"])

    def viewer(request: Request) -> dict[str, Any] | None:
        """The caller's account when a valid token came (an invalid one reads as anonymous)."""
        return r.user(request.headers.get("authorization"))

    def well_known(request: Request, _b: bytes) -> dict[str, Any]:
        base = r.site_url or _base(request)
        return {"apiBase": base, "authBase": base, "minCliVersion": "0.1.0", "registry": base}

    def whoami(request: Request, _b: bytes) -> dict[str, Any]:
        user = r.user(request.headers.get("authorization"), required=True) or {}
        return {"user": {"handle": user["handle"], "displayName": user.get("displayName"), "image": None,
                         "role": "moderator" if user.get("role") == "moderator" else "user"}}

    def telemetry(request: Request, body: bytes) -> dict[str, Any]:
        r.user(request.headers.get("authorization"), required=True)
        try:
            json.loads(body or b"{}")
        except ValueError:
            raise Reject(400, "Invalid JSON body") from None
        return {"ok": True}

    def authed(fn: Callable[..., Any]) -> Handler:
        def run(request: Request, body: bytes) -> Any:
            user = r.user(request.headers.get("authorization"), required=True)
            return fn(user, request, body)

        return run

    def not_found(request: Request, _b: bytes) -> Any:
        raise Reject(404, "Not found")

    max_upload = r.limits.max_file_bytes

    async def preflight(_request: Request) -> Response:
        """A browser's CORS preflight: the methods and headers every answer already advertises, and no body."""
        return Response(status_code=204, headers={**_CORS, "Access-Control-Max-Age": "600"})

    routes = [
        Route("/{rest:path}", preflight, methods=["OPTIONS"]),  # (first: any path; other methods go on to theirs)
        Route("/.well-known/clawhub.json", endpoint(well_known, "read")),
        Route("/.well-known/clawdhub.json", endpoint(not_found, "read")),
        Route("/api/v1/whoami", endpoint(whoami, "read")),
        Route("/api/cli/telemetry/install", endpoint(telemetry, "write", 64 * 1024), methods=["POST"]),
        Route("/api/v1/search", endpoint(lambda req, _b: r.search(q(req)), "read")),
        Route("/api/v1/skills", endpoint(lambda req, _b: r.list_skills(q(req)), "read"), methods=["GET"]),
        Route("/api/v1/skills", endpoint(authed(lambda u, req, b: r.publish(u, b)), "write", MAX_JSON_BODY),
              methods=["POST"]),
        Route("/api/v1/skills/-/upload-url",
              endpoint(authed(lambda u, req, b: r.upload_url(u, b, r.site_url or _base(req))), "write", 64 * 1024),
              methods=["POST"]),
        Route("/api/v1/uploads/{ticket}",
              endpoint(authed(lambda u, req, b: r.upload(req.path_params["ticket"], b)), "write", max_upload),
              methods=["POST"]),
        Route("/api/v1/skills/-/security-verdicts",
              endpoint(lambda req, b: r.security_verdicts(b), "read", MAX_JSON_BODY), methods=["POST"]),
        Route("/api/v1/resolve", endpoint(lambda req, _b: r.resolve(q(req)), "read")),
        Route("/api/v1/skills/resolve", endpoint(lambda req, _b: r.resolve(q(req)), "read")),
        Route("/api/v1/download", endpoint(lambda req, _b: r.download(q(req), str(req.state.caller)), "download")),
        Route("/api/v1/skills/{slug}", endpoint(lambda req, _b: r.detail(slug_of(req), q(req)), "read")),
        Route("/api/v1/skills/{slug}/versions", endpoint(lambda req, _b: r.versions(slug_of(req), q(req)), "read")),
        Route("/api/v1/skills/{slug}/versions/{version}",
              endpoint(lambda req, _b: r.version_detail(slug_of(req), req.path_params["version"], q(req),
                                                        viewer(req)), "read"),
              methods=["GET"]),
        Route("/api/v1/skills/{slug}/versions/{version}",
              endpoint(authed(lambda u, req, b: r.delete_version(u, slug_of(req), req.path_params["version"], q(req))),
                       "write"), methods=["DELETE"]),
        Route("/api/v1/skills/{slug}/file", endpoint(lambda req, _b: r.file(slug_of(req), q(req)), "read")),
        Route("/api/v1/skills/{slug}/install",
              endpoint(lambda req, _b: r.install_resolver(slug_of(req), q(req), _base(req)), "read")),
        Route("/api/v1/skills/{slug}/moderation", endpoint(lambda req, _b: r.moderation(slug_of(req), q(req)), "read"),
              methods=["GET"]),
        Route("/api/v1/skills/{slug}/moderation",
              endpoint(authed(lambda u, req, b: r.override(u, slug_of(req), q(req), b)), "write", 64 * 1024),
              methods=["POST"]),
        Route("/api/v1/skills/{slug}/scan", endpoint(lambda req, _b: r.scan(slug_of(req), q(req), viewer(req)),
                                                     "read")),
    ]
    if web:
        from .web import web_routes

        routes += web_routes(r, endpoint)
    return Starlette(routes=routes)
