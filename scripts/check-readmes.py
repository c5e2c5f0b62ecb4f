#!/usr/bin/env python3
"""Checks the module READMEs under src/floe/ against the headers they describe.

Fails when
  - a module folder (src/floe/<module>/) has no README.md;
  - a README names a header (`name.h`, or a path such as `s3/sts.h` or `http/tls.h`) that does
    not exist in its folder, below it or as a path under src/floe/, and that no CMake file of
    its folder generates;
  - a header of a folder is not named (by its name or its path from the README's folder) by
    the README of that folder, or, for a folder without one (io/s3/), by the README of the
    nearest folder above it.
Run from anywhere; prints one line per violation.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "floe"

# A header name as READMEs write it: plain or with folders, not part of a longer word or path.
HEADER = re.compile(r"(?<![\w/.-])((?:[\w-]+/)*[\w-]+\.h)\b")


def header_exists(name, folder):
    if "/" not in name:
        if any(p.is_file() for p in folder.rglob(name)):
            return True
    elif any((base / name).is_file() for base in (folder, SRC, SRC.parent)):
        return True
    # Generated at build time (an OUTPUT of a CMake file of the folder).
    base = name.rsplit("/", 1)[-1]
    return any("/" + base in cmake.read_text()
               for pattern in ("CMakeLists.txt", "*.cmake") for cmake in folder.glob(pattern))


def names(text, name):
    return re.search(r"(?<![\w.-])" + re.escape(name) + r"\b", text) is not None


def main():
    errors = []
    for module in sorted(p for p in SRC.iterdir() if p.is_dir()):
        if not (module / "README.md").is_file():
            errors.append(f"src/floe/{module.name}/ has no README.md")

    readmes = {p.parent: p.read_text() for p in SRC.rglob("README.md")}
    for folder, text in sorted(readmes.items()):
        rel = folder.relative_to(ROOT)
        for name in sorted(set(HEADER.findall(text))):
            if not header_exists(name, folder):
                errors.append(f"{rel}/README.md names {name}, which does not exist")

    for header in sorted(SRC.rglob("*.h")):
        owner = header.parent
        while owner not in readmes and owner != SRC:
            owner = owner.parent
        if owner not in readmes:
            continue  # a module without a README, reported above
        relative = header.relative_to(owner).as_posix()
        if not names(readmes[owner], relative) and not names(readmes[owner], header.name):
            errors.append(f"{owner.relative_to(ROOT)}/README.md does not name {relative}")

    for e in errors:
        print(e)
    if errors:
        print(f"check-readmes: {len(errors)} violation(s)", file=sys.stderr)
        return 1
    print(f"check-readmes: {len(readmes)} READMEs name their {sum(1 for _ in SRC.rglob('*.h'))} "
          "headers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
