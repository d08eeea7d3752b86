"""The vocabulary every layer shares: errors, validated parameter types, ref names,
who is calling (principal) and what a tool does to the world (effects). Imports nothing above it."""
