"""Pull requests: create, read (JSON, diff, patch), list, update, files, commits, and
mergeability computed lazily with `git merge-tree`, as GitHub computes it in the background.

After a change to the head or base, GETs answer `mergeable: null` (state "unknown") a
configurable number of times (default once) before the computed answer appears.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from .api import Ctx, Urls, endpoint
from .auth import Principal
from .collab_store import (
    Issue,
    Pull,
    actor_login,
    author_association,
    collab,
    ensure_label,
    get_pull,
    iso_or_none,
    label_json,
    node_id,
    now,
    settings,
    sync_open_count,
    user_json,
    user_or_none,
)
from .errors import ApiError, json_response, missing_field, validation_failed
from .gitshapes import diff_entry, rest_commit
from .pulls_git import (
    branch_tips,
    commit_range,
    diff_base,
    live_base,
    live_head,
    merge_tree,
    web_flow_signature,
)
from .routes_commits import text_response
from .routes_issues import apply_issue_update, check_body, check_title
from .routes_protection import evaluate, unstable
from .shapes import iso, repo_json
from .state import ForgeState, RefUpdate, RepoRecord

MAX_FILES = 3000
MAX_COMMITS = 250


# --- mergeability ---------------------------------------------------------------------------


def _delay(state: ForgeState, pull: Pull) -> int:
    return pull.delay if pull.delay is not None else int(settings(state)["mergeability_delay"])


def compute_mergeability(
    state: ForgeState, repo: RepoRecord, issue: Issue, head: str, base: str
) -> None:
    """Trial-merge head into base; remember the answer, conflicts and test merge commit."""
    pull = issue.pull
    assert pull is not None
    result = merge_tree(repo.git, base, head)
    merge_ref = f"refs/pull/{issue.number}/merge"
    test_merge = None
    if result.clean:
        assert result.tree is not None
        sig = web_flow_signature()
        message = f"Merge {head} into {base}\n"
        test_merge = repo.git.create_commit(result.tree, [base, head], message, sig, sig)
        repo.git.force_ref(merge_ref, test_merge)
    else:
        current = repo.git.read_ref(merge_ref)
        if current is not None:
            repo.git.delete_ref(merge_ref, current)
    with state.lock:
        pull.mergeable = result.clean
        pull.rebaseable = result.clean
        pull.conflicts = list(result.conflicts)
        pull.merge_commit_sha = test_merge
        pull.known_for = [head, base]


def mergeability(
    state: ForgeState, repo: RepoRecord, issue: Issue, *, count_get: bool
) -> tuple[bool | None, bool | None, str]:
    """(mergeable, rebaseable, mergeable_state) as a GET shows them now."""
    pull = issue.pull
    assert pull is not None
    if issue.state != "open":
        return None, None, "unknown"
    tips = branch_tips(repo)
    head, base = live_head(repo, issue, tips), live_base(repo, issue, tips)
    key = [head, base]
    with state.lock:
        if pull.known_for != key:
            if pull.pending_key != key:
                pull.pending_key = key
                pull.pending_gets = _delay(state, pull)
            if not count_get:
                return None, None, "unknown"
            if pull.pending_gets > 0:
                pull.pending_gets -= 1
                return None, None, "unknown"
    if pull.known_for != key:
        compute_mergeability(state, repo, issue, head, base)
    return pull.mergeable, pull.rebaseable, merge_state(repo, issue, head, base)


def merge_state(repo: RepoRecord, issue: Issue, head: str, base: str) -> str:
    pull = issue.pull
    assert pull is not None
    if pull.mergeable is False:
        return "dirty"
    if pull.draft:
        return "draft"
    verdict = evaluate(repo, issue, head, base)
    if verdict.blocked:
        return "blocked"
    if verdict.behind:
        return "behind"
    if unstable(repo, issue, head):
        return "unstable"
    return "clean"


def conflicts_now(state: ForgeState, repo: RepoRecord, issue: Issue) -> dict[str, Any]:
    """The trial merge's verdict right now (for the admin API and tests)."""
    tips = branch_tips(repo)
    head, base = live_head(repo, issue, tips), live_base(repo, issue, tips)
    result = merge_tree(repo.git, base, head)
    return {
        "number": issue.number,
        "head": head,
        "base": base,
        "mergeable": result.clean,
        "conflicts": list(result.conflicts),
    }


# --- shapes ---------------------------------------------------------------------------------


def _branch_end(
    state: ForgeState, urls: Urls, repo: RepoRecord, repo_data: dict[str, Any], ref: str, sha: str
) -> dict[str, Any]:
    return {
        "label": f"{repo.owner}:{ref}",
        "ref": ref,
        "sha": sha,
        "user": user_json(state, urls, repo.owner),
        "repo": repo_data,
    }


def pull_json(
    state: ForgeState,
    urls: Urls,
    principal: Principal,
    repo: RepoRecord,
    issue: Issue,
    merge_info: tuple[bool | None, bool | None, str] | None = None,
) -> dict[str, Any]:
    """GitHub's pull-request shape; with merge_info, the full one (GET /pulls/{n})."""
    pull = issue.pull
    assert pull is not None
    api = urls.repo(repo.full_name)
    html = urls.repo_html(repo.full_name)
    n = issue.number
    tips = branch_tips(repo)
    head, base = live_head(repo, issue, tips), live_base(repo, issue, tips)
    assignees = [user_json(state, urls, login) for login in issue.assignees]
    repo_data = repo_json(state, urls, repo, principal)  # head and base: the same repository
    links = {
        "self": f"{api}/pulls/{n}",
        "html": f"{html}/pull/{n}",
        "issue": f"{api}/issues/{n}",
        "comments": f"{api}/issues/{n}/comments",
        "review_comments": f"{api}/pulls/{n}/comments",
        "review_comment": f"{api}/pulls/comments{{/number}}",
        "commits": f"{api}/pulls/{n}/commits",
        "statuses": f"{api}/statuses/{head}",
    }
    data: dict[str, Any] = {
        "url": links["self"],
        "id": issue.id,
        "node_id": node_id("PR", repo, issue.id),
        "html_url": links["html"],
        "diff_url": f"{html}/pull/{n}.diff",
        "patch_url": f"{html}/pull/{n}.patch",
        "issue_url": links["issue"],
        "commits_url": links["commits"],
        "review_comments_url": links["review_comments"],
        "review_comment_url": links["review_comment"],
        "comments_url": links["comments"],
        "statuses_url": links["statuses"],
        "number": n,
        "state": issue.state,
        "locked": issue.locked,
        "title": issue.title,
        "user": user_json(state, urls, issue.user),
        "body": issue.body,
        "labels": [
            label_json(urls, repo, ensure_label(state, repo, name)) for name in issue.labels
        ],
        "milestone": None,
        "active_lock_reason": None,
        "created_at": iso(issue.created_at),
        "updated_at": iso(issue.updated_at),
        "closed_at": iso_or_none(issue.closed_at),
        "merged_at": iso_or_none(pull.merged_at),
        "merge_commit_sha": pull.merge_commit_sha,
        "assignee": assignees[0] if assignees else None,
        "assignees": assignees,
        "requested_reviewers": [user_json(state, urls, u) for u in pull.requested_reviewers],
        "requested_teams": [],
        "head": _branch_end(state, urls, repo, repo_data, pull.head_ref, head),
        "base": _branch_end(state, urls, repo, repo_data, pull.base_ref, base),
        "_links": {name: {"href": href} for name, href in links.items()},
        "author_association": author_association(state, repo, issue.user),
        "auto_merge": None,
        "draft": pull.draft,
    }
    if merge_info is None:
        return data
    start = diff_base(repo.git, base, head)
    diffs = repo.git.diff(start, head)
    data.update(
        {
            "merged": pull.merged,
            "mergeable": merge_info[0],
            "rebaseable": merge_info[1],
            "mergeable_state": merge_info[2],
            "merged_by": user_or_none(state, urls, pull.merged_by),
            "comments": sum(1 for c in collab(repo).issue_comments.values() if c.number == n),
            "review_comments": sum(
                1 for c in collab(repo).review_comments.values() if c.number == n
            ),
            "maintainer_can_modify": pull.maintainer_can_modify,
            "commits": len(commit_range(repo.git, base, head)),
            "additions": sum(d.additions for d in diffs),
            "deletions": sum(d.deletions for d in diffs),
            "changed_files": len(diffs),
        }
    )
    return data


def full_json(ctx: Ctx, repo: RepoRecord, issue: Issue, *, count_get: bool) -> dict[str, Any]:
    info = mergeability(ctx.state, repo, issue, count_get=count_get)
    return pull_json(ctx.state, ctx.urls, ctx.principal, repo, issue, info)


# --- operations -----------------------------------------------------------------------------


def _custom(message: str) -> ApiError:
    return validation_failed({"resource": "PullRequest", "code": "custom", "message": message})


def _invalid(field: str) -> ApiError:
    return validation_failed({"resource": "PullRequest", "field": field, "code": "invalid"})


def open_pull_for(repo: RepoRecord, head: str, base: str) -> Issue | None:
    for issue in collab(repo).issues.values():
        pull = issue.pull
        if pull and issue.state == "open" and pull.head_ref == head and pull.base_ref == base:
            return issue
    return None


def create_pull(
    state: ForgeState,
    repo: RepoRecord,
    user: str,
    title: str,
    head: str,
    base: str,
    body: str | None = None,
    draft: bool = False,
    maintainer_can_modify: bool = False,
) -> Issue:
    """Open a pull request, with GitHub's validation (422s for the usual mistakes)."""
    owner, colon, branch = head.rpartition(":")
    if colon:
        if owner.lower() != repo.owner.lower():
            raise _invalid("head")
        head = branch
    head_sha = repo.git.read_ref(f"refs/heads/{head}")
    base_sha = repo.git.read_ref(f"refs/heads/{base}")
    if base_sha is None:
        raise _invalid("base")
    if head_sha is None:
        raise _invalid("head")
    with state.lock:
        if open_pull_for(repo, head, base) is not None:
            raise _custom(f"A pull request already exists for {repo.owner}:{head}.")
        if head == base or repo.git.is_ancestor(head_sha, base_sha):
            raise _custom(f"No commits between {base} and {head}")
        stamp = now()
        issue = Issue(
            number=repo.take_number(),
            id=state.next_id(),
            title=title,
            user=state.ensure_user(user).login,
            created_at=stamp,
            updated_at=stamp,
            body=body,
            pull=Pull(
                head_ref=head,
                base_ref=base,
                head_sha=head_sha,
                base_sha=base_sha,
                draft=draft,
                maintainer_can_modify=maintainer_can_modify,
            ),
        )
        collab(repo).issues[issue.number] = issue
        repo.git.force_ref(f"refs/pull/{issue.number}/head", head_sha)
        sync_open_count(repo)
        return issue


def freeze(repo: RepoRecord, issue: Issue) -> None:
    """Pin head and base to their current commits, as a PR keeps them once closed."""
    pull = issue.pull
    assert pull is not None
    tips = branch_tips(repo)
    pull.head_sha = tips.get(pull.head_ref, pull.head_sha)
    pull.base_sha = tips.get(pull.base_ref, pull.base_sha)


def mark_merged(
    repo: RepoRecord, issue: Issue, merge_sha: str, base_before: str, by: str | None
) -> None:
    pull = issue.pull
    assert pull is not None
    stamp = now()
    pull.merged, pull.merged_at, pull.merged_by = True, stamp, by
    pull.merge_commit_sha = merge_sha
    pull.base_sha = base_before
    pull.mergeable = pull.rebaseable = None
    pull.known_for = pull.pending_key = None
    issue.state, issue.state_reason = "closed", None
    issue.closed_at, issue.closed_by = stamp, by
    issue.updated_at = stamp
    sync_open_count(repo)


def on_ref_update(state: ForgeState, update: RefUpdate) -> None:
    """Follow pushes: a PR's head moves with its branch; a base that now contains the
    head marks the PR merged, as GitHub does for a manual merge pushed to the base."""
    if not update.ref.startswith("refs/heads/") or update.new is None:
        return
    repo = state.repos.get(update.repo.lower())
    if repo is None or "collab" not in repo.extra:
        return
    branch = update.ref[len("refs/heads/") :]
    with state.lock:
        for issue in list(collab(repo).issues.values()):
            pull = issue.pull
            if pull is None or issue.state != "open":
                continue
            if pull.head_ref == branch:
                pull.head_sha = update.new
                repo.git.force_ref(f"refs/pull/{issue.number}/head", update.new)
                issue.updated_at = now()
            if pull.base_ref == branch:
                before = pull.base_sha
                pull.base_sha = update.new
                if repo.git.is_ancestor(pull.head_sha, update.new):
                    mark_merged(repo, issue, update.new, before, None)


# --- endpoints ------------------------------------------------------------------------------


def _bool(body: dict[str, Any], name: str, default: bool = False) -> bool:
    value = body.get(name, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ApiError(
            422, f"Invalid request.\n\nFor 'properties/{name}', {value!r} is not a boolean."
        )
    return value


@endpoint
def create_pull_endpoint(ctx: Ctx):
    repo = ctx.repo(write=True)
    body = ctx.json()
    for name in ("head", "base"):
        if not isinstance(body.get(name), str) or not body[name]:
            raise missing_field(name)
    if body.get("title") is None and body.get("issue") is not None:
        raise _custom("Converting an issue into a pull request is not supported by the sandbox")
    issue = create_pull(
        ctx.state,
        repo,
        actor_login(ctx.principal),
        check_title(body.get("title")),
        body["head"],
        body["base"],
        check_body(body.get("body")),
        _bool(body, "draft"),
        _bool(body, "maintainer_can_modify"),
    )
    data = full_json(ctx, repo, issue, count_get=False)
    return json_response(data, status=201, headers={"location": data["url"]})


@endpoint
def get_pull_endpoint(ctx: Ctx):
    repo = ctx.repo()
    issue = get_pull(repo, ctx.params["number"])
    if ctx.media.param in ("diff", "patch"):
        tips = branch_tips(repo)
        head, base = live_head(repo, issue, tips), live_base(repo, issue, tips)
        start = diff_base(repo.git, base, head)
        if ctx.media.param == "diff":
            return text_response(repo.git.unified_diff(start, head), "diff")
        return text_response(repo.git.format_patch(f"{start}..{head}"), "patch")
    return json_response(full_json(ctx, repo, issue, count_get=True))


@endpoint
def list_pulls(ctx: Ctx):
    repo = ctx.repo()
    q = ctx.query
    wanted = q.get("state", "open")
    if wanted not in ("open", "closed", "all"):
        raise validation_failed({"resource": "PullRequest", "field": "state", "code": "invalid"})
    pulls = [
        i
        for i in collab(repo).issues.values()
        if i.pull is not None and (wanted == "all" or i.state == wanted)
    ]
    head = q.get("head")
    if head:
        owner, colon, branch = head.rpartition(":")
        if colon and owner.lower() != repo.owner.lower():
            pulls = []
        pulls = [i for i in pulls if i.pull and i.pull.head_ref == (branch if colon else head)]
    if q.get("base"):
        pulls = [i for i in pulls if i.pull and i.pull.base_ref == q["base"]]
    sort = q.get("sort", "created")
    direction = q.get("direction") or ("desc" if sort == "created" else "asc")

    def key(issue: Issue) -> tuple[float, int]:
        if sort == "updated":
            return issue.updated_at, issue.number
        if sort == "popularity":
            count = sum(1 for c in collab(repo).issue_comments.values() if c.number == issue.number)
            return count, issue.number
        if sort == "long-running":
            return now() - issue.created_at, issue.number
        return issue.created_at, issue.number

    pulls.sort(key=key, reverse=direction == "desc")
    return ctx.paginate(pulls, lambda i: pull_json(ctx.state, ctx.urls, ctx.principal, repo, i))


@endpoint
def update_pull(ctx: Ctx):
    repo = ctx.repo(write=True)
    issue = get_pull(repo, ctx.params["number"])
    pull = issue.pull
    assert pull is not None
    body = ctx.json()
    with ctx.state.lock:
        base = body.get("base")
        if base is not None:
            if not isinstance(base, str) or repo.git.read_ref(f"refs/heads/{base}") is None:
                raise _invalid("base")
            if base == pull.head_ref:
                raise _custom(f"No commits between {base} and {pull.head_ref}")
            if issue.state != "open":
                raise _custom("Cannot change the base branch of a closed pull request.")
        if body.get("state") == "open" and issue.state == "closed" and not pull.merged:
            if repo.git.read_ref(f"refs/heads/{pull.head_ref}") is None:
                raise _custom("state cannot be changed. The head branch has been deleted.")
            if open_pull_for(repo, pull.head_ref, base or pull.base_ref) is not None:
                raise _custom(f"A pull request already exists for {repo.owner}:{pull.head_ref}.")
        shared = {k: body[k] for k in ("title", "body", "state") if k in body}
        closing = shared.get("state") == "closed" and issue.state == "open"
        if closing:
            freeze(repo, issue)
        apply_issue_update(ctx, repo, issue, shared)
        if base is not None:
            pull.base_ref = base
            pull.base_sha = repo.git.read_ref(f"refs/heads/{base}") or pull.base_sha
        if "maintainer_can_modify" in body:
            pull.maintainer_can_modify = _bool(body, "maintainer_can_modify")
        issue.updated_at = now()
    return json_response(full_json(ctx, repo, issue, count_get=False))


@endpoint
def list_files(ctx: Ctx):
    repo = ctx.repo()
    issue = get_pull(repo, ctx.params["number"])
    tips = branch_tips(repo)
    head, base = live_head(repo, issue, tips), live_base(repo, issue, tips)
    diffs = repo.git.diff(diff_base(repo.git, base, head), head)[:MAX_FILES]
    return ctx.paginate(diffs, lambda d: diff_entry(ctx.urls, repo, head, d))


@endpoint
def list_commits(ctx: Ctx):
    repo = ctx.repo()
    issue = get_pull(repo, ctx.params["number"])
    tips = branch_tips(repo)
    head, base = live_head(repo, issue, tips), live_base(repo, issue, tips)
    shas = commit_range(repo.git, base, head)[:MAX_COMMITS]
    page, per_page = ctx.page()
    window = shas[(page - 1) * per_page : page * per_page]
    data = [rest_commit(ctx.state, ctx.urls, repo, info) for info in repo.git.read_commits(window)]
    return ctx.paged_response(data, page, per_page, len(shas))


@endpoint
def check_merged(ctx: Ctx):
    repo = ctx.repo()
    issue = get_pull(repo, ctx.params["number"])
    assert issue.pull is not None
    # GitHub documents both answers without a body.
    return Response(status_code=204 if issue.pull.merged else 404)


@endpoint
def list_requested_reviewers(ctx: Ctx):
    repo = ctx.repo()
    issue = get_pull(repo, ctx.params["number"])
    assert issue.pull is not None
    users = [user_json(ctx.state, ctx.urls, u) for u in issue.pull.requested_reviewers]
    return json_response({"users": users, "teams": []})


@endpoint
def request_reviewers(ctx: Ctx):
    repo = ctx.repo(write=True)
    issue = get_pull(repo, ctx.params["number"])
    pull = issue.pull
    assert pull is not None
    logins = ctx.json().get("reviewers") or []
    if not isinstance(logins, list):
        raise ApiError(422, "Invalid request.\n\nFor 'properties/reviewers', is not an array.")
    with ctx.state.lock:
        for login in logins:
            user = ctx.state.user(str(login))
            if user is None:
                raise validation_failed(
                    {
                        "resource": "PullRequest",
                        "code": "custom",
                        "field": "reviewers",
                        "message": "Reviews may only be requested from collaborators. One or more "
                        "of the users or teams you specified is not a collaborator of the "
                        f"{repo.full_name} repository.",
                    }
                )
            if user.login.lower() == issue.user.lower():
                raise _custom("Review cannot be requested from pull request author.")
            if user.login not in pull.requested_reviewers:
                pull.requested_reviewers.append(user.login)
    data = pull_json(ctx.state, ctx.urls, ctx.principal, repo, issue)
    return json_response(data, status=201)


def setup(state: ForgeState) -> None:
    state.on_ref_update(lambda update: on_ref_update(state, update))


def routes(state: ForgeState) -> list[Route]:
    base = "/repos/{owner}/{repo}/pulls"
    pull = f"{base}/{{number:int}}"
    return [
        Route(base, list_pulls, methods=["GET"]),
        Route(base, create_pull_endpoint, methods=["POST"]),
        Route(pull, get_pull_endpoint, methods=["GET"]),
        Route(pull, update_pull, methods=["PATCH"]),
        Route(f"{pull}/files", list_files, methods=["GET"]),
        Route(f"{pull}/commits", list_commits, methods=["GET"]),
        Route(f"{pull}/merge", check_merged, methods=["GET"]),
        Route(f"{pull}/requested_reviewers", list_requested_reviewers, methods=["GET"]),
        Route(f"{pull}/requested_reviewers", request_reviewers, methods=["POST"]),
    ]
