"""Tree listing: the four-layer filter and the build_tree orchestrator."""

from __future__ import annotations

import asyncio
import hashlib
import random

import pytest
from pathspec import GitIgnoreSpec
from pydantic import BaseModel

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.services.repos.tree._patterns import RuleSet, compile_line, compile_rules
from github_mcp.services.repos.tree._result import Excluded, TreeFile, TreeListing
from github_mcp.services.repos.tree._service import (
    PLATFORM_PATTERNS,
    SIZE_LIMIT_BYTES,
    TreeEntry,
    build_tree,
    decode_cursor,
    encode_cursor,
    filter_entries,
    gitignore_paths_needed,
    normalize_tree_path,
)

# --------------------------------------------------------------------------- helpers


def wire(item: BaseModel | TreeListing) -> dict:
    """What the tool answers for `item` (a listing as list_repository_tree gives it)."""
    if isinstance(item, TreeListing):
        item = item.result("o/r", "main", "0" * 40, cache_hit=False)
    return item.model_dump(mode="json", exclude_none=True)


def sha1(data: bytes) -> str:
    return hashlib.sha1(data, usedforsecurity=False).hexdigest()


def blob(path: str, size: int = 10, mode: str = "100644") -> TreeEntry:
    return TreeEntry(path, "blob", sha1(path.encode()), size, mode)


def run(paths, gitignores=None, **kw):
    entries = [p if isinstance(p, TreeEntry) else blob(p) for p in paths]
    return filter_entries(entries, gitignores=gitignores or {}, **kw)


def kept(result) -> list[str]:
    return [e.path for e in result.file_tree]


def reasons(result) -> dict[str, str]:
    return {x.path: x.reason for x in result.excluded}


class FakeSource:
    """A git object store in memory, shaped like GitHub's Trees API answers.

    A recursive listing longer than `max_entries` comes back cut, with
    truncated=True, as GitHub does above its limit.
    """

    def __init__(self, files: dict[str, str | int], *, max_entries: int | None = None):
        self.max_entries = max_entries
        self.blobs: dict[str, str] = {}
        self.trees: dict[str, list[TreeEntry]] = {}
        self.tree_calls: list[tuple[str, bool]] = []
        self.blob_calls: list[str] = []
        nested: dict = {}
        for path, content in files.items():
            node = nested
            *dirs, name = path.split("/")
            for d in dirs:
                node = node.setdefault(d, {})
            node[name] = content
        self.root = self._store(nested)

    def _store(self, node: dict) -> str:
        children: list[TreeEntry] = []
        for name, value in node.items():
            if isinstance(value, dict):
                children.append(TreeEntry(name, "tree", self._store(value), None, "040000"))
            elif isinstance(value, int):
                sha = sha1(f"size:{value}:{name}".encode())
                children.append(TreeEntry(name, "blob", sha, value))
            else:
                data = value.encode()
                sha = sha1(b"blob %d\0" % len(data) + data)
                self.blobs[sha] = value
                children.append(TreeEntry(name, "blob", sha, len(data)))
        children.sort(key=lambda e: e.path + ("/" if e.type == "tree" else ""))
        sha = sha1(repr(children).encode())
        self.trees[sha] = children
        return sha

    def _walk(self, sha: str, prefix: str) -> list[TreeEntry]:
        out = []
        for c in self.trees[sha]:
            path = prefix + c.path
            out.append(TreeEntry(path, c.type, c.sha, c.size, c.mode))
            if c.type == "tree":
                out.extend(self._walk(c.sha, path + "/"))
        return out

    async def get_tree(self, tree_sha: str, recursive: bool):
        self.tree_calls.append((tree_sha, recursive))
        await asyncio.sleep(0)
        if tree_sha not in self.trees:
            raise GitHubMCPError(ErrorCode.NOT_FOUND, "no such tree")
        if not recursive:
            return list(self.trees[tree_sha]), False
        entries = self._walk(tree_sha, "")
        if self.max_entries is not None and len(entries) > self.max_entries:
            return entries[: self.max_entries], True
        return entries, False

    async def get_blob_text(self, blob_sha: str) -> str:
        self.blob_calls.append(blob_sha)
        await asyncio.sleep(0)
        return self.blobs[blob_sha]


# --------------------------------------------------------------------------- gitignore layer


def test_negation_reincludes_a_file():
    r = run(["a.log", "keep.log", "b.txt"], {"": "*.log\n!keep.log\n"})
    assert kept(r) == ["b.txt", "keep.log"]
    assert wire(Excluded.of(r.excluded[0])) == {
        "path": "a.log",
        "reason": "gitignore",
        "size": 10,
        "pattern": "*.log",
        "source": ".gitignore",
    }


def test_later_line_wins_within_a_file():
    r = run(["a.log"], {"": "!a.log\n*.log\n"})
    assert kept(r) == []


def test_file_under_excluded_directory_cannot_be_reincluded():
    # git: "It is not possible to re-include a file if a parent directory of
    # that file is excluded." pathspec 1.1.1's GitIgnoreSpec gets this wrong.
    paths = ["build/keep.log", "build/x.o.txt", "out/sub/keep.md", "out/top.md"]
    gi = {"": "build\n!keep.log\nout/*\n!out/sub/keep.md\n"}
    r = run(paths, gi)
    assert kept(r) == []
    assert {d.path: d.files for d in r.excluded_dirs} == {"build": 2, "out/sub": 1}
    assert GitIgnoreSpec.from_lines(["build", "!keep.log"]).match_file("build/keep.log") is False


def test_contents_pattern_allows_reinclusion_but_directory_pattern_does_not():
    paths = ["logs/a.txt", "logs/README.md", "cache/README.md", "cache/a.txt"]
    gi = {"": "logs/**\n!logs/README.md\ncache/\n!cache/README.md\n"}
    r = run(paths, gi)
    assert kept(r) == ["logs/README.md"]


def test_nested_gitignore_overrides_parent():
    paths = ["a.log", "sub/a.log", "sub/deeper/b.log", "other/c.log"]
    gi = {"": "*.log\n", "sub": "!*.log\n"}
    r = run(paths, gi)
    assert kept(r) == ["sub/a.log", "sub/deeper/b.log"]
    assert reasons(r) == {"a.log": "gitignore", "other/c.log": "gitignore"}


def test_nested_gitignore_can_exclude_what_parent_reincluded():
    gi = {"": "*.tmp\n!keep.tmp\n", "pkg": "keep.tmp\n"}
    r = run(["keep.tmp", "pkg/keep.tmp"], gi)
    assert kept(r) == ["keep.tmp"]
    assert r.excluded[0].source == "pkg/.gitignore"


def test_nested_patterns_are_relative_to_their_directory():
    paths = ["build/x.txt", "web/build/x.txt", "web/src/build/x.txt", "web/dist/a.js"]
    gi = {"web": "/build\ndist/\n"}
    r = run(paths, gi)
    assert kept(r) == ["build/x.txt", "web/src/build/x.txt"]


def test_anchored_and_unanchored_patterns():
    paths = ["TODO", "src/TODO", "doc/frotz/a", "a/doc/frotz/b", "frotz/c", "x/frotz/d"]
    r = run(paths, {"": "/TODO\ndoc/frotz/\n"})
    assert kept(r) == ["a/doc/frotz/b", "frotz/c", "src/TODO", "x/frotz/d"]
    r = run(paths, {"": "frotz/\n"})
    assert kept(r) == ["TODO", "src/TODO"]


def test_directory_only_pattern_does_not_match_a_file():
    r = run(["build", "src/build/a.c", "lib/build"], {"": "build/\n"})
    assert kept(r) == ["build", "lib/build"]


def test_double_star_forms():
    paths = ["foo", "a/foo", "a/b/foo/bar", "foo/bar", "x/foo/baz", "a/b", "a/x/y/b", "ab"]
    assert kept(run(paths, {"": "**/foo\n"})) == ["a/b", "a/x/y/b", "ab"]
    assert kept(run(paths, {"": "**/foo/bar\n"})) == [
        "a/b",
        "a/foo",
        "a/x/y/b",
        "ab",
        "foo",
        "x/foo/baz",
    ]
    assert "a/b" not in kept(run(paths, {"": "a/**/b\n"}))
    assert "a/x/y/b" not in kept(run(paths, {"": "a/**/b\n"}))
    # "x/**" matches everything inside x, not x itself
    assert kept(run(["x", "x/a", "x/b/c"], {"": "/x/**\n"})) == ["x"]


def test_wildcards_brackets_and_escapes():
    paths = ["a1.txt", "b2.txt", "c3.txt", "#note", "!bang", "sp ace ", "file.pyc", "file.pyd"]
    gi = {"": "[ab][0-9].txt\n\\#note\n\\!bang\nsp ace\\ \n*.py[cd]\n"}
    # *.pyc is also a platform pattern; compare with the gitignore layer alone
    r = run(paths, gi)
    assert kept(r) == ["c3.txt"]
    assert reasons(r)["a1.txt"] == "gitignore"
    assert reasons(r)["#note"] == "gitignore"
    assert reasons(r)["!bang"] == "gitignore"
    assert reasons(r)["sp ace "] == "gitignore"


def test_comments_blank_lines_crlf_bom_and_trailing_spaces():
    gi = {"": "\ufeff# comment\r\n\r\n*.log   \r\nkeep\\ \r\n"}
    r = run(["a.log", "keep ", "keep", "# comment"], gi)
    assert kept(r) == ["# comment", "keep"]


def test_malformed_patterns_never_match():
    assert compile_line("[abc") is None
    assert compile_line("foo\\") is None
    assert compile_line("[[:nope:]]") is None
    assert compile_line("a//b") is None
    r = run(["[abc", "foo\\", "a"], {"": "[abc\nfoo\\\n"})
    assert kept(r) == ["[abc", "a", "foo\\"]


def test_posix_character_classes():
    r = run(["a1", "ab", "A_"], {"": "a[[:digit:]]\n[[:upper:]]_\n"})
    assert kept(r) == ["ab"]


def test_gitignore_above_the_requested_subtree_applies():
    paths = ["src/app/main.py", "src/app/debug.log", "src/app/gen/x.py", "src/other.log"]
    gi = {"": "*.log\n", "src": "app/gen/\n"}
    r = run(paths, gi, subtree="src/app")
    assert kept(r) == ["src/app/main.py"]
    assert reasons(r) == {"src/app/debug.log": "gitignore", "src/app/gen/x.py": "gitignore"}
    assert r.counts["total"] == 3


def test_requested_subtree_inside_an_ignored_directory_is_all_excluded():
    r = run(["build/a/x.txt", "build/a/y.txt"], {"": "build/\n"}, subtree="build/a")
    assert kept(r) == []
    assert [(d.path, d.files) for d in r.excluded_dirs] == [("build", 2)]


# --------------------------------------------------------------------------- other layers


def test_platform_layer():
    paths = [
        "node_modules/lodash/index.js",
        "web/node_modules/x/y.js",
        "logo.PNG",
        "yarn.lock",
        "deploy/id_rsa",
        "certs/server.pem",
        "fonts/a.woff2",
        "dist.tar.gz",
        "src/icon.svg",
        "src/main.py",
    ]
    r = run(paths)
    assert kept(r) == ["src/icon.svg", "src/main.py"]
    assert set(reasons(r).values()) == {"platform"}
    assert r.counts["platform"] == 8
    assert "node_modules/" in PLATFORM_PATTERNS and "*.pem" in PLATFORM_PATTERNS


def test_platform_wins_over_gitignore_and_negation_cannot_undo_it():
    r = run(["a.png", "b.log"], {"": "*.png\n*.log\n!a.png\n"})
    assert reasons(r) == {"a.png": "platform", "b.log": "gitignore"}


def test_user_patterns_gitignore_syntax():
    paths = ["src/a.py", "src/a_test.py", "docs/x.md", "tests/t.py", "keep_test.py"]
    r = run(paths, ignore_patterns=["*_test.py", "!keep_test.py", "/docs/", "tests"])
    assert kept(r) == ["keep_test.py", "src/a.py"]
    assert set(reasons(r).values()) == {"user"}
    assert r.excluded[0].source is None


def test_layer_order_first_exclusion_wins():
    big = SIZE_LIMIT_BYTES + 1
    entries = [blob("a.log", big), blob("b.txt", big), blob("c.md", big), blob("d.png", big)]
    r = filter_entries(entries, gitignores={"": "*.log\n"}, ignore_patterns=["*.txt"])
    assert reasons(r) == {
        "a.log": "gitignore",
        "b.txt": "user",
        "c.md": "size",
        "d.png": "platform",
    }
    assert r.counts == {
        "total": 4,
        "kept": 0,
        "platform": 1,
        "gitignore": 1,
        "user": 1,
        "size": 1,
    }


def test_size_gate_and_force():
    entries = [blob("limit.txt", SIZE_LIMIT_BYTES), blob("over.txt", SIZE_LIMIT_BYTES + 1)]
    r = filter_entries(entries)
    assert SIZE_LIMIT_BYTES == 204_800
    assert kept(r) == ["limit.txt"]
    assert wire(Excluded.of(r.excluded[0])) == {
        "path": "over.txt",
        "reason": "size",
        "size": 204_801,
    }
    forced = filter_entries([*entries, blob("x.png", 1)], force=True)
    assert kept(forced) == ["limit.txt", "over.txt"]
    assert reasons(forced) == {"x.png": "platform"}


def test_code_point_sort():
    r = run(["ä", "a", "B", "b/c", "b-c", "Z", "\U0001f600", "\uffff"])
    assert kept(r) == ["B", "Z", "a", "b-c", "b/c", "ä", "\uffff", "\U0001f600"]
    # UTF-16 code unit order (JavaScript's default sort) would put U+1F600 first
    assert sorted(kept(r), key=lambda s: s.encode("utf-16-be")) != kept(r)
    assert kept(r) == sorted(kept(r), key=lambda s: s.encode("utf-8"))


def test_submodules_and_trees_in_recursive_input():
    entries = [
        TreeEntry("lib", "tree", "t" * 40),
        TreeEntry("lib/vendor", "commit", "c" * 40, None, "160000"),
        blob("lib/a.py"),
    ]
    r = filter_entries(entries)
    assert kept(r) == ["lib/a.py"]
    assert [wire(TreeFile.of(s)) for s in r.submodules] == [
        {"path": "lib/vendor", "sha": "c" * 40, "type": "commit"}
    ]


@pytest.mark.parametrize(
    "patterns",
    [
        ["x"] * 101,
        ["x" * 1025],
        ["a\nb"],
        "*.py",
        [3],
    ],
)
def test_bad_user_patterns(patterns):
    with pytest.raises(GitHubMCPError) as ei:
        filter_entries([], ignore_patterns=patterns)
    assert ei.value.code is ErrorCode.INVALID_INPUT


def test_limits_are_inclusive():
    kept = filter_entries([blob("x" * 1024), blob("y")], ignore_patterns=["x" * 1024] * 100)
    assert [e.path for e in kept.file_tree] == ["y"]


def test_gitignore_paths_needed():
    entries = [
        blob(".gitignore"),
        blob("src/.gitignore"),
        blob("src/app/.gitignore"),
        blob("src/app/deep/.gitignore"),
        blob("src/other/.gitignore"),
        blob("docs/.gitignore"),
        blob("src/app/node_modules/x/.gitignore"),
        blob("src/app/link/.gitignore", mode="120000"),
        blob("src/app/x.gitignore"),
    ]
    assert gitignore_paths_needed(entries, "src/app") == [
        ".gitignore",
        "src/.gitignore",
        "src/app/.gitignore",
        "src/app/deep/.gitignore",
    ]
    assert len(gitignore_paths_needed(entries, "")) == 6


# --------------------------------------------------------------------------- oracles


def _random_scenario(rnd: random.Random):
    names = ["a", "b", "c", "build", "logs", "tmp", "x1", "x2", "keep"]
    exts = ["", ".log", ".txt", ".md", ".tmp"]
    dirs = [""]
    for _ in range(rnd.randint(3, 9)):
        parent = rnd.choice(dirs)
        if parent.count("/") >= 3:
            continue
        d = f"{parent}/{rnd.choice(names)}" if parent else rnd.choice(names)
        if d not in dirs:
            dirs.append(d)
    files = set()
    for _ in range(rnd.randint(10, 40)):
        d = rnd.choice(dirs)
        f = rnd.choice(names) + rnd.choice(exts)
        path = f"{d}/{f}" if d else f
        if path not in dirs and not any(x.startswith(path + "/") for x in dirs):
            files.add(path)
    files = {f for f in files if not any(f.startswith(g + "/") for g in files)}
    return sorted(files), dirs


_PATTERNS = [
    "*.log", "!keep.log", "build/", "/build", "build", "!build/", "a/**/b", "**/tmp",
    "tmp/", "a/*", "!a/keep.txt", "*.txt", "!*.txt", "x*", "!x1*", "x?/", "[ab]/",
    "**/c/*.md", "c/**", "!c/**/keep.md", "/a/**/*.log", "*", "!*/", "!*.md", "logs/**",
    "!logs/keep*", "keep", "!keep/", "*/", "/*", "!/b", "b/**/", "**/x2/keep*", "a/b",
    "!**/keep.md", "*.t?p", "[!k]*.md", "x[0-9]", "!x[2]",
]  # fmt: skip


# Only for the git oracle: forms where pathspec 1.1.1 and git part ways.
_MORE_PATTERNS = [
    "**", "/**", "**/", "a/**", "!a/**/", "*/*", "/*/", "?", "[a-c]*", "**/b/**", "a/**/",
    "b*/", "*.log/", "/a/b/", "!**/", "!*", "*/b", "a/*/c", "**/*.md", "!**/a/*",
    "[[:alpha:]][0-9]", "*.[lt][or]g", "/x?", "!/a/", "a/b/**/c", "**/a/**/b", "!c/", "b/**/*",
]  # fmt: skip


def _random_gitignore(rnd: random.Random, negations: bool) -> str:
    # pathspec reads "b/**/" as "b/" (git: only directories inside b), so the
    # pathspec oracle gets neither negations nor that form.
    if negations:
        pool = _PATTERNS + _MORE_PATTERNS
    else:
        pool = [p for p in _PATTERNS if not (p.startswith("!") or p.endswith("**/"))]
    return "\n".join(rnd.sample(pool, rnd.randint(1, 6))) + "\n"


def test_agrees_with_pathspec_when_there_is_no_negation():
    # Without negations pathspec's descendant matching and git's walk agree on files.
    rnd = random.Random(99)
    for _ in range(150):
        files, _dirs = _random_scenario(rnd)
        text = _random_gitignore(rnd, False)
        spec = GitIgnoreSpec.from_lines(text.splitlines())
        expected = sorted(f for f in files if not spec.match_file(f))
        assert kept(run(files, {"": text})) == expected, text


def _naive_filter(paths, sizes, gitignores, user_patterns, force):
    """Rule-by-rule evaluation, no tables, memos or merged programs."""
    chains = {d: compile_rules(t, base=d, source=f"{d}/.gitignore".lstrip("/"))
              for d, t in gitignores.items()}  # fmt: skip
    platform = compile_rules("\n".join(PLATFORM_PATTERNS))
    user = RuleSet.build("", "", [r for p in user_patterns if (r := compile_line(p))])

    def last_match(rulesets, d, name, is_dir):
        for rs in reversed(rulesets):
            rel = d if not rs.base else ("" if d == rs.base else d[len(rs.base) + 1 :])
            for r in reversed(rs.rules):
                if r.dir_only and not is_dir:
                    continue
                if r.head_matches(rel) and r.last.matches(name):
                    return r
        return None

    def verdict(d, name, is_dir):
        ancestors = [""] + [d[:i] for i, c in enumerate(d) if c == "/"] + ([d] if d else [])
        gi = [chains[a] for a in ancestors if a in chains]
        for reason, sets in (("platform", [platform]), ("gitignore", gi), ("user", [user])):
            r = last_match(sets, d, name, is_dir)
            if r is not None and not r.negated:
                return reason, r.pattern
        return None

    out = {}
    for path in paths:
        parts = path.split("/")
        v = None
        for k in range(1, len(parts)):
            v = verdict("/".join(parts[: k - 1]), parts[k - 1], True)
            if v:
                break
        v = v or verdict("/".join(parts[:-1]), parts[-1], False)
        if v is None and not force and sizes[path] > SIZE_LIMIT_BYTES:
            v = ("size", None)
        out[path] = v
    return out


_KIND_PATTERNS = [
    "*.py[cod]", "local-*", "*~", "*.min.js", "*.keep.tmp", "!*.keep.tmp", "*.[ch]", "README*",
    "*.PY", "Makefile", "!important.md", "*_test.go", "?.txt", "[!a]*.log",
]  # fmt: skip


def test_fast_engine_matches_naive_rule_evaluation():
    rnd = random.Random(5)
    dir_names = ["src", "lib", "build", "tmp", "logs", "a", "b", "c", "node_modules", "keep"]
    file_names = ["main.py", "x.pyc", "local-conf", "a.txt", "b~", "app.min.js", "z.keep.tmp",
                  "m.c", "m.h", "README.md", "important.md", "t_test.go", "q.log", "w.log",
                  "img.png", "keep", "Makefile", "c.md", "x1", "s.PY", "yarn.lock"]  # fmt: skip
    dirs = [""]
    for _ in range(300):
        parent = rnd.choice(dirs)
        if parent.count("/") < 5:
            d = f"{parent}/{rnd.choice(dir_names)}".lstrip("/")
            if d not in dirs:
                dirs.append(d)
    sizes = {}
    for _ in range(1500):
        d = rnd.choice(dirs)
        path = f"{d}/{rnd.choice(file_names)}".lstrip("/")
        if path not in dirs and not any(x.startswith(path + "/") for x in dirs[-50:]):
            sizes[path] = rnd.choice([10, 10, 10, SIZE_LIMIT_BYTES + 1])
    paths = sorted(p for p in sizes if not any(q.startswith(p + "/") for q in sizes))
    pool = _PATTERNS + _MORE_PATTERNS + _KIND_PATTERNS
    sweeping = {"*", "*/", "**", "/**", "**/", "/*", "/*/", "?"}
    seen: set = set()
    for round_ in range(6):
        gitignores = {
            d: "\n".join(rnd.sample(pool, rnd.randint(1, 8))) for d in rnd.sample(dirs, 25)
        }
        gitignores[""] = "\n".join(rnd.sample([p for p in pool if p not in sweeping], 6))
        user = rnd.sample(pool, rnd.randint(0, 4))
        force = round_ % 2 == 1
        entries = [blob(p, sizes[p]) for p in paths]
        r = filter_entries(entries, gitignores=gitignores, ignore_patterns=user, force=force)
        ours = {x.path: (x.reason, x.pattern) for x in r.excluded}
        ours.update({e.path: None for e in r.file_tree})
        expected = _naive_filter(paths, sizes, gitignores, user, force)
        assert ours == expected
        seen.update(filter(None, ours.values()))
    assert len(seen) >= 35, len(seen)


# --------------------------------------------------------------------------- build_tree

REPO = {
    ".gitignore": "*.log\n",
    "README.md": "hello",
    "debug.log": "x",
    "src/.gitignore": "generated/\n!keep.py\n",
    "src/main.py": "print(1)",
    "src/keep.py": "x",
    "src/generated/a.py": "x",
    "src/app/.gitignore": "*.tmp\n",
    "src/app/view.py": "x",
    "src/app/cache.tmp": "x",
    "src/app/trace.log": "x",
    "src/app/big.bin.txt": SIZE_LIMIT_BYTES + 5,
    "src/app/logo.png": 100,
    "docs/.gitignore": "*.md\n",
    "docs/guide.md": "x",
    "docs/api.txt": "x",
}


async def test_build_tree_root_recursive():
    src = FakeSource(REPO)
    t = await build_tree(src, src.root)
    assert [e.path for e in t.file_tree] == [
        ".gitignore",
        "README.md",
        "docs/.gitignore",
        "docs/api.txt",
        "src/.gitignore",
        "src/app/.gitignore",
        "src/app/view.py",
        "src/keep.py",
        "src/main.py",
    ]
    assert {x.path: x.reason for x in t.excluded} == {
        "debug.log": "gitignore",
        "docs/guide.md": "gitignore",
        "src/app/big.bin.txt": "size",
        "src/app/cache.tmp": "gitignore",
        "src/app/logo.png": "platform",
        "src/app/trace.log": "gitignore",
        "src/generated/a.py": "gitignore",
    }
    assert t.completion is None
    assert t.total == 9 and t.next_cursor is None
    assert t.requests == 1
    assert len(src.blob_calls) == 4
    d = wire(t)
    assert d["file_tree"][0] == {"path": ".gitignore", "size": 6, "sha": t.file_tree[0].sha}
    assert "completion" not in d and "next_cursor" not in d


async def test_build_tree_subtree_uses_ancestor_gitignores():
    src = FakeSource(REPO)
    t = await build_tree(src, src.root, path="src/app")
    assert [e.path for e in t.file_tree] == ["src/app/.gitignore", "src/app/view.py"]
    assert {x.path: x.reason for x in t.excluded}["src/app/trace.log"] == "gitignore"
    assert t.gitignores == [".gitignore", "src/.gitignore", "src/app/.gitignore"]
    assert not any(sha for sha in src.blob_calls if src.blobs[sha] == "*.md\n")
    # two levels walked (root, src), then the subtree fetched recursively
    assert src.tree_calls[-1][1] is True and len(src.tree_calls) == 3


async def test_build_tree_force_bypasses_only_size():
    src = FakeSource(REPO)
    t = await build_tree(src, src.root, path="src/app", force=True)
    assert "src/app/big.bin.txt" in [e.path for e in t.file_tree]
    assert {x.path: x.reason for x in t.excluded}["src/app/logo.png"] == "platform"


async def test_build_tree_non_recursive_lists_directories():
    src = FakeSource({**REPO, "node_modules/x/index.js": "x", "build/out.txt": "x"})
    src_gi = {**REPO, "node_modules/x/index.js": "x", "build/out.txt": "x"}
    src_gi[".gitignore"] = "*.log\nbuild/\n"
    src = FakeSource(src_gi)
    t = await build_tree(src, src.root, recursive=False)
    assert [(e.path, e.type) for e in t.file_tree] == [
        (".gitignore", "blob"),
        ("README.md", "blob"),
        ("docs", "tree"),
        ("src", "tree"),
    ]
    assert {(x.path, x.reason, x.type) for x in t.excluded} == {
        ("debug.log", "gitignore", "blob"),
        ("build", "gitignore", "tree"),
        ("node_modules", "platform", "tree"),
    }
    assert all(rec is False for _, rec in src.tree_calls)
    assert wire(t)["file_tree"][2] == {
        "path": "docs",
        "sha": t.file_tree[2].sha,
        "type": "tree",
    }


async def test_build_tree_completes_a_truncated_listing():
    files = {f"d{i}/sub{j}/f{k}.py": "x" for i in range(4) for j in range(3) for k in range(5)}
    files[".gitignore"] = "*.tmp\n"
    files["d2/sub1/.gitignore"] = "f3.py\n"
    full = FakeSource(files)
    expected = await build_tree(full, full.root)

    cut = FakeSource(files, max_entries=30)
    t = await build_tree(cut, cut.root)
    assert [e.path for e in t.file_tree] == [e.path for e in expected.file_tree]
    assert [x.path for x in t.excluded] == ["d2/sub1/f3.py"]
    assert t.completion is not None and t.completion["method"] == "subtree_walk"
    calls = len(cut.tree_calls)
    assert t.completion["extra_requests"] == calls - 1 > 0
    assert wire(t)["completion"] == t.completion


async def test_truncated_completion_splits_deeper_when_needed():
    files = {f"big/s{j}/f{k}.txt": "x" for j in range(6) for k in range(8)}
    files["small/a.txt"] = "x"
    src = FakeSource(files, max_entries=20)
    t = await build_tree(src, src.root)
    assert t.total == 49
    # root level, then big and small recursively; big is itself cut, so its
    # level is listed and each s{j} fetched whole
    assert t.completion == {"method": "subtree_walk", "extra_requests": 10}


async def test_pagination_covers_everything_once():
    files = {f"f{i:03d}.txt": "x" for i in range(25)}
    files.update({f"f{i:03d}.log": "x" for i in range(0, 25, 5)})
    files[".gitignore"] = "*.log\n"
    src = FakeSource(files)
    seen, excluded, cursor, pages = [], [], None, 0
    while True:
        t = await build_tree(src, src.root, limit=7, cursor=cursor)
        pages += 1
        assert len(t.file_tree) <= 7 and t.total == 26
        seen += [e.path for e in t.file_tree]
        excluded += [x.path for x in t.excluded]
        cursor = t.next_cursor
        if cursor is None:
            break
    assert pages == 4
    assert seen == sorted(seen) and len(seen) == len(set(seen)) == 26
    assert sorted(excluded) == sorted(f"f{i:03d}.log" for i in range(0, 25, 5))
    assert decode_cursor(encode_cursor("a/ä b")) == "a/ä b"


@pytest.mark.parametrize("cursor", ["", "!!!", "bm90LWEtY3Vyc29y", encode_cursor("")[:-2] + "@@"])
async def test_bad_cursor(cursor):
    src = FakeSource(REPO)
    with pytest.raises(GitHubMCPError) as ei:
        await build_tree(src, src.root, cursor=cursor)
    assert ei.value.code is ErrorCode.INVALID_INPUT
    assert src.tree_calls == []


@pytest.mark.parametrize(
    ("path", "code"),
    [
        ("/src", ErrorCode.INVALID_INPUT),
        ("src/../etc", ErrorCode.INVALID_INPUT),
        ("./src", ErrorCode.INVALID_INPUT),
        ("src\\app", ErrorCode.INVALID_INPUT),
        ("a//b", ErrorCode.INVALID_INPUT),
        ("x" * 4097, ErrorCode.INVALID_INPUT),
        ("missing", ErrorCode.NOT_FOUND),
        ("src/nope", ErrorCode.NOT_FOUND),
        ("README.md", ErrorCode.INVALID_INPUT),
    ],
)
async def test_bad_paths(path, code):
    src = FakeSource(REPO)
    with pytest.raises(GitHubMCPError) as ei:
        await build_tree(src, src.root, path=path)
    assert ei.value.code is code
    if path == "README.md":
        assert "get_file_contents" in (ei.value.hint or "")


async def test_bad_limit_and_patterns_fail_before_io():
    src = FakeSource(REPO)
    for kw in ({"limit": 0}, {"limit": True}, {"ignore_patterns": ["x"] * 101}):
        with pytest.raises(GitHubMCPError) as ei:
            await build_tree(src, src.root, **kw)
        assert ei.value.code is ErrorCode.INVALID_INPUT
    assert src.tree_calls == []


def test_normalize_tree_path():
    assert normalize_tree_path(None) == ""
    assert normalize_tree_path("") == ""
    assert normalize_tree_path("src/app/") == "src/app"
    assert normalize_tree_path("a b/ä") == "a b/ä"


async def test_identical_gitignores_are_fetched_once():
    files = {f"p{i}/.gitignore": "*.tmp\n" for i in range(5)}
    files.update({f"p{i}/a.tmp": "x" for i in range(5)})
    src = FakeSource(files)
    t = await build_tree(src, src.root)
    assert len(src.blob_calls) == 1
    assert t.counts["gitignore"] == 5


async def test_source_errors_propagate():
    class Failing(FakeSource):
        async def get_blob_text(self, blob_sha):
            raise GitHubMCPError(ErrorCode.UPSTREAM_ERROR, "boom")

    src = Failing(REPO)
    with pytest.raises(GitHubMCPError) as ei:
        await build_tree(src, src.root)
    assert ei.value.code is ErrorCode.UPSTREAM_ERROR


async def test_large_listing_is_filtered_off_the_event_loop():
    files = {f"d{i % 40}/f{i}.txt": 1 for i in range(21_000)}
    files.update({f"d{i % 40}/f{i}.log": 1 for i in range(500)})
    files[".gitignore"] = "*.log\n"
    src = FakeSource(files)
    t = await build_tree(src, src.root, limit=100)
    assert t.total == 21_001 and len(t.file_tree) == 100 and t.counts["gitignore"] == 500
    assert t.gitignores == [".gitignore"]
