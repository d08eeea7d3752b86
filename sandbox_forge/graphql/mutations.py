"""GraphQL mutations: resolving and unresolving review threads, replying to one, and
`createCommitOnBranch` (a compare-and-swap on the branch, like GitHub's)."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from sandbox_forge.git.pulls import web_flow_signature
from sandbox_forge.git.store import FORGE_SIGNATURE, GitError, Signature, TreeChange
from sandbox_forge.graphql.context import Context, GQLFailure
from sandbox_forge.graphql.git_objects import CommitView
from sandbox_forge.graphql.resolvers import find_thread
from sandbox_forge.graphql.views import CommentView, RefView, ThreadView, parse_ref_id
from sandbox_forge.rest.auth import repo_role
from sandbox_forge.rules.enforce import check_update, refusal
from sandbox_forge.stores.collab import collab
from sandbox_forge.stores.lookups import repo_by_id
from sandbox_forge.stores.pull_heads import live_head
from sandbox_forge.stores.records import RefUpdate, RepoRecord
from sandbox_forge.stores.reviews import reply, set_resolved, thread_outdated


def _set_thread(info: Any, input: dict[str, Any], resolved: bool, mutation: str) -> dict[str, Any]:
    ctx: Context = info.context
    repo, thread = find_thread(ctx, input["threadId"])
    ctx.require_write(repo, mutation)
    set_resolved(ctx.state, thread, resolved, ctx.principal.login)
    return {
        "clientMutationId": input.get("clientMutationId"),
        "thread": ThreadView(ctx, repo, thread),
    }


def resolve_thread(root: Any, info: Any, input: dict[str, Any]) -> dict[str, Any]:
    return _set_thread(info, input, True, "ResolveReviewThread")


def unresolve_thread(root: Any, info: Any, input: dict[str, Any]) -> dict[str, Any]:
    return _set_thread(info, input, False, "UnresolveReviewThread")


def add_thread_reply(root: Any, info: Any, input: dict[str, Any]) -> dict[str, Any]:
    ctx: Context = info.context
    repo, thread = find_thread(ctx, input["pullRequestReviewThreadId"])
    ctx.require_write(repo, "AddPullRequestReviewThreadReply")
    if not input["body"].strip():
        raise GQLFailure("UNPROCESSABLE", "Body can't be blank")
    data = collab(repo)
    issue = data.issues[thread.number]
    with ctx.state.lock:
        comment = reply(
            ctx.state,
            repo,
            issue,
            ctx.principal.login or "",
            input["body"],
            data.review_comments[thread.comment_ids[0]],
        )
    outdated = thread_outdated(repo, thread, live_head(repo, issue))
    return {
        "clientMutationId": input.get("clientMutationId"),
        "comment": CommentView(ctx, repo, comment, outdated),
    }


def _branch_target(ctx: Context, branch: dict[str, Any]) -> tuple[RepoRecord, str]:
    if branch.get("id"):
        parsed = parse_ref_id(branch["id"])
        repo = repo_by_id(ctx.state, parsed[0]) if parsed else None
        if parsed is None or not ctx.readable(repo):
            raise GQLFailure(
                "NOT_FOUND", f"Could not resolve to a node with the global id of '{branch['id']}'"
            )
        assert repo is not None
        return repo, parsed[1]
    name_with_owner, name = branch.get("repositoryNameWithOwner"), branch.get("branchName")
    if not name_with_owner or not name:
        raise GQLFailure(
            "UNPROCESSABLE",
            "Either the branch id or both repositoryNameWithOwner and branchName are required",
        )
    owner, _, repo_name = name_with_owner.partition("/")
    repo = ctx.state.repo(owner, repo_name)
    if not ctx.readable(repo):
        raise GQLFailure(
            "NOT_FOUND", f"Could not resolve to a Repository with the name '{name_with_owner}'."
        )
    assert repo is not None
    qualified = name if name.startswith("refs/") else f"refs/heads/{name}"
    return repo, qualified


def _file_changes(git: Any, head: str, files: dict[str, Any]) -> list[TreeChange]:
    """The tree changes a createCommitOnBranch's fileChanges ask for, deletions first."""
    changes: list[TreeChange] = []
    for deletion in files.get("deletions") or []:
        path = deletion["path"].strip("/")
        if git.entry_at(head, path) is None:
            raise GQLFailure(
                "UNPROCESSABLE",
                f"A path was requested for deletion which does not exist as of commit oid `{head}`",
            )
        changes.append(TreeChange(path, sha=None))
    for addition in files.get("additions") or []:
        path = addition["path"].strip("/")
        try:
            content = base64.b64decode(addition["contents"], validate=True)
        except (binascii.Error, ValueError):
            raise GQLFailure(
                "UNPROCESSABLE", f"The contents of {path} are not valid base64"
            ) from None
        current = git.entry_at(head, path)
        mode = current.mode if current is not None and current.type == "blob" else "100644"
        changes.append(TreeChange(path, mode, git.write_blob(content)))
    return changes


def _commit_message(message: dict[str, Any]) -> str:
    text = str(message["headline"]).strip()
    if not text:
        raise GQLFailure("UNPROCESSABLE", "A commit message headline is required")
    if message.get("body"):
        text += "\n\n" + message["body"].strip("\n")
    return text


def create_commit_on_branch(root: Any, info: Any, input: dict[str, Any]) -> dict[str, Any]:
    ctx: Context = info.context
    repo, qualified = _branch_target(ctx, input["branch"])
    ctx.require_write(repo, "CreateCommitOnBranch")
    git = repo.git
    head = git.read_ref(qualified)
    if head is None:
        raise GQLFailure("NOT_FOUND", f"Could not resolve to a Ref with the name '{qualified}'.")
    expected = input["expectedHeadOid"]
    if expected != head:
        raise GQLFailure(
            "STALE_DATA",
            f'Expected branch to point to "{expected}" but it did not. Pull and try again.',
        )
    changes = _file_changes(git, head, input.get("fileChanges") or {})
    text = _commit_message(input["message"])
    user = ctx.state.ensure_user(ctx.principal.login or "")
    committer = web_flow_signature()
    author = Signature(
        user.name or user.login,
        user.email or f"{user.login}@users.noreply.sandbox",
        committer.timestamp,
    )
    try:
        tree = git.build_tree(git.read_commit(head).tree, changes)
    except GitError as exc:
        raise GQLFailure(
            "UNPROCESSABLE", f"The file changes could not be applied: {exc.stderr.strip()}"
        ) from None
    sha = git.create_commit(tree, [head], text + "\n", author, committer, FORGE_SIGNATURE)
    found = check_update(repo, qualified, head, sha, repo_role(ctx.principal, repo))
    if found:  # GitHub's words for the REST refusal, as a GraphQL error; the ref stays
        raise GQLFailure("UNPROCESSABLE", refusal(found, 422, "").message)
    if not git.update_ref(qualified, sha, head):
        raise GQLFailure(
            "STALE_DATA",
            f'Expected branch to point to "{expected}" but it did not. Pull and try again.',
        )
    ctx.state.fire_ref_update(RefUpdate(repo.full_name, qualified, head, sha, "api"))
    return {
        "clientMutationId": input.get("clientMutationId"),
        "commit": CommitView(ctx, repo, sha),
        "ref": RefView(ctx, repo, qualified, sha),
    }
