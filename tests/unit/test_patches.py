"""Unified diffs: normalisation, parsing, exact application, generation."""

from __future__ import annotations

import json
import random

import pytest

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.services.shared.patches._service import (
    FilePatch,
    apply_file_patch,
    normalize_patch,
    parse_patch,
    unified_diff,
)

ORIGINAL = "".join(f"line {i}\n" for i in range(1, 11))

SIMPLE = """\
--- a/src/app.py
+++ b/src/app.py
@@ -2,3 +2,4 @@
 line 2
-line 3
+line three
+line 3.5
 line 4
"""


def apply_all(patch: str, files: dict[str, str]) -> dict[str, str]:
    out = dict(files)
    for fp in parse_patch(normalize_patch(patch)):
        result = apply_file_patch(out.get(fp.old_path) if fp.old_path else None, fp)
        if fp.old_path and (fp.is_rename or result is None):
            out.pop(fp.old_path, None)
        if result is not None:
            out[fp.path] = result
    return out


def invalid(fn, *args, **kw) -> GitHubMCPError:
    with pytest.raises(GitHubMCPError) as ei:
        fn(*args, **kw)
    assert ei.value.code is ErrorCode.INVALID_INPUT
    return ei.value


# --------------------------------------------------------------------------- apply


def test_single_file_patch():
    [fp] = parse_patch(SIMPLE)
    assert (fp.old_path, fp.new_path, fp.path) == ("src/app.py", "src/app.py", "src/app.py")
    h = fp.hunks[0]
    assert (h.old_start, h.old_count, h.new_start, h.new_count) == (2, 3, 2, 4)
    out = apply_file_patch(ORIGINAL, fp)
    assert out == ORIGINAL.replace("line 3\n", "line three\nline 3.5\n")


def test_multi_file_create_delete_rename():
    patch = """\
diff --git a/old name.txt b/new name.txt
similarity index 80%
rename from old name.txt
rename to new name.txt
index 1111111..2222222 100644
--- a/old name.txt
+++ b/new name.txt
@@ -1,2 +1,2 @@
 keep
-old
+new
diff --git a/added.md b/added.md
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/added.md
@@ -0,0 +1,2 @@
+# Title
+body
diff --git a/gone.txt b/gone.txt
deleted file mode 100644
index 4444444..0000000
--- a/gone.txt
+++ /dev/null
@@ -1,2 +0,0 @@
-a
-b
diff --git a/same.txt b/moved/same.txt
similarity index 100%
rename from same.txt
rename to moved/same.txt
diff --git a/run.sh b/run.sh
old mode 100644
new mode 100755
"""
    fps = parse_patch(patch)
    assert [(f.old_path, f.new_path) for f in fps] == [
        ("old name.txt", "new name.txt"),
        (None, "added.md"),
        ("gone.txt", None),
        ("same.txt", "moved/same.txt"),
        ("run.sh", "run.sh"),
    ]
    assert fps[0].is_rename and fps[1].is_new and fps[2].is_deleted
    assert (fps[1].new_mode, fps[4].old_mode, fps[4].new_mode) == ("100644", "100644", "100755")
    files = {"old name.txt": "keep\nold\n", "gone.txt": "a\nb\n", "same.txt": "s\n", "run.sh": "x"}
    assert apply_all(patch, files) == {
        "new name.txt": "keep\nnew\n",
        "added.md": "# Title\nbody\n",
        "moved/same.txt": "s\n",
        "run.sh": "x",
    }


def test_create_when_file_exists_and_modify_missing_file_fail():
    [new] = parse_patch("--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+a\n")
    with pytest.raises(GitHubMCPError) as ei:
        apply_file_patch("already\n", new)
    assert ei.value.code is ErrorCode.PATCH_DOES_NOT_APPLY
    [mod] = parse_patch(SIMPLE)
    with pytest.raises(GitHubMCPError) as ei:
        apply_file_patch(None, mod)
    assert ei.value.code is ErrorCode.PATCH_DOES_NOT_APPLY


def test_delete_must_remove_every_line():
    [fp] = parse_patch("--- a/x\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n")
    assert apply_file_patch("a\n", fp) is None
    with pytest.raises(GitHubMCPError) as ei:
        apply_file_patch("a\nb\n", fp)
    assert ei.value.code is ErrorCode.PATCH_DOES_NOT_APPLY


def test_mismatch_names_the_hunk_and_shows_actual_lines():
    patch = """\
--- a/f.txt
+++ b/f.txt
@@ -1,2 +1,2 @@
 line 1
-line 2
+LINE 2
@@ -7,3 +7,3 @@
 line 7
-line 8 changed upstream
+line 8 mine
 line 9
"""
    [fp] = parse_patch(patch)
    with pytest.raises(GitHubMCPError) as ei:
        apply_file_patch(ORIGINAL, fp)
    err = ei.value
    assert err.code is ErrorCode.PATCH_DOES_NOT_APPLY
    assert err.details["hunk"] == 2
    assert err.details["hunk_header"] == "@@ -7,3 +7,3 @@"
    assert err.details["expected"] == ["line 7", "line 8 changed upstream", "line 9"]
    assert err.details["actual"] == ["line 7", "line 8", "line 9"]
    assert err.details["at_line"] == 7 and err.details["path"] == "f.txt"
    env = err.envelope()["error"]
    assert env["code"] == "patch_does_not_apply" and env["hunk"] == 2


def test_no_offset_search_but_a_hint_where_the_lines_are():
    moved = "header\nheader 2\n" + ORIGINAL
    [fp] = parse_patch(SIMPLE)
    with pytest.raises(GitHubMCPError) as ei:
        apply_file_patch(moved, fp)
    assert ei.value.details["found_at"] == [4]
    assert "line 4" in ei.value.hint


def test_context_must_match_exactly_whitespace_included():
    [fp] = parse_patch(SIMPLE.replace(" line 4", " line 4 "))
    with pytest.raises(GitHubMCPError) as ei:
        apply_file_patch(ORIGINAL, fp)
    assert ei.value.details["actual"][-1] == "line 4"


def test_hunk_past_end_of_file():
    [fp] = parse_patch("--- a/f\n+++ b/f\n@@ -20,1 +20,1 @@\n-x\n+y\n")
    with pytest.raises(GitHubMCPError) as ei:
        apply_file_patch(ORIGINAL, fp)
    assert ei.value.details["actual"] == []


# --------------------------------------------------------------------------- line endings


def test_crlf_file_stays_crlf_with_lf_patch():
    crlf = ORIGINAL.replace("\n", "\r\n")
    [fp] = parse_patch(SIMPLE)
    out = apply_file_patch(crlf, fp)
    assert out == crlf.replace("line 3\r\n", "line three\r\nline 3.5\r\n")
    assert "\n" not in out.replace("\r\n", "")


def test_git_diff_of_crlf_file_keeps_its_carriage_returns():
    patch = "--- a/w.bat\n+++ b/w.bat\n@@ -1,2 +1,2 @@\n echo a\r\n-echo b\r\n+echo c\r\n"
    assert normalize_patch(patch) == patch  # mixed endings: not a transport artefact
    [fp] = parse_patch(patch)
    assert apply_file_patch("echo a\r\necho b\r\n", fp) == "echo a\r\necho c\r\n"


def test_crlf_transport_is_normalised():
    patch = SIMPLE.replace("\n", "\r\n")
    assert normalize_patch(patch) == SIMPLE
    assert apply_all(patch, {"src/app.py": ORIGINAL})["src/app.py"].count("\r") == 0


def test_no_newline_at_eof_both_ways():
    old, new = "a\nb", "a\nc\n"
    diff = unified_diff(old, new, "f")
    assert "\\ No newline at end of file" in diff
    [fp] = parse_patch(diff)
    assert fp.hunks[0].old_no_eol and not fp.hunks[0].new_no_eol
    assert apply_file_patch(old, fp) == new
    back = unified_diff(new, old, "f")
    [fp] = parse_patch(back)
    assert fp.hunks[0].new_no_eol
    assert apply_file_patch(new, fp) == old


def test_trailing_newline_state_is_preserved_without_markers():
    # An assistant's patch that ignores "\ No newline" keeps the file's state.
    patch = "--- a/f\n+++ b/f\n@@ -2 +2,2 @@\n-b\n+c\n+d\n"
    [fp] = parse_patch(patch)
    assert apply_file_patch("a\nb", fp) == "a\nc\nd"
    assert apply_file_patch("a\nb\n", fp) == "a\nc\nd\n"


def test_append_after_last_line_without_newline():
    [fp] = parse_patch("--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n a\n+b\n")
    assert apply_file_patch("a", fp) == "a\nb"


def test_context_only_no_newline_marker():
    diff = unified_diff("a\nb\nc", "A\nb\nc", "f", context=3)
    assert diff.endswith(" c\n\\ No newline at end of file\n")
    [fp] = parse_patch(diff)
    assert apply_file_patch("a\nb\nc", fp) == "A\nb\nc"


# --------------------------------------------------------------------------- normalise


def test_fenced_patch_with_prose():
    text = "Here is the fix:\n\n```diff\n" + SIMPLE + "```\n\nLet me know if it works!\n"
    assert normalize_patch(text) == SIMPLE


def test_two_fenced_blocks_are_both_kept():
    other = SIMPLE.replace("src/app.py", "src/b.py")
    text = f"First:\n```diff\n{SIMPLE}```\nSecond:\n~~~patch\n{other}~~~\n"
    assert [f.path for f in parse_patch(normalize_patch(text))] == ["src/app.py", "src/b.py"]


def test_escaped_newlines_are_repaired():
    escaped = SIMPLE.replace("\n", "\\n")
    assert "\n" not in escaped
    assert normalize_patch(escaped) == SIMPLE
    # JSON-escaped, with a real backslash-n inside the code
    code = SIMPLE.replace("line three", 'print("a\\n")')
    assert normalize_patch(json.dumps(code)[1:-1]) == code


def test_escapes_are_left_alone_when_there_are_real_newlines():
    patch = SIMPLE.replace("line three", 'print("a\\n")')
    assert normalize_patch(patch) == patch


def test_trailing_junk_after_last_hunk_goes():
    text = SIMPLE + "\nThis changes line 3.\n```\n"
    assert normalize_patch(text) == SIMPLE
    assert normalize_patch(SIMPLE + "-- \n2.39.5\n\n") == SIMPLE


def test_format_patch_email_is_accepted():
    mail = (
        "From 1234 Mon Sep 17 00:00:00 2001\nSubject: [PATCH] fix\n\n---\n"
        " src/app.py | 3 ++-\n 1 file changed\n\n" + "diff --git a/src/app.py b/src/app.py\n"
        "index 1..2 100644\n" + SIMPLE + "-- \n2.39.5\n"
    )
    assert apply_all(mail, {"src/app.py": ORIGINAL})["src/app.py"].count("line three") == 1


def test_miscounted_hunk_is_not_silently_shortened():
    # The header says 3 old / 3 new lines but the body has one more '+' line.
    bad = "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n line 1\n-line 2\n+two\n+extra\n line 3\n"
    err = invalid(parse_patch, normalize_patch(bad))
    assert "line 7" in err.message or "line 8" in err.message or "declares" in err.message


# --------------------------------------------------------------------------- parse errors


def test_hunk_with_too_few_lines_names_the_line():
    bad = "--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n line 1\n-line 2\n+two\n"
    err = invalid(parse_patch, bad)
    assert err.message.startswith("line 3:")
    assert err.details["declared"] == [4, 4] and err.details["found"] == [2, 2]


def test_hunk_with_too_many_lines():
    bad = "--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n-a\n+b\n+c\n"
    err = invalid(parse_patch, bad)
    assert err.message.startswith("line 6:")


@pytest.mark.parametrize(
    "bad",
    [
        "just some text\n",
        "@@ -1 +1 @@\n-a\n+b\n",
        "--- /dev/null\n+++ /dev/null\n@@ -0,0 +1 @@\n+a\n",
        "--- a/../etc/passwd\n+++ b/../etc/passwd\n@@ -1 +1 @@\n-a\n+b\n",
        "--- a//abs\n+++ b//abs\n@@ -1 +1 @@\n-a\n+b\n",
        "--- /dev/null\n+++ b/x\n@@ -1,1 +1,1 @@\n-a\n+b\n",
        "--- a/x\n+++ b/x\n@@ -3 +3 @@\n-a\n+b\n@@ -1 +1 @@\n-c\n+d\n",
        "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n--- a/x\n+++ b/x\n@@ -5 +5 @@\n-a\n+b\n",
        "diff --git a/i.png b/i.png\nindex 1..2 100644\nBinary files a/i.png and b/i.png differ\n",
    ],
)
def test_malformed_patches(bad):
    invalid(parse_patch, bad)


def test_hunks_without_header_use_default_path():
    [fp] = parse_patch("@@ -3 +3 @@\n-line 3\n+3\n", default_path="notes.txt")
    assert fp.path == "notes.txt"
    assert apply_file_patch(ORIGINAL, fp) == ORIGINAL.replace("line 3\n", "3\n")


def test_counts_default_to_one_and_empty_context_lines_are_tolerated():
    patch = "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n\n-c\n+C\n"
    [fp] = parse_patch(patch)
    assert apply_file_patch("a\n\nc\n", fp) == "a\n\nC\n"


def test_quoted_paths():
    patch = (
        'diff --git "a/caf\\303\\251 \\"x\\".txt" "b/caf\\303\\251 \\"x\\".txt"\n'
        '--- "a/caf\\303\\251 \\"x\\".txt"\n+++ "b/caf\\303\\251 \\"x\\".txt"\n'
        "@@ -1 +1 @@\n-a\n+b\n"
    )
    [fp] = parse_patch(patch)
    assert fp.path == 'café "x".txt'


def test_path_with_b_directory_is_not_stripped_twice():
    patch = "diff --git a/b/x.txt b/b/x.txt\nnew file mode 100644\nindex 0..1\n"
    [fp] = parse_patch(patch)
    assert (fp.old_path, fp.new_path, fp.path) == (None, "b/x.txt", "b/x.txt")
    assert apply_file_patch(None, fp) == ""


# --------------------------------------------------------------------------- round trips


def _random_text(rnd: random.Random) -> str:
    words = ["alpha", "beta", "gamma", "", "  indented", "}", "{", "é€😀", "x = 1", "\t tab"]
    lines = [rnd.choice(words) for _ in range(rnd.randint(0, 40))]
    eol = rnd.choice(["\n", "\n", "\r\n"])
    text = eol.join(lines)
    if lines and rnd.random() < 0.7:
        text += eol
    return text


def _mutate(rnd: random.Random, text: str) -> str:
    eol = "\r\n" if "\r\n" in text else "\n"
    lines = text.split(eol)
    for _ in range(rnd.randint(0, 6)):
        op = rnd.random()
        i = rnd.randint(0, len(lines))
        if op < 0.35:
            lines.insert(i, rnd.choice(["new", "", "delta", "é"]))
        elif op < 0.7 and lines:
            del lines[min(i, len(lines) - 1)]
        elif lines:
            lines[min(i, len(lines) - 1)] += "!"
    out = eol.join(lines)
    if rnd.random() < 0.2:
        out = out.rstrip("\r\n") if out.endswith(("\n",)) else out + eol
    return out


def test_round_trip_many_texts():
    rnd = random.Random(7)
    n = 0
    for _ in range(600):
        a = _random_text(rnd)
        b = _mutate(rnd, a)
        diff = unified_diff(a, b, "f.txt", context=rnd.choice([0, 1, 3]))
        if a == b:
            assert diff == ""
            continue
        fps = parse_patch(normalize_patch(diff))
        assert len(fps) == 1
        assert apply_file_patch(a, fps[0]) == b, (a, b, diff)
        n += 1
    assert n > 400


def test_round_trip_create_and_delete():
    diff = unified_diff(None, "a\nb\n", "new.txt")
    [fp] = parse_patch(diff)
    assert fp.is_new and apply_file_patch(None, fp) == "a\nb\n"
    diff = unified_diff("a\nb", None, "old.txt")
    [fp] = parse_patch(diff)
    assert fp.is_deleted and apply_file_patch("a\nb", fp) is None
    assert unified_diff("same", "same", "x") == ""


def test_filepatch_properties():
    fp = FilePatch("a", "b")
    assert fp.is_rename and not fp.is_new and not fp.is_deleted and fp.path == "b"
