"""The stdio front's writer (serving/stdio_writer.py) on real pipes: whole lines, each
writer's lines in order, a full pipe never blocking the caller, and the server's relayed
lines never cut into a direct answer."""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
import threading

from github_mcp.serving.stdio_writer import ClientWriter


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 65536):
        chunks.append(chunk)
    return b"".join(chunks)


def _line(writer: int, n: int, size: int) -> bytes:
    return json.dumps({"writer": writer, "n": n, "pad": "x" * size}).encode() + b"\n"


def test_concurrent_lines_arrive_whole_and_in_order_per_writer():
    read_fd, write_fd = os.pipe()
    writer = ClientWriter(write_fd)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(_read_all(read_fd)))
    reader.start()

    def direct(who: int) -> None:  # lines of every size: some fill the pipe part-way
        for n in range(200):
            writer.line(_line(who, n, (n * 997) % 20000))

    def relayed() -> None:
        for n in range(200):
            writer.relay(_line(9, n, (n * 1531) % 30000))

    threads = [threading.Thread(target=direct, args=(w,)) for w in (1, 2)]
    threads.append(threading.Thread(target=relayed))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    writer.finish()
    os.close(write_fd)
    reader.join(timeout=30)
    os.close(read_fd)
    lines = received[0].split(b"\n")
    assert lines[-1] == b""
    messages = [json.loads(line) for line in lines[:-1]]  # a cut line would not parse
    assert len(messages) == 600
    for who in (1, 2, 9):
        assert [m["n"] for m in messages if m["writer"] == who] == list(range(200))


def test_a_client_that_does_not_read_never_blocks_the_caller():
    read_fd, write_fd = os.pipe()
    size = fcntl.fcntl(write_fd, 1032)  # F_GETPIPE_SZ: the pipe's capacity
    writer = ClientWriter(write_fd)
    big = _line(1, 0, size * 3)  # three times what the pipe holds
    returned = threading.Event()

    def answer() -> None:
        writer.line(big)
        writer.line(_line(1, 1, 10))  # queued behind the rest of the first
        returned.set()

    caller = threading.Thread(target=answer)
    caller.start()
    # Nobody has read yet: the caller must come back all the same (liveness, not speed).
    assert returned.wait(timeout=30), "a full pipe blocked the caller"
    data = b""
    while data.count(b"\n") < 2:
        data += os.read(read_fd, 65536)
    writer.finish()
    os.close(write_fd)
    os.close(read_fd)
    first, second, rest = data.split(b"\n")
    assert first + b"\n" == big
    assert json.loads(second)["n"] == 1 and rest == b""


def test_a_regular_file_gets_every_line_through_the_thread():
    with tempfile.TemporaryFile() as handle:
        fd = os.dup(handle.fileno())
        writer = ClientWriter(fd)
        for n in range(50):
            writer.line(_line(1, n, 100))
        writer.finish()
        os.close(fd)
        handle.seek(0)
        messages = [json.loads(line) for line in handle.read().splitlines()]
    assert [m["n"] for m in messages] == list(range(50))


def test_a_closed_client_ends_writing_quietly():
    read_fd, write_fd = os.pipe()
    writer = ClientWriter(write_fd)
    os.close(read_fd)  # the client went away: writes fail with EPIPE
    writer.line(_line(1, 0, 10))
    writer.line(_line(1, 1, 10))
    writer.finish()  # returns: the queue drained without writing
    os.close(write_fd)
    assert not writer._thread.is_alive()
