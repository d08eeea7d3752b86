"""Who wrote a piece of repository text, and whether to show it.

Issue, pull request, review and comment bodies are written by anyone who can
open an issue, and a model reading them may take them for instructions. Each
such item carries its author's association with the repository as GitHub
reports it (`author_association` in REST, `authorAssociation` in GraphQL), so
the reader can weigh it. In lockdown mode the text of authors without push
access (anything but OWNER, MEMBER or COLLABORATOR) is replaced by a short
note naming the author. An unknown association counts as no push access.

Commits carry no association in GitHub's API; their messages are labelled as
untrusted text instead (see the commit tools).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NotRequired, TypedDict

__all__ = [
    "ASSOCIATIONS",
    "PUSH_ACCESS",
    "Authored",
    "association_of",
    "authored",
]

ASSOCIATIONS = frozenset(
    {
        "OWNER",
        "MEMBER",
        "COLLABORATOR",
        "CONTRIBUTOR",
        "FIRST_TIME_CONTRIBUTOR",
        "FIRST_TIMER",
        "MANNEQUIN",
        "NONE",
    }
)
PUSH_ACCESS = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})


def association_of(item: Mapping[str, Any]) -> str | None:
    """The item's author association, from a REST or a GraphQL object; None if absent."""
    value = item.get("author_association") or item.get("authorAssociation")
    return value if value in ASSOCIATIONS else None


def withheld_note(login: str | None, association: str | None) -> str:
    who = f"@{login}" if login else "an unknown author"
    role = association or "unknown association"
    return f"[withheld in lockdown mode: written by {who} ({role}), who has no push access]"


class AuthorFields(TypedDict):
    """The fields an item's answer takes from its `Authored`."""

    author_association: str | None
    withheld: NotRequired[bool]


class Authored:
    """One item's author, association and the lockdown verdict on its text."""

    __slots__ = ("association", "login", "withheld")

    def __init__(self, login: str | None, association: str | None, lockdown: bool) -> None:
        self.login = login
        self.association = association
        self.withheld = lockdown and association not in PUSH_ACCESS

    def text(self, body: str) -> str:
        """`body` as shown: the note instead when withheld."""
        return withheld_note(self.login, self.association) if self.withheld else body

    def fields(self) -> AuthorFields:
        """`author_association`, and `withheld: True` when the text was withheld."""
        out = AuthorFields(author_association=self.association)
        if self.withheld:
            out["withheld"] = True
        return out


def authored(item: Mapping[str, Any], lockdown: bool) -> Authored:
    """The `Authored` of a REST (`user`) or GraphQL (`author`) item."""
    user = item.get("user") or item.get("author") or {}
    return Authored(user.get("login"), association_of(item), lockdown)
