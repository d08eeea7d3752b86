"""A TCP proxy on loopback that adds a settable delay to every chunk in both directions:
a slowed Redis for the outage tests and bench/redis_outage.py. Chunks keep their order
and each is held `delay` seconds from its arrival (added latency, not a throttle). It runs
its own event loop in a thread of the process that starts it."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time

from tests.replicas.cluster import free_port


class DelayProxy:
    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = free_port()
        self.delay = 0.0
        self._loop = asyncio.new_event_loop()
        ready = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(ready,), daemon=True)
        self._thread.start()
        if not ready.wait(30):
            raise AssertionError("the delay proxy did not start")

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def _run(self, ready: threading.Event) -> None:
        asyncio.set_event_loop(self._loop)

        async def start() -> asyncio.Server:
            return await asyncio.start_server(self._accept, "127.0.0.1", self.port)

        self._server = self._loop.run_until_complete(start())
        ready.set()
        self._loop.run_forever()

    async def _accept(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        try:
            server_r, server_w = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            client_w.close()
            return
        with contextlib.suppress(asyncio.CancelledError):  # closing the proxy ends it
            await asyncio.gather(
                self._pipe(client_r, server_w),
                self._pipe(server_r, client_w),
                return_exceptions=True,
            )

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def deliver() -> None:
            while True:
                due, data = await queue.get()
                if not data:
                    break
                await asyncio.sleep(max(0.0, due - time.monotonic()))
                writer.write(data)
                await writer.drain()

        sender = asyncio.create_task(deliver())
        try:
            while data := await reader.read(65536):
                await queue.put((time.monotonic() + self.delay, data))
        finally:
            await queue.put((0.0, b""))  # what is queued still goes, then the end
            with contextlib.suppress(Exception):
                await sender
            writer.close()

    def close(self) -> None:
        async def stop() -> None:
            self._server.close()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
