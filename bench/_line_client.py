"""Support for the benchmarks: an MCP client over stdio at the level of its lines.

One request line written, lines read until its answer; notifications and anything else
the server sends are skipped. It does nothing per answer beyond parsing its JSON, so the
client's share of a measured call is small and alike for both servers (fastmcp's Client
also validates every message against the protocol's pydantic models and post-processes
each result, work that varies with the answer's size and shape, on the client's side of
the clock).
Not a benchmark itself: running it does nothing.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

HANDSHAKE = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "bench-line-client", "version": "1"},
}


class LineClient:
    def __init__(self, process: asyncio.subprocess.Process, spawned: float) -> None:
        self.process = process
        self.next_id = 0
        self.spawned = spawned  # time.perf_counter() just before the spawn
        self.listed = spawned  # ... when the tools/list answer arrived

    @classmethod
    async def start(cls, command: list[str], env: dict[str, str], cwd: str) -> LineClient:
        """Spawn the server, initialize and list its tools, as a client does before its
        first call: nothing more, so a server that defers work pays for it in the calls."""
        spawned = time.perf_counter()
        process = await asyncio.create_subprocess_exec(
            *command, env=env, cwd=cwd, stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL, limit=2**24,
        )  # fmt: skip
        client = cls(process, spawned)
        await client.request("initialize", HANDSHAKE)
        assert process.stdin is not None
        process.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        await client.request("tools/list", {})
        client.listed = time.perf_counter()
        return client

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.next_id += 1
        line = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.process.stdin.write(json.dumps(line).encode() + b"\n")
        while True:
            answer = await self.process.stdout.readline()
            if not answer:
                raise RuntimeError(f"the server closed its output during {method}")
            message = json.loads(answer)
            if message.get("id") == self.next_id and "method" not in message:
                return message

    async def call_tool(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The tool call's result (`content`, `isError`, ...); a JSON-RPC error raises."""
        answer = await self.request("tools/call", {"name": tool, "arguments": arguments})
        if "error" in answer:
            raise RuntimeError(f"{tool}: {answer['error']}")
        result: dict[str, Any] = answer["result"]
        return result

    async def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        await self.process.wait()


if __name__ == "__main__":
    print("support module for the benchmarks; nothing to run")
