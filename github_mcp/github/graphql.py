"""The GraphQL operations the controller uses: review threads, replies and resolution (REST
has no notion of a thread's resolution), and reads that GraphQL does in one round trip
where REST needs several (files at a ref with the ref's commit). Each
operation is a constant plus a small function returning plain data; the caller shapes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from github_mcp.github.client import GitHubClient
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError

THREADS_PER_PAGE = 50
COMMENTS_PER_THREAD = 30
MAX_THREAD_PAGES = 10

REVIEW_THREADS = """
query ReviewThreads($owner: String!, $name: String!, $number: Int!, $first: Int!,
                    $after: String, $comments: Int!) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewDecision
      reviewThreads(first: $first, after: $after) {
        totalCount
        pageInfo { hasNextPage endCursor }
        nodes {
          id
          isResolved
          isOutdated
          path
          line
          originalLine
          comments(first: $comments) {
            totalCount
            nodes {
              databaseId
              author { __typename login }
              authorAssociation
              body
              createdAt
            }
          }
        }
      }
    }
  }
}
"""

THREAD_OWNER = """
query ThreadOwner($id: ID!) {
  node(id: $id) {
    __typename
    ... on PullRequestReviewThread {
      isResolved
      pullRequest { number url }
    }
  }
}
"""

RESOLVE_THREAD = """
mutation ResolveThread($id: ID!) {
  resolveReviewThread(input: {threadId: $id}) { thread { id isResolved } }
}
"""

UNRESOLVE_THREAD = """
mutation UnresolveThread($id: ID!) {
  unresolveReviewThread(input: {threadId: $id}) { thread { id isResolved } }
}
"""

REPLY_TO_THREAD = """
mutation ReplyToThread($id: ID!, $body: String!) {
  addPullRequestReviewThreadReply(input: {pullRequestReviewThreadId: $id, body: $body}) {
    comment { databaseId url }
  }
}
"""


async def review_threads(
    github: GitHubClient, full_name: str, number: int
) -> tuple[list[dict[str, Any]], str | None, bool]:
    """Every review thread of a PR (bounded), its review decision, and whether the bound cut
    the list short."""
    owner, name = full_name.split("/", 1)
    threads: list[dict[str, Any]] = []
    after: str | None = None
    decision: str | None = None
    for _ in range(MAX_THREAD_PAGES):
        data = await github.graphql(
            REVIEW_THREADS,
            {
                "owner": owner,
                "name": name,
                "number": number,
                "first": THREADS_PER_PAGE,
                "after": after,
                "comments": COMMENTS_PER_THREAD,
            },
        )
        pull = ((data or {}).get("repository") or {}).get("pullRequest")
        if pull is None:
            raise GitHubMCPError(
                ErrorCode.NOT_FOUND,
                f"Pull request {full_name}#{number} was not found.",
                hint=(
                    "Check the number with list_pull_requests; it may be an issue, or in "
                    "another repository."
                ),
            )
        decision = pull.get("reviewDecision")
        page = pull["reviewThreads"]
        threads.extend(node for node in page.get("nodes") or [] if node)
        info = page.get("pageInfo") or {}
        if not info.get("hasNextPage"):
            return threads, decision, False
        after = info.get("endCursor")
    return threads, decision, True


async def thread_owner(github: GitHubClient, thread_id: str) -> tuple[str, int, bool]:
    """(PR url, PR number, resolved) of a review thread; not_found when it is not one."""
    data = await github.graphql(THREAD_OWNER, {"id": thread_id})
    node = (data or {}).get("node")
    if not node or node.get("__typename") != "PullRequestReviewThread":
        raise GitHubMCPError(
            ErrorCode.NOT_FOUND,
            f"{thread_id!r} is not a review thread.",
            hint="find_unresolved_comments lists the thread ids of a PR.",
        )
    pull = node.get("pullRequest") or {}
    return pull.get("url", ""), int(pull.get("number", 0)), bool(node.get("isResolved"))


async def set_thread_resolved(github: GitHubClient, thread_id: str, resolved: bool) -> bool:
    """Resolve (or unresolve) a thread; returns its resolution afterwards."""
    key = "resolveReviewThread" if resolved else "unresolveReviewThread"
    data = await github.graphql(RESOLVE_THREAD if resolved else UNRESOLVE_THREAD, {"id": thread_id})
    thread = ((data or {}).get(key) or {}).get("thread") or {}
    return bool(thread.get("isResolved"))


async def reply_to_thread(github: GitHubClient, thread_id: str, body: str) -> dict[str, Any]:
    """Add a reply to a thread; returns {databaseId, url} of the new comment."""
    data = await github.graphql(REPLY_TO_THREAD, {"id": thread_id, "body": body})
    return ((data or {}).get("addPullRequestReviewThreadReply") or {}).get("comment") or {}


# --- files at a ref, in one query ----------------------------------------------------------

MAX_FILES_PER_QUERY = 30  # fetch_files' cap: one aliased file field per path
BLOB_FIELDS = "type oid object { ... on Blob { byteSize isBinary isTruncated text } }"


def files_query(count: int, by: str) -> str:
    """One query reading `count` files ($p0, $p1, ...) at a commit, with the commit's oid.

    `by` chooses how the commit is named: "oid" ($oid), "ref" ($head and $tag, the
    refs/heads/ and refs/tags/ spellings of one name, both asked at once so a tag costs no
    second round trip) or "default" (the default branch, with its name). Each file comes
    from the same commit object as the oid, so content and commit always agree."""
    params = ["$owner: String!", "$name: String!"]
    params += [f"$p{i}: String!" for i in range(count)]
    files = " ".join(f"f{i}: file(path: $p{i}) {{ {BLOB_FIELDS} }}" for i in range(count))
    at = f"oid ... on Commit {{ {files} }}"
    if by == "oid":
        params.append("$oid: GitObjectID!")
        body = f"object(oid: $oid) {{ {at} }}"
    elif by == "ref":
        params += ["$head: String!", "$tag: String!"]
        body = (
            f"head: ref(qualifiedName: $head) {{ target {{ {at} }} }} "
            f"tag: ref(qualifiedName: $tag) {{ target {{ {at} "
            f"... on Tag {{ target {{ {at} }} }} }} }}"
        )
    elif by == "default":
        body = f"defaultBranchRef {{ name target {{ {at} }} }}"
    else:
        raise ValueError(f"unknown commit selector {by!r}")
    return (
        f"query Files({', '.join(params)}) {{ "
        f"repository(owner: $owner, name: $name) {{ {body} }} }}"
    )


@dataclass
class FilesAt:
    """What one files query found. `commit` is None when the ref or oid names nothing
    (`other_object` when it names something that is not a commit, such as a tag of a tag:
    the caller resolves that one another way); `branch` is the default branch's name when
    it was asked for; `entries` holds each path's tree entry, or None where there is none."""

    commit: str | None
    branch: str | None
    entries: list[dict[str, Any] | None]
    other_object: bool = False


async def files_at(
    github: GitHubClient, full_name: str, paths: list[str], *, ref: str | None, oid: str | None
) -> FilesAt:
    """Read `paths` at a commit in one request. `oid` wins over `ref`; neither means the
    default branch."""
    by = "oid" if oid else "ref" if ref else "default"
    variables = _files_variables(full_name, paths, ref=ref, oid=oid)
    data = await github.graphql(files_query(len(paths), by), variables)
    repo = (data or {}).get("repository")
    if repo is None:
        raise GitHubMCPError(
            ErrorCode.NOT_FOUND,
            f"Repository {full_name} was not found.",
            hint=(
                "Check the owner/repo spelling; the repository must be on this server's "
                "allow-list and visible to its token."
            ),
        )
    branch, commit = _commit_of(repo, by)
    if not commit:
        return FilesAt(None, branch, [None] * len(paths))
    if "f0" not in commit:
        return FilesAt(None, branch, [None] * len(paths), other_object=True)
    return FilesAt(commit["oid"], branch, [commit.get(f"f{i}") for i in range(len(paths))])


def _files_variables(
    full_name: str, paths: list[str], *, ref: str | None, oid: str | None
) -> dict[str, Any]:
    owner, name = full_name.split("/", 1)
    variables: dict[str, Any] = {"owner": owner, "name": name}
    variables |= {f"p{i}": path for i, path in enumerate(paths)}
    if oid:
        variables["oid"] = oid
    elif ref:
        variables |= {"head": f"refs/heads/{ref}", "tag": f"refs/tags/{ref}"}
    return variables


def _commit_of(repo: dict[str, Any], by: str) -> tuple[str | None, dict[str, Any] | None]:
    """(the default branch's name when asked for, the commit object the files hang on)."""
    if by == "oid":
        return None, repo.get("object")
    if by == "default":
        default = repo.get("defaultBranchRef") or {}
        return default.get("name"), default.get("target")
    commit = (repo.get("head") or {}).get("target")
    if commit is None:
        tag = (repo.get("tag") or {}).get("target") or None
        # An annotated tag names a Tag object: its target is the commit (or, rarely,
        # another tag, which has no file fields and is resolved another way).
        commit = tag.get("target") if tag and "target" in tag else tag
    return None, commit


# --- a pull request's overview, in one query ---------------------------------------------

PULL_OVERVIEW = """
query PullOverview($owner: String!, $name: String!, $number: Int!, $files: Int!,
                   $after: String, $contexts: Int!) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      number title body url state isDraft mergedAt
      author { login } authorAssociation
      headRefName headRefOid baseRefName
      mergeable mergeStateStatus
      additions deletions changedFiles
      files(first: $files, after: $after) {
        totalCount
        pageInfo { hasNextPage endCursor }
        nodes { path additions deletions changeType }
      }
      latestReviews(first: 100) { nodes { author { login } state } }
      latestOpinionatedReviews(first: 100) { nodes { author { login } state } }
      commits(last: 1) {
        totalCount
        nodes {
          commit {
            oid
            statusCheckRollup {
              state
              contexts(first: $contexts) {
                nodes {
                  __typename
                  ... on CheckRun { name status conclusion }
                  ... on StatusContext { context state }
                }
              }
            }
          }
        }
      }
    }
  }
}
"""

PULL_FILES_PAGE = """
query PullFiles($owner: String!, $name: String!, $number: Int!, $files: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      files(first: $files, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes { path additions deletions changeType }
      }
    }
  }
}
"""

FILES_PER_PAGE = 100
MAX_FILE_PAGES = 3  # 300 files, as the REST listing was bounded
CONTEXTS_PER_COMMIT = 100


async def pull_overview(github: GitHubClient, full_name: str, number: int) -> dict[str, Any]:
    """The pull request with its files (first page; more pages only past 100 files), latest
    reviews and head commit's check rollup, as GitHub's GraphQL returns them."""
    owner, name = full_name.split("/", 1)
    base = {"owner": owner, "name": name, "number": number, "files": FILES_PER_PAGE}
    data = await github.graphql(
        PULL_OVERVIEW, base | {"after": None, "contexts": CONTEXTS_PER_COMMIT}
    )
    pull: dict[str, Any] | None = ((data or {}).get("repository") or {}).get("pullRequest")
    if pull is None:
        raise GitHubMCPError(
            ErrorCode.NOT_FOUND,
            f"Pull request {full_name}#{number} was not found.",
            hint=(
                "Check the number with list_pull_requests; it may be an issue, or in "
                "another repository."
            ),
        )
    files = pull["files"]
    for _ in range(MAX_FILE_PAGES - 1):
        info = files.get("pageInfo") or {}
        if not info.get("hasNextPage"):
            break
        more = await github.graphql(PULL_FILES_PAGE, base | {"after": info.get("endCursor")})
        page = (((more or {}).get("repository") or {}).get("pullRequest") or {}).get("files")
        if not page:
            break
        files = {**files, "pageInfo": page["pageInfo"], "nodes": files["nodes"] + page["nodes"]}
    pull["files"] = files
    return pull
