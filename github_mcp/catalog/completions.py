"""`completion/complete`: owners and repositories, branches, open pull requests and paths.

What is offered stays inside the allow-list and what the credentials can see (the
repositories GitHub lists for them, plus the allow-list's own names). Every lookup is a
cached GET (ETag-revalidated), and the whole answer has a latency budget: a completion
that would take longer answers with what it has, or nothing, rather than make the user
wait for a keystroke's worth of help.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from github_mcp.kernel.errors import GitHubMCPError
from github_mcp.kernel.params import check_full_name
from github_mcp.monitoring.observability import log_event
from github_mcp.services.shared.repo_facts import default_branch, repo_path, resolve_commit_sha

if TYPE_CHECKING:
    from github_mcp.pipeline.runtime import Runtime

MAX_VALUES = 100  # the protocol's cap on one answer
LIST_TTL_S = 60.0
PR_PROMPTS = {"fix_failing_ci", "address_review_comments"}


class Completer:
    def __init__(self, rt: Runtime, blob_template: str) -> None:
        self.rt = rt
        self.blob_template = blob_template

    async def __call__(self, ref: Any, argument: Any, context: Any) -> list[str]:
        values = dict(getattr(context, "arguments", None) or {})
        try:
            budget = self.rt.settings.completion_budget_seconds
            found = await asyncio.wait_for(self._complete(ref, argument, values), budget)
        except TimeoutError:
            log_event("completion_over_budget", argument=argument.name)
            return []
        except GitHubMCPError as exc:
            log_event("completion_failed", argument=argument.name, error_type=exc.code.value)
            return []
        return sorted(set(found))[:MAX_VALUES]

    async def _complete(self, ref: Any, argument: Any, values: dict[str, str]) -> list[str]:
        prefix = argument.value or ""
        name = argument.name
        uri = getattr(ref, "uri", None)
        if uri == self.blob_template:
            owner, repo = values.get("owner", ""), values.get("repo", "")
            if name == "owner":
                return [o for o in await self.owners() if o.lower().startswith(prefix.lower())]
            if name == "repo":
                names = await self.repositories(owner)
                return [n.split("/", 1)[1] for n in names if _starts(n.split("/", 1)[1], prefix)]
            full_name = self._allowed(f"{owner}/{repo}")
            if full_name is None:
                return []
            if name == "ref":
                return [b for b in await self.branches(full_name) if b.startswith(prefix)]
            if name == "path":
                at = values.get("ref") or await default_branch(self.rt.github, full_name)
                return await self.paths(full_name, at, prefix)
            return []
        prompt = getattr(ref, "name", None)
        if name == "pr" and prompt in PR_PROMPTS:
            return await self.pull_requests(prefix)
        if name == "full_name":
            return [n for n in await self.repositories() if _starts(n, prefix)]
        return []

    # -- sources -------------------------------------------------------------------
    async def visible(self) -> list[str]:
        """Repositories the credentials can see, within the allow-list, plus the
        allow-list's exact names."""
        github = self.rt.github
        listed = await github.get_json(
            "/user/repos", params={"per_page": 100, "sort": "pushed"}, ttl=LIST_TTL_S
        )
        names = {r["full_name"] for r in listed or [] if isinstance(r, dict) and "full_name" in r}
        names |= {e for e in self.rt.settings.allowlist if not e.endswith("/*")}
        return sorted(n for n in names if self.rt.gate.repo_allowed(n))

    async def owners(self) -> list[str]:
        owners = {n.split("/", 1)[0] for n in await self.visible()}
        owners |= {e[:-2] for e in self.rt.settings.allowlist if e.endswith("/*")}
        return sorted(owners)

    async def repositories(self, owner: str | None = None) -> list[str]:
        names = await self.visible()
        if owner:
            names = [n for n in names if n.split("/", 1)[0].lower() == owner.lower()]
        return names

    async def branches(self, full_name: str) -> list[str]:
        data = await self.rt.github.get_json(
            f"{repo_path(full_name)}/branches", params={"per_page": 100}, repo=full_name
        )
        return [b["name"] for b in data or [] if isinstance(b, dict) and b.get("name")]

    async def pull_requests(self, prefix: str) -> list[str]:
        """`owner/` then `owner/repo#` then `owner/repo#N` for open pull requests."""
        if "#" not in prefix:
            if "/" not in prefix:
                owners = await self.owners()
                return [f"{o}/" for o in owners if o.lower().startswith(prefix.lower())]
            return [f"{n}#" for n in await self.repositories() if _starts(n, prefix)]
        repo_part, _, number = prefix.partition("#")
        full_name = self._allowed(repo_part)
        if full_name is None:
            return []
        pulls = await self.rt.github.get_json(
            f"{repo_path(full_name)}/pulls",
            params={"state": "open", "per_page": 100},
            repo=full_name,
            ttl=LIST_TTL_S,
        )
        numbers = [str(p["number"]) for p in pulls or [] if isinstance(p, dict)]
        return [f"{repo_part}#{n}" for n in numbers if n.startswith(number)]

    async def paths(self, full_name: str, ref: str, prefix: str) -> list[str]:
        """Paths from the repository's tree at `ref` (cached), one level at a time:
        the entries directly under the typed directory, directories ending in '/'."""
        sha = await resolve_commit_sha(self.rt.github, full_name, ref)
        data = await self.rt.github.get_json(
            f"{repo_path(full_name)}/git/trees/{sha}",
            params={"recursive": "1"},
            repo=full_name,
            immutable=True,
        )
        base = prefix.rsplit("/", 1)[0] + "/" if "/" in prefix else ""
        out = []
        for entry in (data or {}).get("tree", []):
            path = entry.get("path", "")
            if not path.startswith(prefix) or not path.startswith(base):
                continue
            rest = path[len(base) :]
            if "/" in rest:
                continue  # deeper than the next level
            out.append(path + "/" if entry.get("type") == "tree" else path)
        return out

    def _allowed(self, full_name: str) -> str | None:
        try:
            check_full_name(full_name)
        except ValueError:
            return None
        return full_name if self.rt.gate.repo_allowed(full_name) else None


def _starts(value: str, prefix: str) -> bool:
    return value.lower().startswith(prefix.lower())
