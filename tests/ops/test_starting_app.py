"""An HTTP start listens at once (serving/starting_app.py): while the app is built,
/healthz answers 200 and /readyz 503, other requests wait and are then served by the
real app; a build that fails stops the server with status 2 and its message. With
GITHUB_MCP_LISTEN_WHEN_READY the port opens only once the app is built (a proxy without
readiness probes then sends a restarting replica's requests elsewhere)."""

from __future__ import annotations

import signal
import threading
import time

import httpx2 as httpx
import pytest
from sse_starlette.sse import AppStatus

from github_mcp.serving.loopback import serve_in_thread
from github_mcp.serving.server import build_http_app
from github_mcp.serving.shutdown import serve_http
from github_mcp.serving.starting_app import StartingApp
from tests.ops.test_shutdown import _free_port, _start
from tests.stdio_session import initialize


def test_probes_answer_while_the_app_builds_and_requests_wait_for_it(make_runtime):
    rt = make_runtime()
    release = threading.Event()
    built = threading.Event()

    def build():
        assert release.wait(60), "the test never released the build"
        app = build_http_app(rt)
        built.set()
        return app

    with serve_in_thread(StartingApp(build)) as url:
        live = httpx.get(url + "/healthz", timeout=5)
        assert live.status_code == 200 and live.json() == {"status": "ok", "starting": True}
        ready = httpx.get(url + "/readyz", timeout=5)
        assert ready.status_code == 503
        assert ready.json()["checks"] == {"server": "starting"}

        answers: list[httpx.Response] = []
        waiter = threading.Thread(
            target=lambda: answers.append(httpx.get(url + "/metrics", timeout=60))
        )
        waiter.start()
        waiter.join(0.5)
        assert not answers and not built.is_set()  # held until the app exists
        release.set()
        waiter.join(60)
        assert answers and answers[0].status_code == 200
        assert "mcp_tool_calls_total" in answers[0].text  # the real app's /metrics answered it
        full = httpx.get(url + "/healthz", timeout=5).json()
        assert {"uptime_seconds", "version", "metrics"} <= set(full)


def _initialize(url: str) -> httpx.Response:
    """An `initialize` POSTed to the app's MCP endpoint."""
    return httpx.post(
        url + "/mcp",
        json=initialize(),
        headers={"Accept": "application/json, text/event-stream"},
        timeout=60,
    )


def test_an_mcp_session_opened_during_the_build_works(make_runtime):
    rt = make_runtime()

    def build():
        time.sleep(0.3)
        return build_http_app(rt)

    with serve_in_thread(StartingApp(build)) as url:
        opened = _initialize(url)
    assert opened.status_code == 200, opened.text
    assert "github-mcp-controller" in opened.text
    assert opened.headers.get("mcp-session-id")  # the session manager's lifespan is running


@pytest.fixture
def event_streams_restored():
    """serve_http sets the event-stream library's process-wide shutdown flags; put them
    back so later tests in this process can stream."""
    before = (AppStatus.should_exit, AppStatus.enable_automatic_graceful_drain)
    yield
    AppStatus.should_exit, AppStatus.enable_automatic_graceful_drain = before


def test_a_build_that_fails_stops_the_server_with_its_message(
    make_runtime, capsys, event_streams_restored
):
    rt = make_runtime()

    def build():
        raise SystemExit("the configuration cannot work: because of a test")

    app = StartingApp(build)
    port = _free_port()
    done: list[int] = []
    server = threading.Thread(
        target=lambda: done.append(serve_http(app, rt, host="127.0.0.1", port=port))
    )
    server.start()
    server.join(60)
    assert not server.is_alive(), "the server kept running after its app failed to build"
    assert done == [2]
    assert app.failed
    assert "the configuration cannot work: because of a test" in capsys.readouterr().err
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2)


def test_listening_when_ready_opens_the_port_only_once_the_app_is_built(tmp_path):
    port = _free_port()
    proc = _start(tmp_path, "http", 5, port, {"GITHUB_MCP_LISTEN_WHEN_READY": "true"})
    url = f"http://127.0.0.1:{port}"
    try:
        first = None
        deadline = time.monotonic() + 120  # bounds a hang only
        while first is None and time.monotonic() < deadline and proc.poll() is None:
            try:
                first = httpx.get(url + "/healthz", timeout=5)
            except httpx.TransportError:  # refused: not listening yet
                time.sleep(0.02)
        assert first is not None, proc.stderr.read().decode() if proc.poll() is not None else ""
        # the first answer the port ever gave is the built app's, never "starting"
        assert first.status_code == 200 and "starting" not in first.json(), first.text
        assert {"uptime_seconds", "version"} <= set(first.json())
        opened = _initialize(url)
        assert opened.status_code == 200, opened.text
        assert opened.headers.get("mcp-session-id")  # the app's lifespan runs its sessions
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            assert proc.wait(60) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
