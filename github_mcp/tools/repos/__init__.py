"""Repository tools (services: github_mcp.services.repos and the shared commit engine).

- repos: the repository, its branches, commits and comparisons (toolset repos);
- files: the filtered tree, file contents, slices and batches (toolset files);
- blame: who last changed each line (toolset blame);
- writes: branches and verified commits (toolset writes);
- destructive: delete or move a file, delete a remote branch;
- repo_admin: create, fork and delete repositories (toolset repo_admin).
Discovery (github_mcp/tools/__init__.py) imports each public module of the package.
"""
