"""Code security: security (code scanning, Dependabot and secret scanning alerts),
advisories (security advisories) and code_quality (Code Quality findings).
"""
