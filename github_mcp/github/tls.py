"""One TLS context per process for the clients that call GitHub.

Building a context loads the system's CA bundle, about 25 ms of CPU; httpx builds a new
one for every client it makes (each runtime's keep-alive client, each token check of the
hosted sign-in). The context is the one httpx makes by default (system CAs, SSL_CERT_FILE
and SSL_CERT_DIR honoured), so verification is exactly as before; an SSLContext may be
shared by any number of clients, threads and event loops.
"""

from __future__ import annotations

import functools
import ssl

import httpx2 as httpx


@functools.cache
def tls_context() -> ssl.SSLContext:
    return httpx.create_ssl_context()
