"""The vocabulary every layer shares: errors, validated parameter types, ref names,
who is calling (principal) and what a tool does to the world (effects). Imports nothing above it;
framework_internals.py (the MCP framework's private names, for serving and hosted) is
imported by nothing else here."""
