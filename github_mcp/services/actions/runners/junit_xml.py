"""JUnit XML reports: pytest `--junitxml` and Maven Surefire `TEST-*.xml`."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET  # DTDs and entities are refused before parsing

from github_mcp.kernel.errors import invalid_input
from github_mcp.services.actions.runners.base import TestCounts, TestFailure, as_text, to_float
from github_mcp.services.actions.runners.java import java_message
from github_mcp.services.actions.runners.linear import compile_linear
from github_mcp.services.actions.runners.python import pytest_message

_FORBIDDEN = compile_linear(r"<!\s*(?:DOCTYPE|ENTITY)", re.IGNORECASE)
_PY_LOCATION = compile_linear(r"^(\S+?\.py):(\d+): ", re.MULTILINE)
_DECLARED_ENCODING = compile_linear(rb"<\?xml[^>]*encoding=[\"']([\w.-]+)")
_PARAMS = compile_linear(r"[(\[]")
_JAVA_FRAME = compile_linear(r"^\s+at ([\w.$]+)\.([\w$<>]+)\(([\w$.-]+):(\d+)\)$", re.MULTILINE)


def _decode(data: str | bytes) -> str:
    """Text of the document; str input lets the check below see what expat will see."""
    if isinstance(data, bytes | bytearray):
        raw = bytes(data)
        for bom, codec in ((b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16")):
            if raw.startswith(bom):
                return raw.decode(codec, "replace")
        declared = _DECLARED_ENCODING.match(raw.lstrip(b"\xef\xbb\xbf"))
        codec = declared.group(1).decode() if declared else "utf-8"
        try:
            return raw.decode(codec, "replace")
        except LookupError:
            return raw.decode("utf-8", "replace")
    return as_text(data)


def _tag(element: ET.Element) -> str:
    return element.tag.rpartition("}")[2]


def _read(data: str | bytes) -> tuple[ET.Element | None, list[ET.Element]]:
    """Parse incrementally so a truncated report still yields the test cases before the cut."""
    parser: ET.XMLPullParser[ET.Element] = ET.XMLPullParser(events=("start", "end"))
    root: ET.Element | None = None
    cases: list[ET.Element] = []
    try:
        parser.feed(data)
        parser.close()
    except ET.ParseError:
        pass
    try:
        for item in parser.read_events():
            event, element = item[0], item[-1]
            if not isinstance(element, ET.Element):  # start/end events carry an element
                continue
            if event == "start" and root is None:
                root = element
            elif event == "end" and _tag(element) == "testcase":
                cases.append(element)
    except ET.ParseError:
        pass
    return root, cases


def _flavour(root: ET.Element | None) -> str:
    if root is None:
        return "junit"
    suites = [root, *[e for e in root if _tag(e) == "testsuite"]]
    if any(e.get("name", "").startswith("pytest") for e in suites):
        return "pytest"
    if any("surefire" in value for value in root.attrib.values()):
        return "maven"
    return "junit"


def _pytest_failure(case: ET.Element, problem: ET.Element) -> TestFailure:
    classname, name = case.get("classname", ""), case.get("name", "")
    body = problem.text or ""
    module_file = case.get("file")
    locations = _PY_LOCATION.findall(body)
    if not module_file:
        # Prefer the location inside the module named by classname (a.b.test_x[.Class]).
        for path, _ in locations:
            dotted = path[:-3].replace("/", ".")
            if classname == dotted or classname.startswith(dotted + "."):
                module_file = path
                break
    line = None
    if module_file:
        own = [int(n) for p, n in locations if p == module_file]
        line = own[-1] if own else None
        dotted = module_file[:-3].replace("/", ".")
        classes = classname[len(dotted) + 1 :].split(".") if classname != dotted else []
        test = "::".join([module_file, *[c for c in classes if c], name])
    else:
        test = f"{classname}::{name}" if classname else name
    e_lines = [ln[1:] for ln in body.splitlines() if ln == "E" or ln.startswith("E ")]
    message = e_lines or (problem.get("message") or body).splitlines()
    return TestFailure(test, pytest_message(message), "pytest", module_file, line)


def _java_failure(case: ET.Element, problem: ET.Element, runner: str) -> TestFailure:
    classname, name = case.get("classname", ""), case.get("name", "")
    body = problem.text or ""
    head = body.split("\n\tat ", 1)[0].strip()
    if head:
        message = java_message(head.splitlines())
    else:
        kind = (problem.get("type") or "").rpartition(".")[2]
        text = problem.get("message") or ""
        message = java_message([f"{kind}: {text}" if kind and text else kind or text])
    method = _PARAMS.split(name, maxsplit=1)[0]
    file = line = None
    for cls, meth, fname, num in _JAVA_FRAME.findall(body):
        if cls == classname and meth == method:
            package = cls.rpartition(".")[0]
            file = f"{package.replace('.', '/')}/{fname}" if package else fname
            line = int(num)
            break
    test = f"{classname}.{name}" if classname else name
    return TestFailure(test, message, runner, file, line, classname or None)


def parse_junit_xml(xml: str | bytes) -> tuple[TestCounts, list[TestFailure]]:
    """Counts and failures from one JUnit XML document.

    Documents with a DTD or entity declarations are refused (`invalid_input`):
    the standard library parser would expand them.
    """
    text = _decode(xml)
    if _FORBIDDEN.search(text):
        raise invalid_input(
            "JUnit XML with a DOCTYPE or ENTITY declaration is refused",
            hint="test reports never need a DTD; pass the report as the runner wrote it",
        )
    root, cases = _read(text.lstrip("\ufeff"))
    flavour = _flavour(root)
    counts = TestCounts()
    failures: list[TestFailure] = []
    case_time = 0.0
    for case in cases:
        case_time += to_float(case.get("time")) or 0.0
        children = {_tag(child): child for child in case}
        problem = children.get("failure")
        if problem is None:
            problem = children.get("error")
        if problem is None:
            if "skipped" in children:
                counts.skipped += 1
            else:
                counts.passed += 1
            continue
        if _tag(problem) == "failure":
            counts.failed += 1
        else:
            counts.errors += 1
        if flavour == "pytest":
            failures.append(_pytest_failure(case, problem))
        else:
            failures.append(_java_failure(case, problem, flavour))
    total = to_float(root.get("time")) if root is not None else None
    if total is None and root is not None:
        total = sum(to_float(s.get("time")) or 0.0 for s in root if _tag(s) == "testsuite") or None
    counts.duration_s = round(total if total is not None else case_time, 3) if cases else total
    return counts, failures
