"""The operator's extension point: tools declared here are registered next to the built-in
ones when the server starts from this checkout (`main.py`, `python -m github_mcp`, or an
installed `github-mcp-controller` with this directory on PYTHONPATH).

Declare a tool with `github_mcp.pipeline.registry.tool`, naming the toolset and, for writes,
the target and what an approval of it is bound to: `binds=` a binder reading the remote
state the write depends on (`github_mcp.tools.repos.writes.branch_at`, the branch's head, for a
commit), or `ArgumentsOnly("why the arguments are the whole effect")`. A write that
declares neither is refused when this module is imported. After a write succeeds, the
pipeline drops the repository's cached reads; a result with a `written(repo)` method
(`github_mcp.kernel.effects.Written`) names the branch that moved, and a clean workspace
clone of it is fast-forwarded. A handler does neither itself.
`github_mcp/tools/repos/destructive.py` shows complete examples (delete_file, move_file,
delete_remote_branch), built from public APIs only:

    from github_mcp.kernel.params import FullName
    from github_mcp.pipeline.registry import Call, tool

    @tool(toolset="repos")
    async def my_tool(call: Call, full_name: FullName) -> dict:
        \"\"\"One line that tells the model what this does.\"\"\"
        ...

An import error here (a typo, a missing dependency, an unknown toolset) stops the server;
only a missing module is skipped.
"""

from __future__ import annotations
