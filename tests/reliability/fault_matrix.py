"""The fault matrix: every write tool x every request it makes x every fault the forge
injects, each cell judged from the forge's state (refs, pull requests, comments), never
from the tool's answer alone.

A cell is acceptable when it is
- "exactly once": the effect happened once and the tool said so (with matching SHAs/ids);
- "clean error": the tool said error and nothing changed;
- "partial, retry once": only for a tool of two steps (commit, then PR) whose second step
  failed: the error names exactly what exists, and a retry with the same arguments
  finishes the job, still exactly once.

The requests of each tool are discovered from the forge's request log of a clean run.
Used by tests/reliability/test_fault_matrix.py and bench/fault_matrix.py.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from fastmcp import Client

from github_mcp.pipeline.runtime import Runtime
from github_mcp.serving.server import build_mcp
from sandbox_forge import Forge
from sandbox_forge.admin.collab_seeding import create_issue, create_pull, repo_named
from sandbox_forge.admin.seeding import write_commit
from sandbox_forge.stores.collab import collab

ONCE = "exactly once"
CLEAN = "clean error"
PARTIAL_RETRIED = "partial, retry once"
ACCEPTED = (ONCE, CLEAN, PARTIAL_RETRIED)

# Fault kind -> the forge fault rule's fields (each rule fires once).
FAULT_KINDS: dict[str, dict[str, Any]] = {
    "500": {"status": 500},
    "502": {"status": 502},
    "503": {"status": 503},
    "502 after": {"status": 502, "phase": "after"},
    "drop before": {"drop_connection": True},
    "drop after": {"drop_connection": True, "phase": "after"},
    "latency": {"latency_ms": 150},
    "403 secondary": {"preset": "secondary_rate_limit", "retry_after": 0},
    "422": {"status": 422},
}

OWNER = "fault-matrix"
_CELL_NUMBERS = itertools.count(1)
_SHA = r"[0-9a-f]{40}"
_TOKEN = r"c\d{5}"


@dataclass(frozen=True)
class Snapshot:
    refs: dict[str, str]
    pulls: dict[int, tuple[str, bool, str, str | None]]  # state, merged, head, merge sha
    comments: dict[int, str]


def snapshot(forge: Forge, full_name: str) -> Snapshot:
    repo = repo_named(forge, full_name)
    refs = {name: sha for name, sha, _ in repo.git.list_refs("refs/heads/")}
    data = collab(repo)
    # An open PR's merge_commit_sha is its test merge, computed lazily on read: not a write.
    pulls = {
        n: (
            i.state,
            i.pull.merged,
            i.pull.head_ref,
            i.pull.merge_commit_sha if i.pull.merged else None,
        )
        for n, i in data.issues.items()
        if i.pull is not None
    }
    comments = {c.id: c.body for c in data.issue_comments.values()}
    return Snapshot(refs, pulls, comments)


def _rev_list(forge: Forge, full_name: str, old: str, new: str) -> list[str]:
    git = repo_named(forge, full_name).git
    return git.run("rev-list", f"{old}..{new}").decode().split()


def _parents(forge: Forge, full_name: str, sha: str) -> list[str]:
    return list(repo_named(forge, full_name).git.read_commit(sha).parents)


def _changed_refs(before: Snapshot, after: Snapshot) -> dict[str, tuple[str | None, str | None]]:
    names = set(before.refs) | set(after.refs)
    return {
        n: (before.refs.get(n), after.refs.get(n))
        for n in names
        if before.refs.get(n) != after.refs.get(n)
    }


def _new_pulls(before: Snapshot, after: Snapshot) -> dict[int, tuple[str, bool, str, str | None]]:
    return {n: p for n, p in after.pulls.items() if n not in before.pulls}


def _only(
    before: Snapshot, after: Snapshot, *, refs: bool = False, pulls: bool = False,
    comments: bool = False,
) -> str | None:  # fmt: skip
    """What changed that the tool should not have touched."""
    if not refs and before.refs != after.refs:
        return f"refs changed: {_changed_refs(before, after)}"
    if not pulls and before.pulls != after.pulls:
        return "pull requests changed"
    if not comments and before.comments != after.comments:
        return "comments changed"
    return None


# --- the tools under test ------------------------------------------------------------------


@dataclass
class Case:
    """One write tool: how to give a cell fresh state, and what exactly-once means for it."""

    tool: str
    prepare: Callable[[Forge, str, str], dict[str, Any]]  # (forge, repo, token) -> args
    check: Callable[[Forge, str, Snapshot, Snapshot, dict[str, Any], dict[str, Any]], str | None]
    # A two-step tool: the error names what the first step left (the retry finishes).
    reports_partial: bool = False
    seed: dict[str, str] = field(default_factory=lambda: {"README.md": "# matrix\n"})

    @property
    def repo(self) -> str:
        return f"{OWNER}/{self.tool.replace('_', '-')}"


def _main(forge: Forge, repo: str) -> str:
    sha = repo_named(forge, repo).git.read_ref("refs/heads/main")
    assert sha is not None
    return sha


def _branch_at_main(forge: Forge, repo: str, token: str) -> str:
    branch = f"fm-{token}"
    git = repo_named(forge, repo).git
    assert git.update_ref(f"refs/heads/{branch}", _main(forge, repo), None)
    return branch


def _branch_with_commit(forge: Forge, repo: str, token: str) -> str:
    branch = f"fm-{token}"
    git = repo_named(forge, repo).git
    write_commit(
        git, f"refs/heads/{branch}", {f"cells/{token}.txt": f"{token}\n"}, _main(forge, repo),
        f"prepare {token}",
    )  # fmt: skip
    return branch


def _one_commit(
    forge: Forge, repo: str, before: Snapshot, after: Snapshot, branch: str, sha: str | None
) -> str | None:
    """The branch moved by exactly one new commit, to `sha` (None: any)."""
    changed = _changed_refs(before, after)
    if set(changed) != {f"refs/heads/{branch}"}:
        return f"refs changed: {changed}"
    old, new = changed[f"refs/heads/{branch}"]
    assert new is not None
    made = _rev_list(forge, repo, old or _main(forge, repo), new)
    if len(made) != 1:
        return f"{len(made)} commits instead of one"
    if sha is not None and new != sha:
        return f"answer names {sha[:12]}, branch is at {new[:12]}"
    return None


def _prepare_commit_files(forge: Forge, repo: str, token: str) -> dict[str, Any]:
    return {
        "full_name": repo,
        "branch": _branch_at_main(forge, repo, token),
        "message": f"cell {token}",
        "files": [
            {"path": f"cells/{token}.txt", "content": f"{token}\n"},
            {"path": "README.md", "content": f"# matrix {token}\n"},
        ],
    }


def _check_commit(forge, repo, before, after, args, result) -> str | None:
    if result.get("status") != "committed":
        return f"status {result.get('status')}"
    if problem := _only(before, after, refs=True):
        return problem
    return _one_commit(forge, repo, before, after, args["branch"], result["commit_sha"])


def _prepare_text_update(forge: Forge, repo: str, token: str) -> dict[str, Any]:
    return {
        "full_name": repo,
        "branch": _branch_at_main(forge, repo, token),
        "path": "README.md",
        "new_content": f"# matrix {token}\n",
        "message": f"cell {token}",
    }


def _prepare_create_branch(forge: Forge, repo: str, token: str) -> dict[str, Any]:
    return {"full_name": repo, "branch": f"fm-{token}", "from_ref": "main"}


def _check_create_branch(forge, repo, before, after, args, result) -> str | None:
    if problem := _only(before, after, refs=True):
        return problem
    want = {f"refs/heads/{args['branch']}": (None, _main(forge, repo))}
    if _changed_refs(before, after) != want:
        return f"refs changed: {_changed_refs(before, after)}"
    if result.get("sha") != _main(forge, repo) or result.get("branch") != args["branch"]:
        return f"answer {result} disagrees"
    return None


def _prepare_open_pr(forge: Forge, repo: str, token: str) -> dict[str, Any]:
    return {
        "full_name": repo,
        "branch": f"fm-{token}",
        "files": [{"path": f"cells/{token}.txt", "content": f"{token}\n"}],
        "title": f"cell {token}",
        "message": f"cell {token}",
        "base": "main",
    }


def _check_open_pr(forge, repo, before, after, args, result) -> str | None:
    if problem := _only(before, after, refs=True, pulls=True):
        return problem
    if problem := _one_commit(
        forge, repo, before, after, args["branch"], result["commit"]["commit_sha"]
    ):
        return problem
    return _one_new_pr(before, after, args["branch"], result.get("pull_request"))


def _one_new_pr(before, after, branch: str, answer: dict[str, Any] | None) -> str | None:
    fresh = _new_pulls(before, after)
    if len(fresh) != 1 or {p[2] for p in fresh.values()} != {branch}:
        return f"{len(fresh)} new pull requests"
    if any(n in before.pulls and before.pulls[n] != p for n, p in after.pulls.items()):
        return "an existing pull request changed"
    if not answer or answer.get("number") not in fresh:
        return f"answer {answer} names another pull request"
    return None


def _prepare_create_pr(forge: Forge, repo: str, token: str) -> dict[str, Any]:
    return {
        "full_name": repo,
        "head": _branch_with_commit(forge, repo, token),
        "base": "main",
        "title": f"cell {token}",
    }


def _check_create_pr(forge, repo, before, after, args, result) -> str | None:
    if problem := _only(before, after, pulls=True):
        return problem
    return _one_new_pr(before, after, args["head"], result)


def _prepare_merge(forge: Forge, repo: str, token: str) -> dict[str, Any]:
    branch = _branch_with_commit(forge, repo, token)
    number = create_pull(forge, repo, branch, "main", f"cell {token}")["number"]
    return {"full_name": repo, "number": number}


def _check_merge(forge, repo, before, after, args, result) -> str | None:
    if problem := _only(before, after, refs=True, pulls=True):
        return problem
    changed = _changed_refs(before, after)
    if set(changed) != {"refs/heads/main"}:
        return f"refs changed: {changed}"
    old, new = changed["refs/heads/main"]
    number = args["number"]
    state = after.pulls.get(number)
    if state is None or not state[1] or state[3] != new:
        return f"PR #{number} is {state}, main at {new}"
    others = {n: p for n, p in after.pulls.items() if n != number}
    if others != {n: p for n, p in before.pulls.items() if n != number}:
        return "another pull request changed"
    head_sha = before.refs[f"refs/heads/{state[2]}"]
    if new is None or _parents(forge, repo, new) != [old, head_sha]:
        return "main did not get exactly one merge commit"
    if result.get("merged") is not True or result.get("sha") != new:
        return f"answer {result} disagrees"
    return None


def _prepare_comment(forge: Forge, repo: str, token: str) -> dict[str, Any]:
    data = collab(repo_named(forge, repo))
    issues = [i.number for i in data.issues.values() if i.pull is None]
    number = issues[0] if issues else create_issue(forge, repo, "Fault matrix")["number"]
    return {"full_name": repo, "number": number, "body": f"comment {token}"}


def _check_comment(forge, repo, before, after, args, result) -> str | None:
    if problem := _only(before, after, comments=True):
        return problem
    fresh = {i: b for i, b in after.comments.items() if i not in before.comments}
    if list(fresh.values()) != [args["body"]] or len(after.comments) != len(before.comments) + 1:
        return f"{len(fresh)} new comments"
    if result.get("id") not in fresh:
        return f"answer {result} names another comment"
    return None


CASES: dict[str, Case] = {
    c.tool: c
    for c in [
        Case("commit_files", _prepare_commit_files, _check_commit),
        Case("create_branch", _prepare_create_branch, _check_create_branch),
        Case("apply_text_update_and_commit", _prepare_text_update, _check_commit),
        Case("update_files_and_open_pr", _prepare_open_pr, _check_open_pr, reports_partial=True),
        Case("create_pull_request", _prepare_create_pr, _check_create_pr),
        Case("merge_pull_request", _prepare_merge, _check_merge),
        Case("comment_on_issue", _prepare_comment, _check_comment),
    ]
}


# --- running cells -------------------------------------------------------------------------


@dataclass(frozen=True)
class Request:
    method: str
    pattern: str  # anchored regex over the request path
    label: str  # readable: "POST /git/trees"


@dataclass
class CellResult:
    tool: str
    request: str
    fault: str
    outcome: str
    detail: str = ""

    @property
    def accepted(self) -> bool:
        return self.outcome in ACCEPTED


def request_of(method: str, path: str, repo: str) -> Request:
    """A request of a clean run, generalised over what differs between cells."""
    parts = re.split(rf"({_SHA}|{_TOKEN}|(?<=/)\d+(?=/|$))", path)
    regex, label = [], []
    for i, part in enumerate(parts):
        if i % 2 == 0:
            regex.append(re.escape(part))
            label.append(part)
        elif re.fullmatch(_TOKEN, part):
            regex.append(_TOKEN)
            label.append("{cell}")
        elif re.fullmatch(_SHA, part):
            regex.append(_SHA)
            label.append("{sha}")
        else:
            regex.append(r"\d+")
            label.append("{n}")
    readable = "".join(label).replace(f"/repos/{repo}", "", 1) or "/"
    return Request(method, "^" + "".join(regex) + "$", f"{method} {readable}")


class MatrixRunner:
    """Runs the cells of one tool against a forge, through one MCP client."""

    def __init__(self, forge: Forge, case: Case, client: Client, rt: Runtime) -> None:
        self.forge, self.case, self.client, self.rt = forge, case, client, rt

    @staticmethod
    def _token() -> str:
        return f"c{next(_CELL_NUMBERS):05d}"  # repos are shared: names stay unique

    async def _call(self, args: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
        self.rt.cache.clear()  # every cell makes the requests of the clean run
        result = await self.client.call_tool(self.case.tool, args, raise_on_error=False)
        return result.is_error, result.structured_content or {}

    async def discover(self) -> list[Request]:
        """The distinct requests of a clean run, in order."""
        repo = self.case.repo
        args = self.case.prepare(self.forge, repo, self._token())
        before = snapshot(self.forge, repo)
        self.forge.clear_requests()
        is_error, result = await self._call(args)
        log = _settled(self.forge)
        after = snapshot(self.forge, repo)
        outcome, detail = self._classify(before, after, args, is_error, result)
        if outcome != ONCE:
            raise AssertionError(f"clean run of {self.case.tool}: {outcome} {detail}")
        seen: dict[tuple[str, str], Request] = {}
        for entry in log:
            if entry.get("kind") == "admin":
                continue
            req = request_of(entry["method"], entry["path"], repo)
            seen.setdefault((req.method, req.pattern), req)
        return list(seen.values())

    async def cell(self, request: Request, fault: str) -> CellResult:
        repo, forge = self.case.repo, self.forge
        args = self.case.prepare(forge, repo, self._token())
        before = snapshot(forge, repo)
        rule = forge.add_fault(
            method=request.method, path=request.pattern, times=1, **FAULT_KINDS[fault]
        )
        try:
            is_error, result = await self._call(args)
        finally:
            unfired = forge.remove_fault(rule)  # True: it was still waiting
        after = snapshot(forge, repo)
        if unfired:
            outcome, detail = "fault did not fire", ""
        else:
            outcome, detail = self._classify(before, after, args, is_error, result)
            if outcome == "partial" and self.case.reports_partial:
                outcome, detail = await self._retry(before, args, result)
        return CellResult(self.case.tool, request.label, fault, outcome, detail)

    def _classify(
        self,
        before: Snapshot,
        after: Snapshot,
        args: dict[str, Any],
        is_error: bool,
        result: dict[str, Any],
    ) -> tuple[str, str]:
        if is_error:
            if before == after:
                return CLEAN, result.get("error", {}).get("code", "")
            if self.case.reports_partial and self._names_what_exists(after, args, result):
                return "partial", ""
            return "error, but the write happened", f"{_diff(before, after)}: {result.get('error')}"
        problem = self.case.check(self.forge, self.case.repo, before, after, args, result)
        if problem is None:
            return ONCE, ""
        return "said done, but " + problem, ""

    def _names_what_exists(self, after: Snapshot, args: dict[str, Any], result: dict) -> bool:
        error = result.get("error", {})
        branch_sha = after.refs.get(f"refs/heads/{args.get('branch')}")
        return error.get("branch") == args.get("branch") and error.get("commit_sha") == branch_sha

    async def _retry(
        self, before: Snapshot, args: dict[str, Any], first: dict[str, Any]
    ) -> tuple[str, str]:
        is_error, result = await self._call(args)
        after = snapshot(self.forge, self.case.repo)
        if is_error:
            return "partial, retry failed", str(result.get("error"))[:300]
        problem = self.case.check(self.forge, self.case.repo, before, after, args, result)
        if problem is not None:
            return "partial, retry made " + problem, ""
        if result["commit"]["commit_sha"] != first["error"]["commit_sha"]:
            return "partial, retry committed again", ""
        return PARTIAL_RETRIED, first["error"]["code"]


def _diff(before: Snapshot, after: Snapshot) -> str:
    pulls = {
        n: (before.pulls.get(n), p) for n, p in after.pulls.items() if before.pulls.get(n) != p
    }
    comments = len(after.comments) - len(before.comments)
    return f"refs {_changed_refs(before, after)}, pulls {pulls}, comments {comments:+d}"


def _settled(forge: Forge) -> list[dict[str, Any]]:
    from tests.conftest import settled_requests

    return settled_requests(forge)


def seed_repos(forge: Forge, tools: list[str]) -> None:
    for tool in tools:
        case = CASES[tool]
        owner, name = case.repo.split("/")
        if forge.state.repo(owner, name) is None:
            forge.seed_repo(case.repo, case.seed, branches={})


async def run_tool(
    forge: Forge,
    tool: str,
    make_runtime: Callable[[], Runtime] | Callable[[], Awaitable[Runtime]],
    faults: list[str] | None = None,
    discovered: dict[str, list[Request]] | None = None,
) -> list[CellResult]:
    """Every request of `tool` x every fault kind (or the given ones). `discovered` keeps
    each tool's clean-run requests for later calls on the same forge (the clean run is the
    same every time; the cells still each get fresh state and a fault of their own)."""
    seed_repos(forge, [tool])
    rt = make_runtime()
    if not isinstance(rt, Runtime):
        rt = await rt
    async with Client(build_mcp(rt)) as client:
        runner = MatrixRunner(forge, CASES[tool], client, rt)
        requests = (discovered or {}).get(tool) or await runner.discover()
        if discovered is not None:
            discovered[tool] = requests
        return [
            await runner.cell(request, fault)
            for request in requests
            for fault in faults or list(FAULT_KINDS)
        ]


def table(results: list[CellResult]) -> str:
    """Outcome counts per tool x fault kind, as a Markdown table."""
    faults = list(dict.fromkeys(r.fault for r in results))
    tools = list(dict.fromkeys(r.tool for r in results))
    short = {ONCE: "once", CLEAN: "clean", PARTIAL_RETRIED: "partial+retry"}
    lines = [
        "| tool | requests | " + " | ".join(faults) + " |",
        "|---|---:|" + "---|" * len(faults),
    ]
    for tool in tools:
        mine = [r for r in results if r.tool == tool]
        cells = []
        for fault in faults:
            counts = Counter(short.get(r.outcome, "FAIL") for r in mine if r.fault == fault)
            cells.append(", ".join(f"{n} {k}" for k, n in sorted(counts.items())))
        requests = len({r.request for r in mine})
        lines.append(f"| {tool} | {requests} | " + " | ".join(cells) + " |")
    totals = Counter(r.outcome if r.accepted else "FAIL" for r in results)
    lines.append("")
    lines.append(
        f"{len(results)} cells: "
        + ", ".join(f"{n} {k}" for k, n in sorted(totals.items(), key=lambda kv: -kv[1]))
    )
    return "\n".join(lines)
