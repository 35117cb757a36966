"""The starter kits: one folder per language under ``kits/`` (``arena/kits`` in the package).

``arena new`` writes a kit's files into a new folder; the ladder offers each as a download.
Both read them from here, so that the files an author gets are the ones CI builds and checks.
"""

from __future__ import annotations

import gzip
import io
import tarfile
from importlib import resources
from importlib.resources.abc import Traversable

from arena.errors import ConfigError

# Each kit by the name a user types (its folder), its language in words, and other names for it.
KITS = {
    "python": ("Python", ("py",)),
    "javascript": ("JavaScript (Node.js)", ("js", "node")),
    "typescript": ("TypeScript", ("ts",)),
    "c": ("C", ()),
    "cpp": ("C++", ("c++",)),
    "java": ("Java", ()),
    "go": ("Go", ("golang",)),
    "rust": ("Rust", ("rs",)),
    "csharp": ("C# (Mono)", ("cs", "c#")),
}


def kit_language(name: str) -> str:
    """The kit a user means by ``name`` (``js``, ``C++``...); one line listing them otherwise."""
    wanted = name.lower()
    for key, (_title, aliases) in KITS.items():
        if wanted == key or wanted in aliases:
            return key
    raise ConfigError(f"no kit for {name[:100]!r}: the languages are {', '.join(KITS)}")


def kit_files(language: str) -> list[tuple[str, Traversable]]:
    """Every file of a kit, as (its path inside the kit, the file), in a fixed order."""
    files: list[tuple[str, Traversable]] = []

    def walk(node: Traversable, prefix: str) -> None:
        for child in sorted(node.iterdir(), key=lambda c: c.name):
            if child.is_dir():
                walk(child, f"{prefix}{child.name}/")
            else:
                files.append((prefix + child.name, child))

    walk(resources.files("arena").joinpath("kits", language), "")
    return files


def kit_archive(language: str, folder: str = "my-bot") -> bytes:
    """A kit as a ``.tar.gz`` of ``folder/...``, the same bytes every time (no dates, no owners)."""
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0) as gz, tarfile.open(fileobj=gz, mode="w") as tar:
        for name, file in kit_files(language):
            data = file.read_bytes()
            info = tarfile.TarInfo(f"{folder}/{name}")
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()
