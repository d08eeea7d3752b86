"""The demo's Projects (v2), after seed_demo_collab:

- octo-org's "Roadmap": Status (single select Todo / In progress / Done), Iteration (three
  two-week iterations, the first already over), Estimate (number) and Due (date) fields, a
  board view beside the table, demo-app's issues 4 and 6 and pull requests 1 and 2 as items
  with some values set, and an "on track" status update;
- octocat's private "Reading list", so a user's projects can be listed too.
"""

from __future__ import annotations

import datetime
from typing import Any

from sandbox_forge.admin.collab_seeding import ForgeTarget, forge_state, repo_named
from sandbox_forge.stores import projects as store
from sandbox_forge.stores.collab import collab
from sandbox_forge.stores.projects import Iteration, Option, View

DEMO_REPO = "octo-org/demo-app"
STATUS = ("Todo", "In progress", "Done")


def seed_demo_projects(forge: ForgeTarget) -> dict[str, Any]:
    st, repo = forge_state(forge), repo_named(forge, DEMO_REPO)
    roadmap = store.create_project(
        st, "octo-org", "Roadmap", short_description="What demo-app ships next", public=False
    )
    status = store.add_field(st, roadmap, "Status", "SINGLE_SELECT")
    status.options = [Option(id=f"{n:08x}", name=name) for n, name in enumerate(STATUS, 1)]
    sprint = store.add_field(st, roadmap, "Iteration", "ITERATION")
    start = datetime.date.today() - datetime.timedelta(days=21)
    sprint.iterations = [
        Iteration(id=f"it{n:06x}", title=f"Iteration {n}", start_date=day.isoformat())
        for n, day in ((n, start + datetime.timedelta(days=14 * (n - 1))) for n in (1, 2, 3))
    ]
    estimate = store.add_field(st, roadmap, "Estimate", "NUMBER")
    due = store.add_field(st, roadmap, "Due", "DATE")
    roadmap.views.append(View(id=st.next_id(), number=2, name="Board", layout="BOARD_LAYOUT"))
    issues = collab(repo).issues
    values: dict[int, dict[int, Any]] = {
        4: {status.id: status.options[0].id, estimate.id: 2.0},
        6: {status.id: status.options[1].id, sprint.id: sprint.iterations[1].id},
        1: {status.id: status.options[1].id, due.id: (start + datetime.timedelta(days=35))},
        2: {status.id: status.options[2].id, estimate.id: 1.0},
    }
    for number, fields in values.items():
        item = store.add_item(st, roadmap, repo.id, issues[number].id)
        for field_id, value in fields.items():
            text = value.isoformat() if isinstance(value, datetime.date) else value
            store.set_value(st, roadmap, item, field_id, text)
    store.add_status_update(
        st, roadmap, "alice", status="ON_TRACK", body="The web module is next; on track.",
        start_date=start.isoformat(),
        target_date=(start + datetime.timedelta(days=42)).isoformat(),
    )  # fmt: skip
    reading = store.create_project(st, "octocat", "Reading list")
    store.add_field(st, reading, "Notes", "TEXT")
    return {"octo-org": [roadmap.number], "octocat": [reading.number]}
