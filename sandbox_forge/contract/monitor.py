"""Every answer the forge gives, held against GitHub's descriptions while tests run.

Turned on by the environment, so forges started in-process and in child processes alike
check themselves: `SANDBOX_FORGE_CONTRACT_DIR` names a directory for the findings,
`SANDBOX_FORGE_OPENAPI` GitHub's OpenAPI description and `SANDBOX_FORGE_GRAPHQL_SCHEMA`
its GraphQL schema. When the directory is named but a description is missing, the forge
refuses to start: a check that is asked for is never silently off.

Findings are JSON lines in `<dir>/<pid>.violations.jsonl` (one per mismatch: the route,
the path asked, the status and the schema's complaint) and `<dir>/<pid>.reached.jsonl`
(each REST operation and status, and each GraphQL Type.field, the first time it is
answered). The test run reads them after each test and at the end.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Generic, TypeVar

from sandbox_forge.contract.graphql_answers import AnswerChecker, load_schema
from sandbox_forge.contract.openapi import ContractValidator, load_description

T = TypeVar("T")

ENV_DIR = "SANDBOX_FORGE_CONTRACT_DIR"
ENV_OPENAPI = "SANDBOX_FORGE_OPENAPI"
ENV_GRAPHQL = "SANDBOX_FORGE_GRAPHQL_SCHEMA"
GRAPHQL_PATHS = ("/graphql", "/api/graphql")


class ContractUnavailable(RuntimeError):
    """The check was asked for, but GitHub's descriptions are not where it was told."""


class _Built(Generic[T]):
    """One description parsed once per process, in a thread of its own (seconds of work),
    so a forge starts at once and its first check waits only for what is left."""

    def __init__(self, build: Callable[[], T], name: str) -> None:
        self._build, self._name = build, name
        self._value: T | None = None
        self._failure: BaseException | None = None
        self._done = threading.Event()
        self._started = False
        self._lock = threading.Lock()

    def start(self) -> None:
        with self._lock:
            if self._started:
                return
            self._started = True
        threading.Thread(target=self._run, name=self._name, daemon=True).start()

    def _run(self) -> None:
        try:
            self._value = self._build()
        except BaseException as exc:  # every check that waits for it reports it
            self._failure = exc
        finally:
            self._done.set()

    def ready(self) -> T:
        self.start()
        self._done.wait()
        if self._failure is not None:
            raise ContractUnavailable(f"GitHub's descriptions did not load: {self._failure}")
        assert self._value is not None
        return self._value


class _Checkers:
    """GitHub's two descriptions, shared by every forge of the process with the set of
    answers already checked. The REST one starts loading with the first forge; the GraphQL
    one (most of the parsing: ~0.8 s of CPU) only when an answer needs it, since most
    short-lived forge processes never answer GraphQL."""

    def __init__(self, openapi: Path, graphql_schema: Path):
        self.lock = threading.Lock()
        self.seen: set[str] = set()  # digests of answers already checked
        self.rest = _Built(lambda: ContractValidator(load_description(openapi)), "forge-openapi")
        self.graphql = _Built(
            lambda: AnswerChecker(load_schema(graphql_schema.read_text())), "forge-graphql"
        )
        self.rest.start()


_SHARED: dict[tuple[Path, Path], _Checkers] = {}
_SHARED_LOCK = threading.Lock()


def preload(openapi: Path, graphql_schema: Path) -> None:
    """Start parsing both of GitHub's descriptions now (a test run's long-lived workers do,
    before their first forge)."""
    _checkers(openapi, graphql_schema).graphql.start()


def _checkers(openapi: Path, graphql_schema: Path) -> _Checkers:
    key = (openapi.resolve(), graphql_schema.resolve())
    with _SHARED_LOCK:
        if key not in _SHARED:
            _SHARED[key] = _Checkers(*key)
        return _SHARED[key]


class ContractMonitor:
    def __init__(self, out_dir: Path, openapi: Path, graphql_schema: Path):
        for what, path in (("OpenAPI description", openapi), ("GraphQL schema", graphql_schema)):
            if not path.is_file():
                raise ContractUnavailable(
                    f"{ENV_DIR} asks the forge to check its answers, but GitHub's {what} "
                    f"is missing at {path} (make test fetches it into .cache/)"
                )
        self.out_dir = out_dir
        out_dir.mkdir(parents=True, exist_ok=True)
        self._shared = _checkers(openapi, graphql_schema)
        self._reached: set[str] = set()

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] = os.environ) -> ContractMonitor | None:
        out = environ.get(ENV_DIR)
        if not out:
            return None
        missing = [name for name in (ENV_OPENAPI, ENV_GRAPHQL) if not environ.get(name)]
        if missing:
            raise ContractUnavailable(f"{ENV_DIR} is set without {' and '.join(missing)}")
        return cls(Path(out), Path(environ[ENV_OPENAPI]), Path(environ[ENV_GRAPHQL]))

    # --- the two checks -------------------------------------------------------------------

    def rest(
        self,
        method: str,
        path: str,
        status: int,
        content_type: str,
        raw: bytes,
        crash: str = "",
        location: str = "",
    ) -> None:
        """One REST answer. `crash` names the exception when a handler failed (a 500);
        `location` is a redirect's Location header."""
        if path in GRAPHQL_PATHS:
            return  # checked as GraphQL, with the query it answers
        digest = _digest(method, path, status, content_type, raw)
        validator = self._shared.rest.ready()
        with self._shared.lock:
            if digest in self._shared.seen and not crash:
                return
            self._shared.seen.add(digest)
            op = validator.operation(method, path)
            route = op.route if op is not None else f"{method} {path}"
            record = {
                "method": method, "path": path, "status": status,
                "content_type": content_type, "body": _parsed(raw), "location": location,
            }  # fmt: skip
            problems = validator.validate(record)
        if crash:
            problems.append(f"{method} {path} -> {status}: the forge failed ({crash})")
        self._reach("rest", f"{route} {status}")
        for problem in problems:
            self._write("violations", {"kind": "rest", "route": route, "path": path,
                                       "status": status, "problem": problem})  # fmt: skip

    def graphql(self, payload: dict[str, Any], answer: dict[str, Any]) -> None:
        query = payload.get("query")
        text = json.dumps([query, payload.get("operationName"), answer], sort_keys=True)
        digest = hashlib.blake2b(text.encode(), digest_size=16).hexdigest()
        checker = self._shared.graphql.ready()
        with self._shared.lock:
            if digest in self._shared.seen:
                return
            self._shared.seen.add(digest)
            before = set(checker.reached)
            problems = checker.check(payload, answer)
            new = checker.reached - before
        for field in sorted(new):
            self._reach("graphql", field)
        head = " ".join(str(query or "").split())[:160]
        for problem in problems:
            self._write("violations", {"kind": "graphql", "route": "POST /graphql",
                                       "query": head, "problem": problem})  # fmt: skip

    # --- where findings go ----------------------------------------------------------------

    def _reach(self, kind: str, what: str) -> None:
        key = f"{kind} {what}"
        if key in self._reached:
            return
        self._reached.add(key)
        self._write("reached", {"kind": kind, "what": what})

    def _write(self, name: str, entry: dict[str, Any]) -> None:
        line = json.dumps(entry, default=str) + "\n"
        target = self.out_dir / f"{os.getpid()}.{name}.jsonl"
        with target.open("a", encoding="utf-8") as out:  # one small append per line
            out.write(line)


def _digest(method: str, path: str, status: int, content_type: str, raw: bytes) -> str:
    h = hashlib.blake2b(digest_size=16)
    h.update(f"{method} {path} {status} {content_type}\n".encode())
    h.update(raw)
    return h.hexdigest()


def _parsed(raw: bytes) -> Any:
    if not raw:
        return None
    try:  # JSON under any media type (application/json, vnd.github.object…)
        return json.loads(raw)
    except ValueError:
        return raw[:65536].decode("utf-8", "replace")
