"""What several domains' services need, so no domain imports another's (pyproject.toml's
import contracts let every tool module use this package):

- github_json: GitHub's JSON as TypedDicts; paging: opaque offset cursors;
- repo_facts: repository paths, default branch, ref resolution;
- account: who the credentials belong to, the rate limit; rate_state: a search's rate limit;
- content: binary detection, line slices, byte cuts; authorship: who wrote a text;
- files, file_blobs: reading files at a ref;
- the commit engine: commit_types, commit_checks, commits, signed_commits, branches, patches;
- approved_state, approved_records: the remote state a human's approval is bound to.
"""
