"""Demo discussions on octo-org/demo-app, so that `make run` shows the discussion tools:
three categories (Q&A answerable), an answered question with a reply to its answer, and
an open idea."""

from __future__ import annotations

from typing import Any

from sandbox_forge.admin.collab_seeding import ForgeTarget, forge_state, repo_named
from sandbox_forge.stores import discussions as store

DEMO_REPO = "octo-org/demo-app"


def seed_demo_discussions(forge: ForgeTarget, full_name: str = DEMO_REPO) -> dict[str, Any]:
    st, repo = forge_state(forge), repo_named(forge, full_name)
    general = store.add_category(st, repo, "General", description="Chat about demo-app")
    ideas = store.add_category(st, repo, "Ideas", emoji=":bulb:", description="Share ideas")
    qna = store.add_category(
        st, repo, "Q&A", emoji=":pray:", description="Ask for help", answerable=True
    )
    qna.slug = "q-a"  # GitHub's slug for "Q&A"
    question = store.add_discussion(
        st, repo, qna, "alice", "Why does divide() return a float?",
        "`divide(4, 2)` gives `2.0`. Is that on purpose?",
    )  # fmt: skip
    answer = store.add_comment(
        st, repo, question, "octocat", "Yes: it is true division, like Python's `/`."
    )
    store.add_comment(st, repo, question, "alice", "Thanks, that makes sense.", answer.id)
    store.add_comment(st, repo, question, "bob", "Could we add an integer variant?")
    with st.lock:
        question.answer = answer.id
    idea = store.add_discussion(
        st, repo, ideas, "bob", "Add a multiply() function",
        "The calculator adds and divides; multiplying would round it out.",
    )  # fmt: skip
    summary = {
        "categories": [general.slug, ideas.slug, qna.slug],
        "question": question.number,
        "idea": idea.number,
        "answer": answer.id,
    }
    st.extensions["demo_discussions"] = summary
    return summary
