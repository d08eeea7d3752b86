"""How requests reach GitHub: straight to the keep-alive transport when no proxy is
configured, through the proxy the environment names otherwise (the HTTP client's own
routing), and the same answers either way."""

from __future__ import annotations

import asyncio
import json

from tests.conftest import DEMO_REPO, requests_matching


async def _recording_proxy(seen: list[bytes]) -> asyncio.Server:
    """A plain HTTP proxy stand-in on loopback: records each request line, answers JSON."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, ConnectionError):
                return  # the client closed its connection
            seen.append(head.split(b"\r\n", 1)[0])
            body = json.dumps({"login": "answered-by-the-proxy"}).encode()
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
            )
            await writer.drain()

    return await asyncio.start_server(handle, "127.0.0.1", 0)


async def test_a_configured_proxy_carries_the_requests(make_runtime, forge, monkeypatch):
    seen: list[bytes] = []
    proxy = await _recording_proxy(seen)
    port = proxy.sockets[0].getsockname()[1]
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{port}")
    try:
        rt = make_runtime()
        forge.clear_requests()
        me = await rt.github.get_json("/user")
    finally:
        proxy.close()
    assert me == {"login": "answered-by-the-proxy"}
    assert seen == [f"GET {forge.base_url}/user HTTP/1.1".encode()]
    assert requests_matching(forge, "GET", "/user") == []  # the forge never saw it


async def test_without_a_proxy_reads_and_streams_go_to_the_forge(make_runtime, forge, monkeypatch):
    for name in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    rt = make_runtime()
    forge.clear_requests()
    readme = f"/repos/{DEMO_REPO}/contents/README.md"
    whole, cut, _ = await rt.github.read_raw(readme, max_bytes=1_000_000)
    part, truncated, _ = await rt.github.read_raw(readme, max_bytes=5)  # closed mid-body
    repo = await rt.github.get_json(f"/repos/{DEMO_REPO}")  # the pool still serves
    assert not cut and truncated and part == whole[:5] and len(whole) > 5
    assert repo["full_name"] == DEMO_REPO
    paths = [entry["path"] for entry in requests_matching(forge, "GET", f"/repos/{DEMO_REPO}")]
    assert paths == [readme, readme, f"/repos/{DEMO_REPO}"]
