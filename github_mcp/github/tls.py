"""One TLS context per process for the clients that call GitHub.

Building a context loads the system's CA bundle, about 25 ms of CPU; httpx builds a new
one for every client it makes (each runtime's keep-alive client, each token check of the
hosted sign-in). The context is the one httpx makes by default (system CAs, SSL_CERT_FILE
and SSL_CERT_DIR honoured), so verification is exactly as before; an SSLContext may be
shared by any number of clients, threads and event loops.

`build_in_background` starts building it on a thread of its own (loading the bundle
releases the GIL), so that a first request finds it made; a caller that asks meanwhile
waits for that build instead of making a second context.
"""

from __future__ import annotations

import ssl
import threading

import httpx2 as httpx

_lock = threading.Lock()
_context: ssl.SSLContext | None = None


def tls_context() -> ssl.SSLContext:
    global _context
    with _lock:
        if _context is None:
            _context = httpx.create_ssl_context()
        return _context


def build_in_background() -> None:
    threading.Thread(target=tls_context, name="tls-context", daemon=True).start()
