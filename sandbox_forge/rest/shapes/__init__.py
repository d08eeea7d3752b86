"""JSON shapes: records turned into the objects GitHub's REST API answers with (users and
repositories, git objects, issues, pull requests, reviews, checks, Actions), with every
field the published OpenAPI description requires. Pure functions of the records; the
contract tests in tests/forge*/ check them against that description.
"""
