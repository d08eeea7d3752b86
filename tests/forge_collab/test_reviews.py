"""Reviews, review comments and replies over REST; review threads and mutations over GraphQL."""

from __future__ import annotations

import base64

from .conftest import LAB, graphql


def _pull(api, head="feature/notes"):
    response = api.post(
        f"/repos/{LAB}/pulls", json={"title": "Notes", "head": head, "base": "main"}
    )
    assert response.status_code == 201, response.text
    return response.json()


def _as(lab, login):
    return lab.client(lab.forge.create_token(login))


THREADS = """
query($owner: String!, $name: String!, $number: Int!, $first: Int, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      id number title
      reviewThreads(first: $first, after: $after) {
        totalCount
        pageInfo { hasNextPage endCursor }
        nodes {
          id isResolved isOutdated path line diffSide
          comments(first: 10) { nodes { id databaseId body author { login } createdAt url } }
        }
      }
    }
  }
}
"""


def test_review_with_line_comments_creates_threads(api, lab):
    pr = _pull(api)
    with _as(lab, "alice") as alice:
        review = alice.post(
            f"/repos/{LAB}/pulls/{pr['number']}/reviews",
            json={
                "event": "REQUEST_CHANGES",
                "body": "Two things",
                "comments": [
                    {"path": "notes.txt", "line": 2, "side": "RIGHT", "body": "Why shout?"},
                    {"path": "notes.txt", "line": 2, "side": "LEFT", "body": "This was fine"},
                ],
            },
        )
    assert review.status_code == 200, review.text
    assert review.json()["state"] == "CHANGES_REQUESTED"
    assert review.json()["user"]["login"] == "alice"
    comments = api.get(f"/repos/{LAB}/pulls/{pr['number']}/comments").json()
    assert [(c["path"], c["line"], c["side"]) for c in comments] == [
        ("notes.txt", 2, "RIGHT"),
        ("notes.txt", 2, "LEFT"),
    ]
    first = comments[0]
    assert first["pull_request_review_id"] == review.json()["id"]
    assert first["diff_hunk"].startswith("@@") and first["diff_hunk"].endswith("+BETA")
    assert first["user"]["login"] == "alice" and first["created_at"]
    assert "in_reply_to_id" not in first
    reviews = api.get(f"/repos/{LAB}/pulls/{pr['number']}/reviews").json()
    assert [r["state"] for r in reviews] == ["CHANGES_REQUESTED"]


def test_replies_and_single_comments(api, lab):
    pr = _pull(api)
    head = lab.head(LAB, "feature/notes")
    created = api.post(
        f"/repos/{LAB}/pulls/{pr['number']}/comments",
        json={"body": "Nit", "commit_id": head, "path": "notes.txt", "line": 4, "side": "RIGHT"},
    )
    assert created.status_code == 201, created.text
    parent = created.json()
    reply = api.post(
        f"/repos/{LAB}/pulls/{pr['number']}/comments",
        json={"body": "Done", "in_reply_to": parent["id"]},
    )
    assert reply.status_code == 201
    assert reply.json()["in_reply_to_id"] == parent["id"]
    assert reply.json()["path"] == "notes.txt" and reply.json()["line"] == 4
    other = api.post(
        f"/repos/{LAB}/pulls/{pr['number']}/comments/{parent['id']}/replies",
        json={"body": "Thanks"},
    )
    assert other.status_code == 201 and other.json()["in_reply_to_id"] == parent["id"]
    listed = api.get(f"/repos/{LAB}/pulls/{pr['number']}/comments").json()
    assert [c["body"] for c in listed] == ["Nit", "Done", "Thanks"]
    # A comment outside a review is filed in a COMMENTED review, as on GitHub.
    assert {r["state"] for r in api.get(f"/repos/{LAB}/pulls/{pr['number']}/reviews").json()} == {
        "COMMENTED"
    }


def test_review_errors(api, lab):
    pr = _pull(api)
    own = api.post(f"/repos/{LAB}/pulls/{pr['number']}/reviews", json={"event": "APPROVE"})
    assert own.status_code == 422
    assert own.json()["errors"] == ["Can not approve your own pull request"]
    with _as(lab, "bob") as bob:
        off_diff = bob.post(
            f"/repos/{LAB}/pulls/{pr['number']}/reviews",
            json={"event": "COMMENT", "comments": [{"path": "app.py", "line": 1, "body": "?"}]},
        )
        assert off_diff.status_code == 422
        bad_line = bob.post(
            f"/repos/{LAB}/pulls/{pr['number']}/reviews",
            json={"event": "COMMENT", "comments": [{"path": "notes.txt", "line": 40, "body": "?"}]},
        )
        assert bad_line.json()["errors"] == [
            "Pull request review thread line must be part of the diff"
        ]
    head = lab.head(LAB, "feature/notes")
    no_commit = api.post(
        f"/repos/{LAB}/pulls/{pr['number']}/comments",
        json={"body": "x", "path": "notes.txt", "line": 2},
    )
    assert no_commit.status_code == 422
    outside = api.post(
        f"/repos/{LAB}/pulls/{pr['number']}/comments",
        json={"body": "x", "commit_id": head, "path": "notes.txt", "line": 99},
    )
    assert outside.status_code == 422
    assert api.get(f"/repos/{LAB}/pulls/{pr['number']}/comments").json() == []
    assert api.get(f"/repos/{LAB}/pulls/{pr['number']}/reviews").json() == []


def test_review_threads_over_graphql_with_pagination_and_resolution(api, lab):
    pr = _pull(api)
    for line in (2, 4):
        lab.admin.post(
            f"/_sandbox/repos/{LAB}/pulls/{pr['number']}/threads",
            json={
                "path": "notes.txt",
                "line": line,
                "body": f"About line {line}",
                "user": "bob",
                "replies": [{"user": "octocat", "body": "ok"}],
            },
        ).raise_for_status()
    variables = {"owner": "octocat", "name": "lab", "number": pr["number"]}
    page1 = graphql(api, THREADS, **variables, first=1)["data"]["repository"]["pullRequest"]
    threads = page1["reviewThreads"]
    assert threads["totalCount"] == 2 and threads["pageInfo"]["hasNextPage"] is True
    node = threads["nodes"][0]
    assert node["id"].startswith("PRRT_")
    assert (node["path"], node["line"], node["diffSide"]) == ("notes.txt", 2, "RIGHT")
    assert node["isResolved"] is False and node["isOutdated"] is False
    comments = node["comments"]["nodes"]
    assert [(c["author"]["login"], c["body"]) for c in comments] == [
        ("bob", "About line 2"),
        ("octocat", "ok"),
    ]
    assert comments[0]["url"].endswith(f"#discussion_r{comments[0]['databaseId']}")
    after = threads["pageInfo"]["endCursor"]
    page2 = graphql(api, THREADS, **variables, first=1, after=after)
    second = page2["data"]["repository"]["pullRequest"]["reviewThreads"]
    assert [n["line"] for n in second["nodes"]] == [4]
    assert second["pageInfo"]["hasNextPage"] is False

    resolve = """mutation($id: ID!) { resolveReviewThread(input: {threadId: $id}) {
        thread { id isResolved } } }"""
    done = graphql(api, resolve, id=node["id"])
    assert done["data"]["resolveReviewThread"]["thread"] == {"id": node["id"], "isResolved": True}
    unresolve = """mutation($id: ID!) { unresolveReviewThread(input: {threadId: $id}) {
        thread { isResolved } } }"""
    assert graphql(api, unresolve, id=node["id"])["data"]["unresolveReviewThread"]["thread"] == {
        "isResolved": False
    }
    reply = """mutation($id: ID!) { addPullRequestReviewThreadReply(
        input: {pullRequestReviewThreadId: $id, body: "Fixed"}) {
        comment { body replyTo { databaseId } } } }"""
    added = graphql(api, reply, id=node["id"])["data"]["addPullRequestReviewThreadReply"]
    assert added["comment"]["body"] == "Fixed"
    assert added["comment"]["replyTo"]["databaseId"] == comments[0]["databaseId"]

    # A commit that changes the file makes the thread outdated; its line goes away.
    lab.commit(api, LAB, "feature/notes", "notes.txt", "rewritten\n")
    outdated = graphql(api, THREADS, **variables, first=5)
    first_thread = outdated["data"]["repository"]["pullRequest"]["reviewThreads"]["nodes"][0]
    assert first_thread["isOutdated"] is True and first_thread["line"] is None


def test_graphql_errors_follow_githubs_format(api, lab):
    missing = graphql(api, 'query { repository(owner: "octocat", name: "nope") { id } }')
    assert missing["data"] == {"repository": None}
    assert missing["errors"][0]["type"] == "NOT_FOUND"
    assert missing["errors"][0]["path"] == ["repository"]
    assert missing["errors"][0]["message"] == (
        "Could not resolve to a Repository with the name 'octocat/nope'."
    )
    no_pr = graphql(
        api, 'query { repository(owner: "octocat", name: "lab") { pullRequest(number: 9) { id } } }'
    )
    assert no_pr["errors"][0]["type"] == "NOT_FOUND"
    assert no_pr["errors"][0]["path"] == ["repository", "pullRequest"]
    pr = _pull(api)
    unbounded = graphql(
        api,
        'query($n: Int!) { repository(owner: "octocat", name: "lab") { pullRequest(number: $n) {'
        " reviewThreads { totalCount } } } }",
        n=pr["number"],
    )
    assert unbounded["errors"][0]["type"] == "MISSING_PAGINATION_BOUNDARIES"
    invalid = graphql(api, 'query { repository(owner: "o", name: "r") { bogus } }')
    assert "data" not in invalid and "bogus" in invalid["errors"][0]["message"]
    bad_node = graphql(
        api, 'mutation { resolveReviewThread(input: {threadId: "PRRT_nope"}) { thread { id } } }'
    )
    assert bad_node["errors"][0]["type"] == "NOT_FOUND"
    with lab.client("") as anonymous:
        assert anonymous.post("/graphql", json={"query": "{ viewer { login } }"}).status_code in (
            401,
            403,
        )
    viewer = graphql(api, "{ viewer { login } }")
    assert viewer["data"]["viewer"]["login"] == "octocat"


def test_read_only_token_cannot_resolve(api, lab):
    pr = _pull(api)
    thread = lab.admin.post(
        f"/_sandbox/repos/{LAB}/pulls/{pr['number']}/threads",
        json={"path": "notes.txt", "line": 2, "body": "hm", "user": "bob"},
    ).json()
    reader = lab.forge.create_token("octocat", access="read")
    with lab.client(reader) as client:
        result = graphql(
            client,
            "mutation($id: ID!) { resolveReviewThread(input: {threadId: $id}) { thread { id } } }",
            id=thread["thread_id"],
        )
    assert result["errors"][0]["type"] == "FORBIDDEN"
    assert result["data"] == {"resolveReviewThread": None}


CREATE_COMMIT = """
mutation($input: CreateCommitOnBranchInput!) {
  createCommitOnBranch(input: $input) { commit { oid url messageHeadline } ref { name } }
}
"""


def test_create_commit_on_branch_writes_a_real_commit(api, lab):
    head = lab.head(LAB, "feature/two")
    payload = {
        "branch": {"repositoryNameWithOwner": LAB, "branchName": "feature/two"},
        "message": {"headline": "Add docs", "body": "Longer text"},
        "expectedHeadOid": head,
        "fileChanges": {
            "additions": [
                {"path": "docs/new.md", "contents": base64.b64encode(b"# New\n").decode()}
            ],
            "deletions": [{"path": "notes.txt"}],
        },
    }
    result = graphql(api, CREATE_COMMIT, input=payload)
    assert "errors" not in result, result
    commit = result["data"]["createCommitOnBranch"]["commit"]
    assert commit["messageHeadline"] == "Add docs"
    assert commit["url"].endswith(f"/commit/{commit['oid']}")
    assert result["data"]["createCommitOnBranch"]["ref"]["name"] == "feature/two"
    assert lab.head(LAB, "feature/two") == commit["oid"]
    git = lab.forge.state.repo("octocat", "lab").git
    info = git.read_commit(commit["oid"])
    assert info.parents == (head,)
    assert info.message == "Add docs\n\nLonger text\n"
    assert git.read_blob(git.entry_at(commit["oid"], "docs/new.md").sha) == b"# New\n"
    assert git.entry_at(commit["oid"], "notes.txt") is None
    verified = api.get(f"/repos/{LAB}/commits/{commit['oid']}").json()
    assert verified["commit"]["verification"]["verified"] is True

    # Replaying the same call now names a stale head: GitHub's STALE_DATA error.
    stale = graphql(api, CREATE_COMMIT, input=payload)
    assert stale["data"] == {"createCommitOnBranch": None}
    error = stale["errors"][0]
    assert error["type"] == "STALE_DATA"
    assert error["path"] == ["createCommitOnBranch"]
    assert error["message"] == (
        f'Expected branch to point to "{head}" but it did not. Pull and try again.'
    )
    assert lab.head(LAB, "feature/two") == commit["oid"]


def test_create_commit_on_branch_errors(api, lab):
    head = lab.head(LAB, "main")
    base = {"message": {"headline": "x"}, "expectedHeadOid": head}
    missing_branch = graphql(
        api,
        CREATE_COMMIT,
        input={**base, "branch": {"repositoryNameWithOwner": LAB, "branchName": "nope"}},
    )
    assert missing_branch["errors"][0]["type"] == "NOT_FOUND"
    bad_delete = graphql(
        api,
        CREATE_COMMIT,
        input={
            **base,
            "branch": {"repositoryNameWithOwner": LAB, "branchName": "main"},
            "fileChanges": {"deletions": [{"path": "ghost.txt"}]},
        },
    )
    assert bad_delete["errors"][0]["type"] == "UNPROCESSABLE"
    assert lab.head(LAB, "main") == head
