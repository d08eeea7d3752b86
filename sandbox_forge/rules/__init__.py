"""Repository rules enforced on every path that moves a ref (see enforce.py), and the
git push hook that asks the forge about each pushed ref (push.py, push_hook.py)."""
