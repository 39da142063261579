"""What every request to ``rulesrun serve`` passes before a route sees it (an ASGI middleware):

- **Host.** The ``Host`` header must name this server: an IP address (v4 or v6), ``localhost``, or a
  name given with ``--allowed-host``. A page on an attacker's domain that re-points its DNS at this
  machine ("DNS rebinding") sends its own name as the Host and is turned away, so it can read
  nothing and start nothing. Refused with HTTP 421 (or a refused WebSocket handshake).
- **Same origin.** A request that changes something (any method but GET and HEAD) and every
  WebSocket must come from this server's own pages: an ``Origin`` header, when sent, must be this
  server's public address, and ``Sec-Fetch-Site: cross-site`` is refused. Clients that are not
  browsers send neither and pass (they cannot ride on someone's browser). Refused with HTTP 403.
- **Headers** on every HTTP answer: a Content-Security-Policy with no inline script, no framing
  (``frame-ancestors 'none'`` and ``X-Frame-Options: DENY``), ``X-Content-Type-Options: nosniff``
  and ``Referrer-Policy: no-referrer`` (a seat's token is in the link's #fragment, which browsers
  never send, and no page of ours links away with it).

Behind a reverse proxy (``serve --proxy-headers``) the public address is the proxy's: the scheme from
``X-Forwarded-Proto`` and the host from ``X-Forwarded-Host`` (else ``Host``); without the flag those
headers are ignored, so a client cannot make the server believe it lives elsewhere.
docs/reference/security.md lists what the server promises.
"""
from __future__ import annotations

import ipaddress
import json
from urllib.parse import urlsplit

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
]
LOCAL_NAMES = {"localhost"}
DEFAULT_PORTS = {"http": "80", "https": "443", "ws": "80", "wss": "443"}


def split_host(value: str) -> tuple[str, str | None] | None:
    """'example.org:8000' → ('example.org', '8000'); '[::1]:80' → ('::1', '80'); None if malformed."""
    value = value.strip().lower()
    if not value or len(value) > 300 or any(ch in value for ch in " /\\@?#"):
        return None
    if value.startswith("["):
        end = value.find("]")
        rest = value[end + 1:]
        if end < 0 or rest and not rest.startswith(":"):
            return None
        name, port = value[1:end], rest[1:] or None
    else:
        name, _, port = value.partition(":")
        port = port or None
    if port is not None and not (port.isascii() and port.isdigit() and len(port) <= 5):
        return None
    return name, port


def is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        return False


def host_allowed(value: str | None, allowed: set[str]) -> bool:
    """Whether a Host header names this server (see the module's docstring)."""
    parts = split_host(value or "")
    if parts is None:
        return False
    name = parts[0].rstrip(".")
    return is_ip(name) or name in LOCAL_NAMES or name in allowed


def public_origin(scheme: str, host: str) -> str:
    """'http', 'example.org:80' → 'http://example.org': the form an Origin header takes."""
    parts = split_host(host)
    if parts is None:
        return ""
    name, port = parts
    shown = f"[{name}]" if ":" in name else name
    if port and port != DEFAULT_PORTS.get(scheme):
        shown += f":{port}"
    return f"{scheme}://{shown}"


def _headers(scope) -> dict[str, str]:
    out = {}
    for k, v in scope.get("headers", ()):
        out[k.decode("latin-1").lower()] = v.decode("latin-1")
    return out


def public_address(scope, proxy_headers: bool) -> tuple[str, str]:
    """(scheme, host) this request was made to, as the person's browser sees it."""
    h = _headers(scope)
    websocket = scope["type"] == "websocket"
    scheme = scope.get("scheme") or ("ws" if websocket else "http")
    host = h.get("host", "")
    if proxy_headers:
        forwarded = h.get("x-forwarded-proto", "").split(",")[0].strip().lower()
        if forwarded in ("http", "https", "ws", "wss"):
            scheme = forwarded
        host = h.get("x-forwarded-host", "").split(",")[0].strip() or host
    scheme = {"ws": "http", "wss": "https"}.get(scheme, scheme)
    return scheme, host


class Guard:
    """The middleware: ``Guard(app, allowed_hosts={...}, proxy_headers=False)``."""

    def __init__(self, app, allowed_hosts=(), proxy_headers: bool = False):
        self.app = app
        self.allowed = {h.strip().lower().rstrip(".") for h in allowed_hosts if h.strip()}
        self.proxy_headers = proxy_headers

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        h = _headers(scope)
        problem, status = self.problem(scope, h)
        if problem is not None:
            return await self.refuse(scope, receive, send, status, problem)
        if scope["type"] == "http":
            async def send_with_headers(message):
                if message["type"] == "http.response.start":
                    message = dict(message)
                    message["headers"] = [*message.get("headers", ()), *HEADERS]
                return await send(message)
            return await self.app(scope, receive, send_with_headers)
        return await self.app(scope, receive, send)

    def problem(self, scope, h: dict) -> tuple[str | None, int]:
        scheme, host = public_address(scope, self.proxy_headers)
        if not host_allowed(h.get("host"), self.allowed) or \
                self.proxy_headers and not host_allowed(host, self.allowed):
            return ("this server does not answer to the name "
                    f"{(host or h.get('host') or '(none)')[:80]!r}: start it with --allowed-host NAME "
                    "to serve under a name"), 421
        changes = scope["type"] == "websocket" or scope.get("method") not in ("GET", "HEAD")
        if not changes:
            return None, 200
        if h.get("sec-fetch-site") == "cross-site":
            return "requests from other sites are refused", 403
        origin = h.get("origin")
        if origin is not None and origin != public_origin(scheme, host):
            try:
                given = urlsplit(origin)
                ours = given.scheme in ("http", "https") and \
                    public_origin(given.scheme, given.netloc) == public_origin(scheme, host)
            except ValueError:
                ours = False
            if not ours:
                return f"requests from {origin[:80]!r} are refused: only this server's own pages may send them", 403
        return None, 200

    async def refuse(self, scope, receive, send, status: int, message: str):
        if scope["type"] == "websocket":
            # Refusing before the handshake: the client sees HTTP 403 and the socket never opens.
            return await send({"type": "websocket.close", "code": 4403, "reason": message[:120]})
        body = json.dumps({"error": message}).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode()), *HEADERS]})
        await send({"type": "http.response.body", "body": body})
