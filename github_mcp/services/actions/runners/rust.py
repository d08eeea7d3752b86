"""`cargo test` (libtest) output."""

from __future__ import annotations

import shlex

from github_mcp.services.actions.runners.base import (
    Runner,
    TestCounts,
    TestFailure,
    make_message,
    seconds,
    to_int,
    unique,
)
from github_mcp.services.actions.runners.linear import compile_linear

_SIG = compile_linear(
    r"^test result: (?:ok|FAILED)\. \d+ passed|^---- \S+ stdout ----$|^running \d+ tests?$"
)
_RUNNING = compile_linear(r"^\s*(?:Running (?:unittests )?(\S+) \(\S+\)|Doc-tests \S+)$")
_STATUS = compile_linear(r"^test (.+?) \.\.\. (FAILED|ok|ignored)\b")
_BLOCK = compile_linear(r"^---- (.+?) stdout ----$")
# Rust >= 1.73: "thread 'name' (123) panicked at src/lib.rs:26:9:" then the message.
_PANIC_AT = compile_linear(r"^thread '[^']*'(?: \(\d+\))? panicked at (\S+?):(\d+):(\d+):$")
# Older: "thread 'name' panicked at 'message', src/lib.rs:26:9".
_PANIC_OLD = compile_linear(r"^thread '[^']*'(?: \(\d+\))? panicked at '(.*)', (\S+?):(\d+):(\d+)$")
_RESULT = compile_linear(
    r"^test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored;"
    r" \d+ measured; \d+ filtered out(?:; finished in ([\d.]+)s)?"
)
_INTEGRATION_SOURCE = compile_linear(r"tests/([\w-]+)\.rs")
_BINARY_SOURCE = compile_linear(r"src/bin/([\w-]+)\.rs")
_MESSAGE_END = compile_linear(r"^(?:note: |stack backtrace:|\s+\d+: |\s+at )")


def _parse_block(name: str, body: list[str], target: str | None) -> TestFailure:
    file = line = None
    message: list[str] = []
    in_panic = False
    for text in body:
        new = _PANIC_AT.match(text)
        old = _PANIC_OLD.match(text)
        if new:
            message, file, line, in_panic = [], new.group(1), int(new.group(2)), True
        elif old:
            message, file, line = [old.group(1)], old.group(2), int(old.group(3))
            in_panic = True
        elif in_panic:
            if _MESSAGE_END.match(text):
                in_panic = False
            else:
                message.append(text)
    if file is None:  # e.g. a test returning Err(..): libtest prints `Error: ...`
        message = [t for t in body if t.strip()]
    return TestFailure(name, make_message(message), "cargo", file, line, target)


def cargo_failures(lines: list[str]) -> list[TestFailure]:
    out: list[TestFailure] = []
    target: str | None = None
    failed: list[tuple[str, str | None]] = []
    block: str | None = None
    body: list[str] = []

    def flush() -> None:
        if block is not None:
            out.append(_parse_block(block, body, target))

    for line in lines:
        running = _RUNNING.match(line)
        head = _BLOCK.match(line)
        status = _STATUS.match(line)
        if running or head or line == "failures:" or _RESULT.match(line):
            flush()
            block, body = (head.group(1) if head else None), []
            if running:
                target = running.group(1) or "doc"
        elif status and status.group(2) == "FAILED":
            failed.append((status.group(1), target))
        elif block is not None:
            body.append(line)
    flush()
    seen = {(f.test, f.suite) for f in out}
    for name, tgt in failed:  # a FAILED test without a stdout block
        if (name, tgt) not in seen:
            out.append(TestFailure(name, "", "cargo", None, None, tgt))
    return unique(out)


def cargo_counts(lines: list[str]) -> TestCounts | None:
    total: TestCounts | None = None
    for line in lines:
        result = _RESULT.match(line)
        if result:
            passed, failed, ignored, secs = result.groups()
            c = TestCounts(to_int(passed), to_int(failed), 0, to_int(ignored))
            c.duration_s = seconds(secs, "s") if secs else None
            total = c if total is None else total + c
    return total


def _target_args(source: str | None) -> list[str]:
    if not source:
        return []
    if source == "src/lib.rs":
        return ["--lib"]
    if source == "doc":
        return ["--doc"]
    integration = _INTEGRATION_SOURCE.fullmatch(source)
    if integration:
        return ["--test", integration.group(1)]
    binary = _BINARY_SOURCE.fullmatch(source)
    if binary:
        return ["--bin", binary.group(1)]
    return []


def cargo_rerun(failure: TestFailure) -> str | None:
    parts = ["cargo", "test", *_target_args(failure.suite), failure.test, "--", "--exact"]
    return " ".join(shlex.quote(p) for p in parts)


CARGO = Runner("cargo", _SIG, cargo_failures, cargo_counts, cargo_rerun)
