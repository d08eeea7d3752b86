"""The sandbox forge: a local stand-in for GitHub's REST API and git smart HTTP.

It imports nothing from the rest of github_mcp, so the client tested against it proves
something. See README.md beside this file.
"""

from sandbox_forge.forge import Forge
from sandbox_forge.stores.records import RefUpdate

__all__ = ["Forge", "RefUpdate"]
