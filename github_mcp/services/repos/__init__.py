"""Repository services: repo_views (the repository, branches, commits, comparisons),
repo_admin (create, fork, delete), file_views and tree (what the file tools answer), blame,
and edits (diffs, whole texts and line sections as verified commits). The commit engine
and file reads they build on are shared (github_mcp.services.shared).
"""
