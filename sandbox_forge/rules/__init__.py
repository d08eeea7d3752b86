"""Repository rules enforced on every path that moves a ref (see enforce.py), and the
git push hook that asks the forge about each pushed ref (push.py, push_hook.py); classic
branch protection and what it demands of a merge (protection.py), a pull request's lazy
mergeability (mergeability.py), and publishing a release, whose new tag passes the tag
rules (releases.py). Rules read the stores and git below them; the HTTP layers call them."""
