"""TLS verification stays on: the GitHub client (one TLS context shared by every runtime of
the process, github/tls.py) refuses a server whose certificate no trusted CA signed, and
nothing of the request reaches that server. The evidence is the server's own log of what
it read; a client that does not verify (the control) gets through, so the log can fail."""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import ssl
from pathlib import Path

import httpx2 as httpx
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from github_mcp.kernel.errors import GitHubMCPError
from tests.conftest import call_tool, error_code, mcp_client


def _self_signed(directory: Path) -> ssl.SSLContext:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    (directory / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (directory / "key.pem").write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(directory / "cert.pem", directory / "key.pem")
    return context


async def test_a_certificate_no_trusted_ca_signed_is_refused(make_runtime, tmp_path):
    received: list[bytes] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = await reader.readline()
            if line:
                received.append(line)
                body = b'{"login": "impostor"}'
                writer.write(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                    b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(body), body)
                )
                await writer.drain()
        except (ssl.SSLError, ConnectionError):
            pass  # the client gave up on the handshake
        finally:
            writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0, ssl=_self_signed(tmp_path))
    port = server.sockets[0].getsockname()[1]
    url = f"https://127.0.0.1:{port}"
    try:
        rt = make_runtime(github_api_url=url)
        try:
            await rt.github.request_json("GET", "/user")
        except GitHubMCPError as exc:
            assert exc.code.value == "upstream_error"
        else:
            raise AssertionError("the client accepted an untrusted certificate")
        async with mcp_client(make_runtime(github_api_url=url)) as client:
            is_error, payload = await call_tool(
                client, "get_repository", {"full_name": "octo-org/demo-app"}
            )
        assert is_error and error_code(payload) == "upstream_error"
        assert received == []  # not one request line crossed the refused handshake

        # control: a client that does not verify is served, so the log above can fail
        async with httpx.AsyncClient(verify=False) as insecure:
            answer = await insecure.get(url + "/user")
        assert answer.json() == {"login": "impostor"}
        assert received == [b"GET /user HTTP/1.1\r\n"]
    finally:
        server.close()
        await server.wait_closed()
