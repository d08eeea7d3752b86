"""Data and constants of the tree listing: entries, exclusions,
the platform layer's patterns and the size gate."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, NamedTuple

__all__ = [
    "MAX_IGNORE_PATTERNS",
    "MAX_IGNORE_PATTERN_CHARS",
    "PLATFORM_PATTERNS",
    "SIZE_LIMIT_BYTES",
    "EntryType",
    "ExcludedDir",
    "ExcludedItem",
    "Reason",
    "TreeEntry",
    "TreeFilterResult",
]

EntryType = Literal["blob", "tree", "commit"]
Reason = Literal["platform", "gitignore", "user", "size"]

# "200 KB" here means 200 KiB. A blob is excluded when its size is strictly greater than this.
SIZE_LIMIT_BYTES = 200 * 1024

MAX_IGNORE_PATTERNS = 100
MAX_IGNORE_PATTERN_CHARS = 1024

# Layer 1, in gitignore syntax, matched at any depth (every pattern is
# slash-free; a trailing '/' only means "directory"), with extensions compared
# case-insensitively (logo.PNG is an image too). A pattern like
# `node_modules/**` is anchored to the root in gitignore syntax and so misses
# nested node_modules; `node_modules/` does not. SVG stays visible: it is text.
_PLATFORM_GITIGNORE = """
# version-control metadata and installed dependencies
.git/ .hg/ .svn/ node_modules/
# lock files: generated, long, rarely worth reading
package-lock.json npm-shrinkwrap.json yarn.lock pnpm-lock.yaml bun.lock bun.lockb
poetry.lock Pipfile.lock pdm.lock uv.lock Cargo.lock composer.lock Gemfile.lock
Podfile.lock packages.lock.json gradle.lockfile pubspec.lock mix.lock flake.lock go.sum
# private keys and key stores
*.pem *.key *.p12 *.pfx *.jks *.keystore id_rsa* id_dsa* id_ecdsa* id_ed25519*
# images
*.png *.jpg *.jpeg *.gif *.bmp *.ico *.webp *.tif *.tiff *.psd *.heic *.avif
# fonts
*.ttf *.otf *.woff *.woff2 *.eot
# audio and video
*.mp3 *.mp4 *.m4a *.aac *.wav *.ogg *.flac *.avi *.mov *.mkv *.webm
# archives and packages
*.zip *.tar *.gz *.tgz *.bz2 *.xz *.zst *.7z *.rar *.jar *.war *.ear *.whl *.egg
*.deb *.rpm *.dmg *.iso *.apk
# compiled code and other binaries
*.exe *.dll *.so *.dylib *.a *.lib *.o *.obj *.class *.pyc *.pyo *.pyd *.wasm *.bin
# binary documents and databases
*.pdf *.doc *.docx *.xls *.xlsx *.ppt *.pptx *.sqlite *.sqlite3 *.db
# operating-system droppings
.DS_Store Thumbs.db
"""
PLATFORM_PATTERNS: tuple[str, ...] = tuple(
    p for line in _PLATFORM_GITIGNORE.splitlines() if not line.startswith("#") for p in line.split()
)


class TreeEntry(NamedTuple):
    """One git tree entry. From a `TreeSource`, `path` is relative to the listed
    tree; in filter input and output it is relative to the repository root."""

    path: str
    type: EntryType
    sha: str
    size: int | None = None
    mode: str = "100644"


class ExcludedItem(NamedTuple):
    path: str
    reason: Reason
    size: int | None = None
    pattern: str | None = None
    source: str | None = None  # the .gitignore that holds `pattern`
    type: EntryType = "blob"


@dataclass(slots=True)
class ExcludedDir:
    """A directory excluded as a whole; `files` counts the blobs it took along."""

    path: str
    reason: Reason
    pattern: str
    source: str | None = None
    files: int = 0
    verdict: tuple[Reason, str | None, str | None] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.verdict = (self.reason, self.pattern, self.source)


@dataclass(slots=True)
class TreeFilterResult:
    """`file_tree` (kept entries) and `excluded` are sorted by code point."""

    file_tree: list[TreeEntry]
    excluded: list[ExcludedItem]
    excluded_dirs: list[ExcludedDir]
    submodules: list[TreeEntry]
    counts: dict[str, int] = field(default_factory=dict)
