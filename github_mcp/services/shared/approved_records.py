"""The remote state a human approves for writes that publish or depend on text kept on
GitHub (a release's notes and target, a gist's files, a pending review's comments, an
issue's text or field values), read fresh (uncached), as approved_state.py reads heads.

Each reader returns a `RemoteState` whose facts are what the write enforces (a digest of
each text, so that a single changed character is a changed fact) and whose texts are what
the approval page shows in full. The write re-reads the same state just before it writes
(`require_same`) and, where GitHub's call takes them, sends the approved values with it.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, TypedDict, cast

from github_mcp.github.client import GitHubClient, encode_path
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.services.shared.approved_state import RemoteState, require_facts
from github_mcp.services.shared.branches import branch_head
from github_mcp.services.shared.repo_facts import SHA_RE, repo_path


def digest(value: Any) -> str:
    """sha256 of a text (or of JSON data), the fact a binding compares."""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


async def require_same(
    github: GitHubClient, full_name: str | None, approved: RemoteState, now: RemoteState
) -> None:
    """`conflict` unless the state read now has the approved facts (nothing written)."""
    await require_facts(github, full_name or "", approved, dict(now.facts))


# -- releases ---------------------------------------------------------------------------


async def tag_commit(github: GitHubClient, full_name: str, tag: str) -> str | None:
    """The commit a tag names now (an annotated tag peeled), or None: no such tag."""
    base = repo_path(full_name)
    try:
        ref = await github.request_json("GET", f"{base}/git/ref/tags/{encode_path(tag)}")
    except GitHubMCPError as exc:
        if exc.code == ErrorCode.NOT_FOUND:
            return None
        raise
    target = ref.get("object") if isinstance(ref, dict) else None
    if not target:
        return None  # a prefix match lists several refs: not this tag
    if target.get("type") == "tag":
        peeled = await github.request_json("GET", f"{base}/git/tags/{target['sha']}")
        return str(peeled["object"]["sha"])
    return str(target["sha"])


async def commit_of(github: GitHubClient, full_name: str, commitish: str) -> str:
    if SHA_RE.match(commitish):
        return commitish
    head = await branch_head(github, full_name, commitish)
    if head is None:
        head = await tag_commit(github, full_name, commitish)
    return head or "absent"


async def release_state(github: GitHubClient, full_name: str, release_id: int) -> RemoteState:
    """A release as it would be published: its tag and the commit the tag names (or will
    be made at: the target's head), its name and notes (digests as facts, in full as
    texts), whether it is a draft or a prerelease."""
    path = f"{repo_path(full_name)}/releases/{release_id}"
    release = await github.request_json("GET", path)
    tag, target = str(release["tag_name"]), str(release.get("target_commitish") or "")
    tagged = await tag_commit(github, full_name, tag)
    commit = tagged or await commit_of(github, full_name, target)
    name, notes = str(release.get("name") or ""), str(release.get("body") or "")
    facts = (
        ("draft", str(bool(release.get("draft"))).lower()),
        ("prerelease", str(bool(release.get("prerelease"))).lower()),
        ("tag", tag),
        ("tag_exists", "yes" if tagged else "no"),
        ("target", target),
        ("target_sha", commit),
        ("name_sha256", digest(name)),
        ("notes_sha256", digest(notes)),
    )
    texts = (("release name", name), ("release notes", notes))
    return RemoteState(facts, texts=texts)


# -- gists ------------------------------------------------------------------------------


async def gist_state(github: GitHubClient, gist_id: str) -> RemoteState:
    """A gist's files and description as they are: each file's digest as a fact, its
    text in full on the page, and whether the gist is public."""
    gist = await github.request_json("GET", f"/gists/{encode_path(gist_id)}")
    files = {
        str(name): str((meta or {}).get("content") or "")
        for name, meta in sorted((gist.get("files") or {}).items())
    }
    description = str(gist.get("description") or "")
    facts = [("public", str(bool(gist.get("public"))).lower())]
    facts.append(("description_sha256", digest(description)))
    facts += [(f"file {name} sha256", digest(text)) for name, text in files.items()]
    texts = [("gist description", description)] if description else []
    texts += [(f"gist file {name} (now)", text) for name, text in files.items()]
    return RemoteState(tuple(facts), texts=tuple(texts))


# -- pull request reviews ---------------------------------------------------------------


async def pending_review_state(
    github: GitHubClient, full_name: str, number: int, review_id: int
) -> RemoteState:
    """What submitting a pending review publishes: its body and every line comment in
    it (digest as a fact, each in full on the page), and the commit it reviews."""
    base = f"{repo_path(full_name)}/pulls/{number}/reviews/{review_id}"
    review = await github.request_json("GET", base)
    comments = await github.collect(f"{base}/comments", max_items=300)
    lines = [
        (f"comment on {c.get('path')}:{c.get('line') or c.get('original_line')}", c.get("body"))
        for c in sorted(comments, key=lambda c: int(c.get("id") or 0))
    ]
    body = str(review.get("body") or "")
    facts = (
        ("review_state", str(review.get("state"))),
        ("commit_id", str(review.get("commit_id"))),
        ("body_sha256", digest(body)),
        ("comments", str(len(lines))),
        ("comments_sha256", digest([[k, str(v or "")] for k, v in lines])),
    )
    texts = (("review body (now)", body), *((k, str(v or "")) for k, v in lines))
    return RemoteState(facts, texts=tuple((k, v) for k, v in texts if v))


# -- issues -----------------------------------------------------------------------------


async def issue_text_state(github: GitHubClient, full_name: str, number: int) -> RemoteState:
    """An issue's title, body and state: what an agent assigned to it works from."""
    issue = await github.request_json("GET", f"{repo_path(full_name)}/issues/{number}")
    title, body = str(issue.get("title") or ""), str(issue.get("body") or "")
    facts = (
        ("state", str(issue.get("state"))),
        ("title_sha256", digest(title)),
        ("body_sha256", digest(body)),
    )
    return RemoteState(facts, texts=(("issue title", title), ("issue body", body)))


async def issue_fields_state(github: GitHubClient, full_name: str, number: int) -> RemoteState:
    """An issue's custom field values as they are (a replace drops the ones not given)."""
    path = f"{repo_path(full_name)}/issues/{number}/issue-field-values"
    items = await github.collect(path, max_items=100)
    values = sorted(
        (str(i.get("issue_field_name") or i.get("issue_field_id")), _field_value(i)) for i in items
    )
    facts = (("field_values_sha256", digest([[k, v] for k, v in values])),)
    return RemoteState(facts, texts=tuple((f"field {k} (now)", v) for k, v in values))


def _field_value(item: dict[str, Any]) -> str:
    if item.get("single_select_option"):
        return str(item["single_select_option"].get("name"))
    if item.get("multi_select_options"):
        return ", ".join(str(o.get("name")) for o in item["multi_select_options"])
    return str(item.get("value"))


class PublishFields(TypedDict, total=False):
    """What the publishing PATCH carries besides `draft` and `make_latest`."""

    tag_name: str | None
    name: str
    body: str
    target_commitish: str


async def publish_fields(
    github: GitHubClient, full_name: str, release_id: int, approved: RemoteState
) -> PublishFields:
    """Just before a release is published: the release must still be what the human
    approved (else `conflict`), and the publishing call carries the approved tag, name,
    notes and, for a tag yet to be made, the approved commit, so that an edit landing in
    between is overwritten by what was approved rather than published."""
    await require_same(
        github, full_name, approved, await release_state(github, full_name, release_id)
    )
    texts = dict(approved.texts)
    fields: PublishFields = {
        "tag_name": approved.get("tag"),
        "name": texts.get("release name", ""),
        "body": texts.get("release notes", ""),
    }
    commit = approved.get("target_sha")
    if approved.get("tag_exists") == "no" and commit and SHA_RE.match(commit):
        fields["target_commitish"] = commit
    return fields


# -- projects ---------------------------------------------------------------------------

_FIELD = """... on ProjectV2Field { id name }
  ... on ProjectV2SingleSelectField { id name }
  ... on ProjectV2IterationField { id name }"""
PROJECT_ITEM = f"""
query ApprovedItem($item: ID!) {{
  node(id: $item) {{
    ... on ProjectV2Item {{
      id isArchived
      project {{ id title url public }}
      content {{
        __typename
        ... on Issue {{ number title url }}
        ... on PullRequest {{ number title url }}
      }}
      fieldValues(first: 50) {{
        nodes {{
          __typename
          ... on ProjectV2ItemFieldTextValue {{ text field {{ {_FIELD} }} }}
          ... on ProjectV2ItemFieldNumberValue {{ number field {{ {_FIELD} }} }}
          ... on ProjectV2ItemFieldDateValue {{ date field {{ {_FIELD} }} }}
          ... on ProjectV2ItemFieldSingleSelectValue {{ name field {{ {_FIELD} }} }}
          ... on ProjectV2ItemFieldIterationValue {{ title field {{ {_FIELD} }} }}
        }}
      }}
    }}
  }}
}}
"""


class ProjectItemNode(TypedDict, total=False):
    """The parts of a ProjectV2Item node that PROJECT_ITEM asks for."""

    id: str
    isArchived: bool
    project: dict[str, Any]
    content: dict[str, Any]
    fieldValues: dict[str, Any]


def _item_node(data: Any, item_id: str) -> ProjectItemNode:
    node = (data or {}).get("node") or {}
    if not node.get("id"):
        raise GitHubMCPError(
            ErrorCode.NOT_FOUND,
            f"No project item {item_id} that this token can read.",
            hint="list_project_items shows the items and their ids.",
        )
    return cast("ProjectItemNode", node)  # the shape PROJECT_ITEM asks GitHub for


def _item_values(node: ProjectItemNode) -> dict[str, tuple[str, str]]:
    """Each field the item has a value in: field id -> (field name, value as shown)."""
    values: dict[str, tuple[str, str]] = {}
    for entry in (node.get("fieldValues") or {}).get("nodes") or []:
        named = (entry or {}).get("field") or {}
        found = next((entry[k] for k in ("text", "number", "date", "name", "title")
                      if entry.get(k) is not None), None)  # fmt: skip
        if named.get("id") and found is not None:
            values[str(named["id"])] = (str(named.get("name") or named["id"]), str(found))
    return values


def _item_place(node: ProjectItemNode) -> tuple[tuple[str, str], tuple[str, str]]:
    project, content = node.get("project") or {}, node.get("content") or {}
    what = f"{content.get('title') or '(not readable)'} {content.get('url') or ''}".strip()
    return ("project", f"{project.get('title')} {project.get('url')}"), ("item", what)


async def project_item_state(github: GitHubClient, item_id: str, field_id: str) -> RemoteState:
    """A project item's field as it is, before a value is set on it: which project (and
    whether it is public), which issue or pull request, the field's name and its value
    now. The page shows them in words where the call names only ids."""
    node = _item_node(await github.graphql(PROJECT_ITEM, {"item": item_id}), item_id)
    project = node.get("project") or {}
    field, value = _item_values(node).get(field_id, (field_id, "(empty)"))
    facts = (
        ("project", str(project.get("id"))),
        ("project_public", str(project.get("public")).lower()),
        ("field", field),
        ("value_sha256", digest(value)),
    )
    return RemoteState(facts, texts=(*_item_place(node), (f"{field} now", value)))


async def project_item_whole_state(github: GitHubClient, item_id: str) -> RemoteState:
    """A project item as it is, before it is removed: which project (and whether it is
    public), which issue or pull request, whether it is archived, and every field's value
    now (what the removal throws away), each in words on the page."""
    node = _item_node(await github.graphql(PROJECT_ITEM, {"item": item_id}), item_id)
    project, values = node.get("project") or {}, _item_values(node)
    facts = (
        ("project", str(project.get("id"))),
        ("project_public", str(project.get("public")).lower()),
        ("archived", str(bool(node.get("isArchived"))).lower()),
        ("values_sha256", digest(sorted(values.items()))),
    )
    shown = tuple((f"{name} now", value) for name, value in values.values())
    return RemoteState(facts, texts=(*_item_place(node), *shown))
