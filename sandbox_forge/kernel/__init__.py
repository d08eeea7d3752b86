"""The bottom of the forge: what every layer needs and that needs nothing of the forge.
GitHub's error bodies and JSON responses (`errors.ApiError`, `not_found`,
`validation_failed`), absolute URLs as the forge is reached (`urls.Urls`), and GitHub's
formats: timestamps, node ids and the short user object (`formats`). Stores raise these
errors and the REST, GraphQL and admin layers answer with them.
"""
