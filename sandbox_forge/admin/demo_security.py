"""The demo's code security: alerts on octo-org/demo-app and advisories to read.

- a Dependabot alert for requirements.txt's `requests==2.19.1`, from the real advisory
  GHSA-x84v-xcm2-53pg (CVE-2018-18074), patched in 2.20.0;
- a code scanning alert on src/demo_app/report.py (a shell command built from input);
- a secret scanning alert for the token in config/dev.env (its value is made at seed time);
- the advisory in the global database, with a second one for an npm package, and a
  published repository advisory of demo-app.
"""

from __future__ import annotations

import calendar
import time
from typing import Any

from sandbox_forge.admin.collab_seeding import ForgeTarget, forge_state, repo_named
from sandbox_forge.stores import security
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.security import Advisory, Alert

DEMO_REPO = "octo-org/demo-app"


def _day(text: str) -> float:
    return float(calendar.timegm(time.strptime(text, "%Y-%m-%d")))


REQUESTS_ADVISORY = Advisory(
    ghsa_id="GHSA-x84v-xcm2-53pg",
    cve_id="CVE-2018-18074",
    summary="Insufficiently Protected Credentials in Requests",
    description=(
        "The Requests package before 2.20.0 for Python sends an HTTP Authorization header "
        "to an http URI upon receiving a same-hostname https-to-http redirect, which makes "
        "it easier for remote attackers to discover credentials by sniffing the network."
    ),
    severity="high",
    ecosystem="pip",
    package="requests",
    vulnerable_range="<= 2.19.1",
    patched="2.20.0",
    cvss_vector="CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N",
    cvss_score=7.5,
    cwes=[("CWE-522", "Insufficiently Protected Credentials")],
    references=["https://nvd.nist.gov/vuln/detail/CVE-2018-18074"],
    published_at=_day("2018-10-29"),
)
MINIMIST_ADVISORY = Advisory(
    ghsa_id="GHSA-xvch-5gv4-984h",
    cve_id="CVE-2021-44906",
    summary="Prototype Pollution in minimist",
    description="Minimist before 1.2.6 is vulnerable to Prototype Pollution via setKey().",
    severity="critical",
    ecosystem="npm",
    package="minimist",
    vulnerable_range="< 0.2.4",
    patched="0.2.4",
    cvss_vector="CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H",
    cvss_score=9.8,
    cwes=[("CWE-1321", "Prototype Pollution")],
    references=["https://nvd.nist.gov/vuln/detail/CVE-2021-44906"],
    published_at=_day("2022-03-18"),
)
SHELL_RULE = {
    "id": "py/shell-command-constructed-from-input",
    "name": "py/shell-command-constructed-from-input",
    "severity": "error",
    "security_severity_level": "medium",
    "description": "Unsafe shell command constructed from library input",
    "full_description": (
        "Using externally controlled strings in a command line may allow a malicious user "
        "to change the meaning of the command."
    ),
    "help": (
        "# Unsafe shell command constructed from library input\n\n"
        "Dynamically constructing a shell command with inputs from library functions may "
        "inadvertently change the meaning of the shell command.\n\n"
        "## Recommendation\n\nPass the arguments as a list and do not use `shell=True`."
    ),
    "help_uri": "https://codeql.github.com/codeql-query-help/python/",
}


def _line_of(repo: RepoRecord, commit: str, path: str, needle: str) -> tuple[str, int, str]:
    """The blob sha, 1-based line number and line text where needle first occurs."""
    entry = repo.git.ls_tree(commit, path)[0]
    lines = repo.git.read_blob(entry.sha).decode().splitlines()
    number = next(i for i, line in enumerate(lines, 1) if needle in line)
    return entry.sha, number, lines[number - 1]


def seed_demo_security(forge: ForgeTarget, full_name: str = DEMO_REPO) -> dict[str, Any]:
    """The global advisories, the repository's three alerts and its advisory."""
    st = forge_state(forge)
    for advisory in (REQUESTS_ADVISORY, MINIMIST_ADVISORY):
        security.add_advisory(st, Advisory(**vars(advisory)))
    return seed_repo_alerts(forge, full_name)


def seed_repo_alerts(forge: ForgeTarget, full_name: str) -> dict[str, Any]:
    """An alert of each kind and a published advisory for a repository holding the demo's
    requirements.txt, src/demo_app/report.py and config/dev.env."""
    st, repo = forge_state(forge), repo_named(forge, full_name)
    head = repo.git.resolve_commit(repo.default_branch)
    assert head is not None
    dependabot = security.add_alert(
        st,
        repo,
        Alert(
            0,
            "dependabot",
            advisory=Advisory(**vars(REQUESTS_ADVISORY)),
            manifest="requirements.txt",
        ),
    )
    code = security.add_alert(st, repo, _code_scanning_alert(repo, head))
    secret = security.add_alert(st, repo, _secret_scanning_alert(repo, head))
    security.add_advisory(st, _report_advisory(repo.full_name))
    return {
        "dependabot": [dependabot.number],
        "code_scanning": [code.number],
        "secret_scanning": [secret.number],
    }


def _code_scanning_alert(repo: RepoRecord, head: str) -> Alert:
    """The shell command report.py builds from its argument."""
    _, line, _ = _line_of(repo, head, "src/demo_app/report.py", "shell=True")
    return Alert(
        0,
        "code-scanning",
        rule=dict(SHELL_RULE),
        ref=f"refs/heads/{repo.default_branch}",
        commit_sha=head,
        path="src/demo_app/report.py",
        start_line=line,
        end_line=line,
        message="This shell command depends on an uncontrolled value passed to word_count.",
    )


def _secret_scanning_alert(repo: RepoRecord, head: str) -> Alert:
    """The AWS key committed in config/dev.env."""
    blob, line, text = _line_of(repo, head, "config/dev.env", "AWS_ACCESS_KEY_ID=")
    return Alert(
        0,
        "secret-scanning",
        secret_type="aws_access_key_id",  # noqa: S106 (a type name)
        secret_type_display_name="AWS Access Key ID",  # noqa: S106
        secret=text.split("=", 1)[1],
        commit_sha=head,
        blob_sha=blob,
        path="config/dev.env",
        start_line=line,
        end_line=line,
    )


def _report_advisory(full_name: str) -> Advisory:
    return Advisory(
        ghsa_id="GHSA-2c4m-9xvw-r7qh",
        cve_id=None,
        summary="report.word_count runs a shell command built from its argument",
        description="word_count passes its path to a shell; use a list of arguments.",
        severity="medium",
        ecosystem="pip",
        package="demo-app",
        vulnerable_range="<= 0.1.0",
        patched=None,
        repo=full_name.lower(),
    )
