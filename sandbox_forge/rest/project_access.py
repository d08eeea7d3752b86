"""Who may read and write a project (v2), for GraphQL and REST alike.

A public project is readable by anyone signed in, a private one by its owner and the
organisation's members; writing takes the owner, an organisation admin, or write access to
one of the owner's repositories (a simplification of GitHub's project roles). A read-only
token never writes.
"""

from __future__ import annotations

from sandbox_forge.rest.auth import Principal, can_write
from sandbox_forge.stores.projects import Project
from sandbox_forge.stores.state import ForgeState


def project_access(state: ForgeState, principal: Principal, project: Project) -> str | None:
    """ "write", "read" or None (the project is not seen)."""
    login = principal.login
    role = state.access.org_role(project.owner, login) if login else None
    owned = (r for r in state.all_repos() if r.owner.lower() == project.owner.lower())
    owner = bool(login) and str(login).lower() == project.owner.lower()
    writer = owner or role == "admin" or any(can_write(principal, r) for r in owned)
    token = principal.token
    if writer and not (token is not None and token.access == "read"):
        return "write"
    return "read" if writer or role is not None or project.public else None
