"""A lint of the Dockerfile on top of BuildKit's own parser (the PyPI package `dockerfile`
wraps the official Go parser, which, like BuildKit's first pass, takes any word as an
instruction): what `docker build` would refuse before it runs a step, and what would
build an image that cannot start.

- every instruction is one BuildKit knows, the first is FROM (after ARGs);
- ENV has name/value pairs; COPY/ADD a source and a destination; RUN, USER, WORKDIR,
  EXPOSE (numbers) are not empty;
- ENTRYPOINT, CMD and HEALTHCHECK CMD are in exec (JSON) form, so signals reach the
  server and no shell parses them;
- every COPY/ADD source exists in the build context and is not left out by
  .dockerignore, nor is a file a RUN step takes from a copied directory.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import dockerfile
import pathspec

# BuildKit's instructions (frontend/dockerfile/command); MAINTAINER is deprecated.
INSTRUCTIONS = frozenset(
    "ADD ARG CMD COPY ENTRYPOINT ENV EXPOSE FROM HEALTHCHECK LABEL ONBUILD RUN SHELL "
    "STOPSIGNAL USER VOLUME WORKDIR".split()
)
EXEC_FORM = frozenset({"ENTRYPOINT", "CMD"})
NOT_EMPTY = frozenset({"RUN", "USER", "WORKDIR", "EXPOSE", "FROM", "VOLUME", "LABEL"})


def parse(path: Path) -> tuple[dockerfile.Command, ...]:
    return dockerfile.parse_file(str(path))


def ignored(context: Path) -> pathspec.PathSpec:
    """.dockerignore's patterns (Go's filepath.Match with **, close to git's wildmatch)."""
    dockerignore = context / ".dockerignore"
    lines = dockerignore.read_text().splitlines() if dockerignore.exists() else []
    return pathspec.PathSpec.from_lines("gitwildmatch", lines)


def problems(path: Path, context: Path) -> list[str]:
    """Every problem found, as "line N: …"; an empty list for a sound Dockerfile."""
    commands = parse(path)
    found: list[str] = []
    spec = ignored(context)
    copied: dict[str, Path] = {}  # destination directory in the image -> source directory
    first = next((c for c in commands if c.cmd.upper() != "ARG"), None)
    if first is None or first.cmd.upper() != "FROM":
        found.append("the first instruction (after ARG) must be FROM")
    for command in commands:
        where = f"line {command.start_line}: {command.cmd}"
        found += [f"{where}: {p}" for p in _instruction_problems(command)]
        if command.cmd.upper() in ("COPY", "ADD") and len(command.value) >= 2:
            for source in command.value[:-1]:
                found += [f"{where}: {p}" for p in _source_problems(source, context, spec)]
                if (context / source).is_dir():
                    copied[command.value[-1].rstrip("/")] = context / source
        if command.cmd.upper() == "RUN":
            for image_path in re.findall(r"(/[\w./-]+)", " ".join(command.value)):
                for dest, source in copied.items():
                    if image_path.startswith(dest + "/") and "." in Path(image_path).name:
                        relative = image_path.removeprefix(dest + "/")
                        problem = _source_problems(relative, source, spec)
                        found += [f"{where}: {p}" for p in problem]
    return found


def _instruction_problems(command: dockerfile.Command) -> list[str]:
    name = command.cmd.upper()
    if name not in INSTRUCTIONS:
        return [f"unknown instruction {command.cmd!r}"]
    if name in NOT_EMPTY and not command.value:
        return ["needs arguments"]
    if name == "ENV" and (not command.value or len(command.value) % 2):
        return ["needs NAME=value pairs"]
    if name in ("COPY", "ADD") and len(command.value) < 2:
        return ["needs a source and a destination"]
    if name in EXEC_FORM and not command.json:
        return ["use the exec (JSON array) form"]
    if name == "HEALTHCHECK" and command.value[:1] != ("NONE",):
        if command.value[:1] != ("CMD",) or not command.json:
            return ['use HEALTHCHECK … CMD ["…"] (exec form)']
    if name == "EXPOSE" and not all(re.fullmatch(r"\d+(/(tcp|udp))?", v) for v in command.value):
        return ["ports must be numbers"]
    return []


def _source_problems(source: str, context: Path, spec: pathspec.PathSpec) -> list[str]:
    if source.startswith(("http://", "https://")) or source.startswith("--"):
        return []
    target = (context / source).resolve()
    if not target.is_relative_to(context.resolve()):
        return [f"{source} is outside the build context"]
    if not target.exists():
        return [f"{source} is not in the build context"]
    relative = target.relative_to(context.resolve()).as_posix()
    if relative != "." and spec.match_file(relative):
        return [f"{source} is left out by .dockerignore"]
    return []


def environment(commands: tuple[dockerfile.Command, ...]) -> dict[str, str]:
    """The image's ENV, in order (later values win)."""
    env: dict[str, str] = {}
    for command in commands:
        if command.cmd.upper() == "ENV":
            pairs = command.value
            for name, value in zip(pairs[::2], pairs[1::2], strict=True):
                env[name] = " ".join(shlex.split(value)) if value else ""
    return env


def last(commands: tuple[dockerfile.Command, ...], name: str) -> dockerfile.Command:
    return [c for c in commands if c.cmd.upper() == name][-1]
