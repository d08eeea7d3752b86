"""Command-line entry points: serve, call, docs generation, the parity map and the demo."""
