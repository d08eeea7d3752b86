"""REST endpoints, one module per area of GitHub's API (repositories, refs, git data,
commits, contents, search, users and App auth, issues, pull requests and merges, reviews,
checks, Actions, branch protection). Each module exposes `routes(state)` (and optionally
`setup(state)`) and is listed in `FEATURES` in `sandbox_forge/app.py`; handlers read and
change records through `sandbox_forge.stores` and answer with `sandbox_forge.rest.shapes`.
"""
