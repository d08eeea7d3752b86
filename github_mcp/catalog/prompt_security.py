"""The fix_dependabot_alert prompt: from a Dependabot alert to a pull request that bumps the
vulnerable dependency, with the tests run in a workspace. Lines needing a tool that is not
registered are left out, as in prompts.py."""

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from github_mcp.pipeline.runtime import Runtime

# (the tools a line needs, its text), as prompts.py's Line
Line = tuple[tuple[str, ...], str]


class PromptTexts(Protocol):
    """What this prompt needs of prompts.py's Texts; a Protocol so that prompts.py, which
    calls this module, is not imported back."""

    rt: "Runtime"

    @property
    def tools(self) -> set[str]: ...

    def rules(self) -> str: ...


def fix_dependabot_alert(texts: PromptTexts, full_name: str, number: int) -> str:
    branch = f"dependabot-fix/alert-{number}"
    steps: list[Line] = [
        (
            ("enable_toolset",),
            'If `get_security_alert` is not listed, `enable_toolset("code_security")`.',
        ),
        (
            ("get_security_alert",),
            f'`get_security_alert(full_name="{full_name}", kind="dependabot", '
            f"number={number})`: the package, ecosystem, manifest path, vulnerable range and "
            "patched version. If the alert is not open or has no patched version, report "
            "that and stop.",
        ),
        (
            ("get_file_slice",),
            "Read the manifest on the default branch (`get_file_slice`) and find the line "
            "that pins or bounds the package.",
        ),
        (
            ("create_branch",),
            f'`create_branch(full_name="{full_name}", branch="{branch}")` from the default branch.',
        ),
        (
            ("apply_patch_and_commit",),
            "Raise the requirement to the patched version (the smallest bump that leaves the "
            "vulnerable range) with `apply_patch_and_commit` on that branch; change nothing "
            "else in the manifest.",
        ),
        (
            ("terminal_command", "commit_workspace"),
            "If a lockfile pins the package (poetry.lock, package-lock.json, Pipfile.lock…), "
            "regenerate it in the workspace with the project's own tool "
            "(`terminal_command(..., installing_dependencies=true)`) and commit it with "
            "`commit_workspace(push=true)`; if it cannot be regenerated, say so in the PR.",
        ),
        (
            ("run_tests",),
            f'`run_tests(full_name="{full_name}", ref="{branch}")`. A failure that the '
            "default branch has too is not yours: name it in the PR, do not fix it here.",
        ),
        (
            ("create_pull_request",),
            f'`create_pull_request(head="{branch}")` titled `Bump <package> from <old> to '
            f"<patched>`; the body names Dependabot alert #{number} with its URL, the GHSA "
            "and CVE ids, the manifest changed, and the test results.",
        ),
    ]
    # the code_security toolset is off the default list: enable_toolset lists it
    if "code_security" in texts.rt.settings.listed_toolsets:
        steps = steps[1:]
    kept = [text for needs, text in steps if set(needs) <= texts.tools]
    return (
        f"Fix Dependabot alert #{number} of {full_name} with a pull request.\n\n"
        + "".join(f"{i}. {text}\n" for i, text in enumerate(kept, start=1))
        + "\nDo not dismiss the alert (set_security_alert_state): GitHub closes it when the "
        "fix reaches the default branch. Reply with the PR link and the test results.\n\n"
        + texts.rules()
    )
