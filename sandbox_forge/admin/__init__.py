"""Driving the forge from outside its API: the admin API under `/_sandbox/` (`routes`,
`collab_routes`; every call needs the admin token), creating repositories from files or a
directory (`seeding`), in-process helpers for collaboration data (`collab_seeding`), and
the demo content (`seed`, `demo_collab`, `demo_collab_data`, gathered by `seed_collab`).
The HTTP app imports only the routes and the helpers they call, never the demo.
"""
