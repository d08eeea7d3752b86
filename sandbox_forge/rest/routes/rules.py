"""GET /repos/{owner}/{repo}/rules/branches/{branch}: the active ruleset rules that apply
to a branch, by GitHub's OpenAPI description (rulesets are in stores/rulesets.py and
managed through rulesets.py). Anyone who can read the repository may ask; the branch need not
exist. Classic branch protection is not part of this answer, as on GitHub."""

from __future__ import annotations

from starlette.responses import Response
from starlette.routing import Route

from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.stores.rulesets import rules_for_branch
from sandbox_forge.stores.state import ForgeState


@endpoint
def get_branch_rules(ctx: Ctx) -> Response:
    repo = ctx.repo()
    return ctx.paginate(rules_for_branch(repo, ctx.params["branch"]))


def routes(state: ForgeState) -> list[Route]:
    return [
        Route("/repos/{owner}/{repo}/rules/branches/{branch:refpath}", get_branch_rules),
    ]
