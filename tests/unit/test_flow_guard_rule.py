"""The cross-visibility rule (flow_guard.decide) and the per-scope read record, with plain
values: no server, no forge. The end-to-end attack replay is test_toxic_flow.py."""

from __future__ import annotations

import pytest

from github_mcp.policy.flow_guard import UNTRACKED, Destination, decide
from github_mcp.policy.read_ledger import ReadLedger

PUBLIC = Destination("acme/site", "public")
SECRET_READ = {"acme/secrets": "private", "acme/site": "public"}


@pytest.mark.parametrize("mode, action", [("approve", "ask"), ("deny", "deny")])
def test_a_private_read_then_a_public_write_is_stopped(mode, action):
    decision = decide(mode, PUBLIC, SECRET_READ)
    assert decision.action == action and decision.reason == "cross_visibility"
    assert decision.private_read == ("acme/secrets",)
    assert "acme/secrets" in decision.explain() and "acme/site" in decision.explain()


def test_allow_mode_never_stops_a_write():
    assert decide("allow", PUBLIC, SECRET_READ).action == "allow"


@pytest.mark.parametrize("visibility", ["private", "internal", "secret"])
def test_a_write_that_does_not_publish_passes(visibility):
    decision = decide("approve", Destination("acme/other", visibility), SECRET_READ)
    assert decision.action == "allow" and decision.reason == "not_publishing"


def test_only_public_reads_never_stop_a_public_write():
    reads = {"acme/site": "public", "octo/lib": "public", "gone/repo": "absent"}
    decision = decide("approve", PUBLIC, reads)
    assert decision.action == "allow" and decision.reason == "nothing_private_read"


def test_internal_and_unknown_reads_count_as_private():
    reads = {"corp/handbook": "internal", "acme/flaky": "unknown", "acme/site": "public"}
    decision = decide("approve", PUBLIC, reads)
    assert decision.action == "ask"
    assert decision.private_read == ("acme/flaky", "corp/handbook")


def test_an_unknown_destination_counts_as_public():
    for destination in (Destination(None, "unknown"), Destination("acme/x", "unknown")):
        assert decide("approve", destination, SECRET_READ).action == "ask"


def test_a_public_gist_publishes_and_a_secret_one_does_not():
    assert decide("approve", Destination(None, "public"), SECRET_READ).action == "ask"
    assert decide("approve", Destination(None, "secret"), SECRET_READ).action == "allow"


def test_writing_back_to_the_repository_read_is_not_crossing():
    # the destination's own lookup failed: reading and writing one repository never crosses
    decision = decide("approve", Destination("Acme/Secrets", "unknown"), {"acme/secrets": "x"})
    assert decision.action == "allow"


def test_an_overflowing_record_fails_closed():
    decision = decide("approve", PUBLIC, {"acme/site": "public"}, overflow=True)
    assert decision.action == "ask" and decision.private_read == (UNTRACKED,)


def test_the_ledger_keeps_reads_per_scope():
    ledger = ReadLedger()
    ledger.note("alice/s1", {"acme/secrets": None})
    ledger.note("alice/s1", {"ACME/Secrets": "private", "acme/site": "public"})
    ledger.note("bob/s2", {"acme/site": None})
    sources, overflow = ledger.read_by("alice/s1")
    assert sources == {"acme/secrets": "private", "acme/site": "public"} and not overflow
    assert ledger.read_by("bob/s2") == ({"acme/site": None}, False)
    assert ledger.read_by("carol/s3") == ({}, False)
    ledger.drop("alice/s1")
    assert ledger.read_by("alice/s1") == ({}, False)


def test_the_ledger_keeps_the_more_private_of_two_statements():
    """A repository one answer said was public and another said was private (made
    private in between) counts as private; a stated visibility is never lost to a read
    that stated none."""
    ledger = ReadLedger()
    ledger.note("s", {"acme/app": "public", "acme/lib": "private"})
    ledger.note("s", {"acme/app": "private", "acme/lib": "public", "ACME/LIB": None})
    ledger.note("s", {"acme/app": None})
    assert ledger.read_by("s") == ({"acme/app": "private", "acme/lib": "private"}, False)


def test_the_ledger_is_bounded_and_says_so():
    ledger = ReadLedger(max_repos=2, max_scopes=2)
    ledger.note("a", {"o/1": None})
    ledger.note("a", {"o/2": "public"})
    ledger.note("a", {"o/3": "private"})
    sources, overflow = ledger.read_by("a")
    assert sources == {"o/1": None, "o/2": "public"} and overflow
    ledger.note("b", {"o/1": None})
    ledger.note("c", {"o/1": None})  # the least recently used scope ("a") goes
    assert ledger.read_by("a") == ({}, False) and ledger.read_by("c") == ({"o/1": None}, False)


def test_unidentified_callers_share_one_record():
    ledger = ReadLedger()
    ledger.note(None, {"acme/secrets": None})
    assert ledger.read_by(None) == ({"acme/secrets": None}, False)


def test_every_write_tool_names_where_it_publishes():
    """The guard judges a write by its destination: a write tool names its repository
    argument, or has a target resolver that names the repository or the visibility (a
    gist). One with neither would be judged as publishing to an unknown, public place."""
    import extra_tools  # noqa: F401  (registers its tools)
    import github_mcp.tools  # noqa: F401
    from github_mcp.pipeline.registry import REGISTRY

    writes = [spec for spec in REGISTRY.values() if spec.write]
    assert writes
    unnamed = [s.name for s in writes if not s.repo_arg and not callable(s.target)]
    assert unnamed == []
