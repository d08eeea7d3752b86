"""MCP prompts and resources that teach an assistant how to use this server well."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fastmcp import FastMCP

    from .runtime import Runtime

OPERATING_CONTRACT = """\
You are working on GitHub through the GitHub MCP Controller.
1. Orient: get_server_config shows the write policy; get_repository gives the default branch.
2. Read cheaply: list_repository_tree (filtered), get_file_slice for big files, fetch_files for
   several files at once.
3. Branch first: create_branch from the default branch; write only there. Writes to the default
   or a protected branch need the human's approval (authorize_write_actions).
4. Patch, don't rewrite: apply_patch_and_commit with a unified diff against the file you just
   read; update_file_sections_and_commit for line ranges; commit_files for several files.
5. Verify: every commit returns verification.verified; if false or conflict, re-read and retry.
6. Test: run_tests / terminal_command in the workspace clone of your branch.
7. CI: get_failing_tests(pr) names failing tests and how to rerun them; get_job_logs for detail.
8. Ship: create_pull_request, then check_merge_readiness; merge only when it says ready.
Errors come as {"error": {code, message, hint}}: follow the hint.
"""


def register_prompts_and_resources(mcp: FastMCP, rt: Runtime) -> None:
    @mcp.prompt(name="start_session", description="The operating contract for this server.")
    def start_session() -> str:
        return OPERATING_CONTRACT

    @mcp.resource(
        "contract://operating-contract",
        name="operating_contract",
        mime_type="text/markdown",
        description="How to work with this server.",
    )
    def operating_contract() -> str:
        return OPERATING_CONTRACT
