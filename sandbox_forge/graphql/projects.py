"""GraphQL views and resolvers for Projects (v2): a user's or organisation's projects, a
project's fields, views and items with their field values.

Who sees what is rest/project_access.py's rule. An item whose issue or pull request the
caller cannot read comes back REDACTED, as on GitHub.
"""

from __future__ import annotations

import base64
import datetime
from typing import Any

from sandbox_forge.graphql.context import Context, GQLFailure, connection
from sandbox_forge.graphql.views import PullRequestView, RepositoryView, UserView
from sandbox_forge.rest.project_access import project_access
from sandbox_forge.stores.collab import collab
from sandbox_forge.stores.lookups import node_id, repo_by_id
from sandbox_forge.stores.projects import Item, Project, ProjectField, owned_by
from sandbox_forge.stores.records import RepoRecord


def access(ctx: Context, project: Project) -> str | None:
    return project_access(ctx.state, ctx.principal, project)


def require_write(ctx: Context, project: Project, mutation: str) -> None:
    if access(ctx, project) != "write":
        login = ctx.principal.login or "anonymous"
        raise GQLFailure(
            "FORBIDDEN", f"{login} does not have the correct permissions to execute `{mutation}`"
        )


class Obj:
    """A GraphQL object of the named type, its fields given as attributes."""

    field: Any  # set on field values: the field they belong to

    def __init__(self, typename: str, **fields: Any):
        self.typename = typename
        self.__dict__.update(fields)


def _iteration(it: Any) -> dict[str, Any]:
    return {"id": it.id, "title": it.title, "startDate": it.start_date, "duration": it.duration}


def _ended(it: Any) -> bool:
    start = datetime.date.fromisoformat(it.start_date)
    return start + datetime.timedelta(days=it.duration) <= datetime.date.today()


def field_view(field: ProjectField) -> Obj:
    base = {
        "id": field.node_id, "name": field.name, "dataType": field.data_type,
        "databaseId": field.id,
    }  # fmt: skip
    if field.data_type == "SINGLE_SELECT":

        def options(info: Any, names: list[str] | None = None) -> list[dict[str, str]]:
            wanted = [o for o in field.options if names is None or o.name in names]
            return [{"id": o.id, "name": o.name, "description": o.description} for o in wanted]

        return Obj("ProjectV2SingleSelectField", options=options, **base)
    if field.data_type == "ITERATION":
        configuration = {
            "duration": field.iterations[0].duration if field.iterations else 14,
            "startDay": 1,
            "iterations": [_iteration(i) for i in field.iterations if not _ended(i)],
            "completedIterations": [_iteration(i) for i in field.iterations if _ended(i)],
        }
        return Obj("ProjectV2IterationField", configuration=configuration, **base)
    return Obj("ProjectV2Field", **base)


def _value_id(item: Item, field: ProjectField) -> str:
    raw = base64.urlsafe_b64encode(f"{item.id}:{field.id}".encode()).decode().rstrip("=")
    return f"PVTFV_lADO{raw}"


def value_view(item: Item, field: ProjectField, title: str | None) -> Obj | None:
    """The item's value for the field, or None when it has none."""
    value = title if field.data_type == "TITLE" else item.values.get(field.id)
    if value is None:
        return None
    base = {"id": _value_id(item, field), "field": field_view(field)}
    kind = field.data_type
    if kind in ("TEXT", "TITLE"):
        return Obj("ProjectV2ItemFieldTextValue", text=value, **base)
    if kind == "NUMBER":
        return Obj("ProjectV2ItemFieldNumberValue", number=value, **base)
    if kind == "DATE":
        return Obj("ProjectV2ItemFieldDateValue", date=value, **base)
    if kind == "SINGLE_SELECT":
        option = next((o for o in field.options if o.id == value), None)
        name = option.name if option else None
        return Obj("ProjectV2ItemFieldSingleSelectValue", name=name, optionId=value, **base)
    it = next((i for i in field.iterations if i.id == value), None)
    if it is None:
        return None
    return Obj(
        "ProjectV2ItemFieldIterationValue",
        iterationId=it.id,
        title=it.title,
        startDate=it.start_date,
        duration=it.duration,
        **base,
    )


def content_view(ctx: Context, repo: RepoRecord, item: Item) -> Any:
    issue = next((i for i in collab(repo).issues.values() if i.id == item.issue_id), None)
    if issue is None:
        return None
    if issue.pull is not None:
        return PullRequestView(ctx, repo, issue)
    return Obj(
        "Issue",
        id=node_id("I", repo, issue.id),
        number=issue.number,
        title=issue.title,
        url=f"{ctx.urls.repo_html(repo.full_name)}/issues/{issue.number}",
        state=issue.state.upper(),
        repository=RepositoryView(ctx, repo),
    )


class ItemView:
    typename = "ProjectV2Item"

    def __init__(self, ctx: Context, project: Project, item: Item):
        self.ctx, self.item, self._project = ctx, item, project
        self.id = item.node_id
        self.isArchived = item.archived
        repo = repo_by_id(ctx.state, item.repo_id)
        self.content = content_view(ctx, repo, item) if repo and ctx.readable(repo) else None
        if self.content is None:
            self.type = "REDACTED"
        else:
            self.type = "PULL_REQUEST" if self.content.typename == "PullRequest" else "ISSUE"

    def project(self, info: Any) -> ProjectView:
        return ProjectView(self.ctx, self._project)

    def _values(self) -> list[Obj]:
        title = self.content.title if self.content is not None else None
        found = (value_view(self.item, f, title) for f in self._project.fields)
        return [v for v in found if v is not None]

    def fieldValues(self, info: Any, **page: Any) -> dict[str, Any]:
        return connection(self._values(), "fieldValues", **_page(page))

    def fieldValueByName(self, info: Any, name: str) -> Obj | None:
        return next((v for v in self._values() if v.field.name == name), None)


def _page(page: dict[str, Any]) -> dict[str, Any]:
    return {k: page.get(k) for k in ("first", "last", "after", "before")}


class ProjectView:
    typename = "ProjectV2"

    def __init__(self, ctx: Context, project: Project):
        self.ctx, self.project = ctx, project
        self.id = project.node_id
        self.number, self.title = project.number, project.title
        self.public, self.closed = project.public, project.closed
        self.readme, self.shortDescription = project.readme, project.short_description
        owner = ctx.state.user(project.owner)
        kind = "orgs" if owner is not None and owner.type == "Organization" else "users"
        self.url = f"{ctx.urls.web}/{kind}/{project.owner}/projects/{project.number}"

    def fields(self, info: Any, **page: Any) -> dict[str, Any]:
        views = [field_view(f) for f in self.project.fields]
        return connection(views, "fields", **_page(page))

    def field(self, info: Any, name: str) -> Obj | None:
        found = next((f for f in self.project.fields if f.name == name), None)
        return field_view(found) if found else None

    def views(self, info: Any, **page: Any) -> dict[str, Any]:
        views = [
            Obj("ProjectV2View", id=f"PVTV_{v.id}", number=v.number, name=v.name,
                layout=v.layout, filter=v.filter, databaseId=v.id)
            for v in self.project.views
        ]  # fmt: skip
        return connection(views, "views", **_page(page))

    def items(self, info: Any, **page: Any) -> dict[str, Any]:
        views = [ItemView(self.ctx, self.project, i) for i in self.project.items]
        return connection(views, "items", **_page(page))


def _matches(project: Project, query: str | None) -> bool:
    words = (query or "").lower().split()
    if ("is:open" in words and project.closed) or ("is:closed" in words and not project.closed):
        return False
    text = [w for w in words if not w.startswith("is:")]
    return all(w in project.title.lower() for w in text)


def projects_of(ctx: Context, owner: str, query: str | None, page: dict[str, Any]) -> Any:
    found = [p for p in owned_by(ctx.state, owner) if access(ctx, p) and _matches(p, query)]
    found.sort(key=lambda p: p.number, reverse=True)  # GitHub's default: NUMBER DESC
    views = [ProjectView(ctx, p) for p in found]
    return connection(views, "projectsV2", **_page(page))


def project_numbered(ctx: Context, owner: str, number: int) -> ProjectView:
    found = next((p for p in owned_by(ctx.state, owner) if p.number == number), None)
    if found is None or not access(ctx, found):
        raise GQLFailure("NOT_FOUND", f"Could not resolve to a ProjectV2 with the number {number}.")
    return ProjectView(ctx, found)


class OrganizationView:
    typename = "Organization"

    def __init__(self, ctx: Context, login: str, name: str | None, ident: int):
        self.ctx, self.login, self.name = ctx, login, name
        self.id = base64.b64encode(f"04:Organization{ident}".encode()).decode()
        self.url = f"{ctx.urls.web}/{login}"

    def projectsV2(self, info: Any, query: str | None = None, **page: Any) -> Any:
        return projects_of(self.ctx, self.login, query, page)

    def projectV2(self, info: Any, number: int) -> ProjectView:
        return project_numbered(self.ctx, self.login, number)


def resolve_organization(root: Any, info: Any, login: str) -> OrganizationView:
    ctx: Context = info.context
    user = ctx.state.user(login)
    if user is None or user.type != "Organization":
        raise GQLFailure(
            "NOT_FOUND", f"Could not resolve to an Organization with the login of '{login}'."
        )
    return OrganizationView(ctx, user.login, user.name, user.id)


def resolve_user(root: Any, info: Any, login: str) -> UserView:
    ctx: Context = info.context
    user = ctx.state.user(login)
    if user is None or user.type == "Organization":
        raise GQLFailure("NOT_FOUND", f"Could not resolve to a User with the login of '{login}'.")
    return UserView(ctx, user)


def user_projects(root: UserView, info: Any, query: str | None = None, **page: Any) -> Any:
    return projects_of(root.ctx, root.login, query, page)


def user_project(root: UserView, info: Any, number: int) -> ProjectView:
    return project_numbered(root.ctx, root.login, number)
