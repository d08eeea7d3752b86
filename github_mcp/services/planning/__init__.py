"""Planning across issues: issue_planning (sub-issues, dependencies, milestones), issue_meta
(issue types and fields) and duplicates (similar open issues).
"""
