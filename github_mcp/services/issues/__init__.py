"""Issue services: issues (the REST calls), issue_views (cleaned, capped, labelled text),
labels and reactions.
"""
