"""The /status page for operators and signed-in users: health, activity and approvals."""
