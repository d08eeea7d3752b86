"""PUT /pulls/{n}/update-branch: merge the PR's base into its head branch (a merge commit
on the head, as GitHub's "Update branch" button makes), with GitHub's 422s for a moved
head (`expected_head_sha`), a head already up to date and a conflict."""

from __future__ import annotations

from starlette.routing import Route

from sandbox_forge.git.pulls import merge_tree, web_flow_signature
from sandbox_forge.git.store import FORGE_SIGNATURE
from sandbox_forge.kernel.errors import ApiError, invalid_request, json_response
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.rest.auth import repo_role
from sandbox_forge.rest.routes.pulls_merge import _person
from sandbox_forge.rules.enforce import check_update, refuse_if
from sandbox_forge.stores.lookups import actor_login, get_pull
from sandbox_forge.stores.pull_heads import branch_tips
from sandbox_forge.stores.records import RefUpdate
from sandbox_forge.stores.state import ForgeState

HEAD_MOVED = "expected head sha didn't match current head ref."
UP_TO_DATE = "There are no new commits on the base branch."
CONFLICT = "merge conflict between base and head"


def _expected(ctx: Ctx) -> str | None:
    value = ctx.json().get("expected_head_sha")
    if value is not None and not isinstance(value, str):
        raise invalid_request(f"For 'properties/expected_head_sha', {value!r} is not a string.")
    return value


@endpoint
def update_branch(ctx: Ctx):
    repo = ctx.repo(write=True)
    issue = get_pull(repo, ctx.params["number"])
    pull = issue.pull
    assert pull is not None
    expected = _expected(ctx)
    if issue.state != "open":
        raise ApiError(422, "Pull request is closed.")
    with ctx.state.lock:
        tips = branch_tips(repo)
        head, base = tips.get(pull.head_ref), tips.get(pull.base_ref)
        if head is None or base is None:
            raise ApiError(422, "Head or base branch is missing.")
        if expected is not None and expected != head:
            raise ApiError(422, HEAD_MOVED)
        if repo.git.is_ancestor(base, head):
            raise ApiError(422, UP_TO_DATE)
        trial = merge_tree(repo.git, head, base)
        if not trial.clean or trial.tree is None:
            raise ApiError(422, CONFLICT)
        text = f"Merge branch '{pull.base_ref}' into {pull.head_ref}\n"
        author = _person(ctx.state, actor_login(ctx.principal))
        new = repo.git.create_commit(
            trial.tree, [head, base], text, author, web_flow_signature(), FORGE_SIGNATURE
        )
        ref = f"refs/heads/{pull.head_ref}"
        found = check_update(repo, ref, head, new, repo_role(ctx.principal, repo))
        refuse_if(
            found, 422, "https://docs.github.com/rest/pulls/pulls#update-a-pull-request-branch"
        )
        if not repo.git.update_ref(ref, new, head):
            raise ApiError(422, HEAD_MOVED)
        ctx.state.fire_ref_update(RefUpdate(repo.full_name, ref, head, new, "api"))
    url = f"{ctx.urls.api}/repos/{repo.full_name}/pulls/{issue.number}"
    return json_response({"message": "Updating pull request branch.", "url": url}, status=202)


def routes(state: ForgeState) -> list[Route]:
    path = "/repos/{owner}/{repo}/pulls/{number:int}/update-branch"
    return [Route(path, update_branch, methods=["PUT"])]
