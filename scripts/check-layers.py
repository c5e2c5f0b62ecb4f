#!/usr/bin/env python3
"""Checks the module dependency rules of docs/ARCHITECTURE.md against the code.

The table between the `layers:begin` / `layers:end` markers of docs/ARCHITECTURE.md names, for
each module under src/floe/, the modules it may depend on. This script fails when
  - the table has a cycle, or names a module that does not exist (or misses one that does);
  - a row allows a module that is not below it (the rows are the layers, top to bottom), or
    the Layers table of the page lists the src/floe/ modules in another order;
  - a file of module M (tests included) includes "floe/X/..." for an X the table does not
    allow M;
  - a library of module M links (CMake DEPS / PRIVATE_DEPS / target_link_libraries) a floe
    library of a module the table does not allow M;
  - a file of M includes a header of X while no library of M reaches a library of X through
    CMake links (the include would only resolve by accident of the shared include root).
Run from anywhere; prints one line per violation.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "floe"
DOC = ROOT / "docs" / "ARCHITECTURE.md"


def read_table():
    text = DOC.read_text()
    m = re.search(r"<!-- layers:begin -->(.*?)<!-- layers:end -->", text, re.S)
    if not m:
        sys.exit(f"{DOC}: no layers:begin / layers:end table")
    allowed = {}
    for line in m.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not cells[0].startswith("`"):
            continue
        module = cells[0].strip("`/")
        deps = set(re.findall(r"`([a-z0-9_]+)/?`", cells[1]))
        allowed[module] = deps
    return allowed


def layers_order():
    """The src/floe/ modules in the order the page's Layers table lists them."""
    text = DOC.read_text()
    m = re.search(r"^## Layers\n(.*?)^## ", text, re.S | re.M)
    if not m:
        return []
    return re.findall(r"^\| `src/floe/([a-z0-9_]+)`", m.group(1), re.M)


def module_libraries():
    """Library (and executable) targets per module, and each target's floe links."""
    owner = {}  # target -> module
    links = {}  # target -> set of floe targets
    for cmake in SRC.rglob("CMakeLists.txt"):
        module = cmake.relative_to(SRC).parts[0]
        text = re.sub(r"#.*", "", cmake.read_text())
        for m in re.finditer(r"floe_add_library\s*\((.*?)\)", text, re.S):
            body = m.group(1)
            name = re.search(r"NAME\s+(\S+)", body).group(1)
            owner[name] = module
            deps = set()
            for dm in re.finditer(r"(?:PRIVATE_DEPS|DEPS)\s+(.*?)(?=\b[A-Z_]{3,}\b|$)", body, re.S):
                deps |= set(re.findall(r"\bfloe_[a-z0-9_]+\b", dm.group(1)))
            links.setdefault(name, set()).update(deps)
        for m in re.finditer(r"add_(?:library|executable)\s*\(\s*(floe[a-z0-9_]*)", text):
            owner.setdefault(m.group(1), module)
            links.setdefault(m.group(1), set())
        for m in re.finditer(r"target_link_libraries\s*\(\s*(floe[a-z0-9_]*)(.*?)\)", text, re.S):
            links.setdefault(m.group(1), set()).update(
                re.findall(r"\bfloe_[a-z0-9_]+\b", m.group(2)))
            owner.setdefault(m.group(1), module)
    return owner, links


def main():
    allowed = read_table()
    modules = {p.name for p in SRC.iterdir() if p.is_dir()}
    errors = []
    for m in sorted(modules - set(allowed)):
        errors.append(f"module {m}/ is missing from the table in docs/ARCHITECTURE.md")
    for m in sorted(set(allowed) - modules):
        errors.append(f"the table names {m}/, which does not exist")
    for m, deps in allowed.items():
        for d in sorted(deps - modules):
            errors.append(f"the table lets {m}/ depend on {d}/, which does not exist")

    # Cycles in the table.
    state = {}

    def visit(m, path):
        if state.get(m) == 1:
            errors.append("the table has a cycle: " + " -> ".join(path + [m]))
            return
        if state.get(m) == 2:
            return
        state[m] = 1
        for d in sorted(allowed.get(m, ())):
            visit(d, path + [m])
        state[m] = 2

    for m in sorted(allowed):
        visit(m, [])

    # Rows are layers, top to bottom: a module may depend only on rows below its own.
    rows = list(allowed)
    for i, m in enumerate(rows):
        for d in sorted(allowed[m]):
            if d in rows and rows.index(d) <= i:
                errors.append(f"the table lets {m}/ depend on {d}/, which is not below it")
    if layers_order() != rows:
        errors.append("the Layers table of docs/ARCHITECTURE.md lists the modules in another "
                      "order than the dependency table: " + " ".join(layers_order()))

    owner, links = module_libraries()

    def reach(target, seen=None):
        seen = set() if seen is None else seen
        for d in links.get(target, ()):
            if d not in seen:
                seen.add(d)
                reach(d, seen)
        return seen

    module_reach = {}
    for target, module in owner.items():
        if target.endswith("_test") or target.endswith("_tests"):
            continue
        module_reach.setdefault(module, set()).add(module)
        for d in reach(target):
            if d in owner:
                module_reach[module].add(owner[d])
        for d in links.get(target, ()):
            dm = owner.get(d)
            if dm and dm != module and dm not in allowed.get(module, set()):
                errors.append(f"CMake: {target} ({module}/) links {d} ({dm}/), "
                              f"which the table does not allow {module}/")

    include = re.compile(r'^\s*#\s*include\s+"floe/([a-z0-9_]+)/', re.M)
    for path in sorted(SRC.rglob("*")):
        if path.suffix not in (".h", ".cc", ".in", ".def") or not path.is_file():
            continue
        module = path.relative_to(SRC).parts[0]
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            m = include.match(line)
            if not m or m.group(1) == module:
                continue
            dep = m.group(1)
            rel = path.relative_to(ROOT)
            if dep not in allowed.get(module, set()):
                errors.append(f"{rel}:{n}: {module}/ includes {dep}/ "
                              f"(not allowed by docs/ARCHITECTURE.md)")
            elif not path.stem.endswith("_test") and dep not in module_reach.get(module, set()):
                errors.append(f"{rel}:{n}: {module}/ includes {dep}/ but links no library of it")
    for e in errors:
        print(e)
    if errors:
        print(f"check-layers: {len(errors)} violation(s)", file=sys.stderr)
        return 1
    print(f"check-layers: {len(allowed)} modules, dependencies as docs/ARCHITECTURE.md allows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
