"""The diff summary the approval page and form show (pure functions, no server)."""

from __future__ import annotations

from github_mcp.approvals import count_lines, patch_changes

PATCH = """\
--- a/src/app.py
+++ b/src/app.py
@@ -1,3 +1,4 @@
 import os
-print("old")
+print("new")
+print("more")
--- /dev/null
+++ b/docs/new.md
@@ -0,0 +1,2 @@
+# New
+text
--- a/old.txt
+++ /dev/null
@@ -1 +0,0 @@
-gone
"""


def test_patch_files_and_line_counts():
    changes = {c.path: (c.change, c.added, c.removed) for c in patch_changes(PATCH)}
    assert changes == {
        "src/app.py": ("patched", 2, 1),
        "docs/new.md": ("added", 2, 0),
        "old.txt": ("deleted", 0, 1),
    }


def test_line_counts_exact_and_bounded():
    assert count_lines("a\nb\nc\n", "a\nB\nc\nd\n") == (2, 1)
    assert count_lines(None, "x\ny\n") == (2, 0)
    big_old = "".join(f"{i}\n" for i in range(5000))
    big_new = big_old.replace("\n4242\n", "\nforty-two\n") + "tail\n"
    assert count_lines(big_old, big_new) == (2, 1)  # multiset count above the exact limit
