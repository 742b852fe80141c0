#!/usr/bin/env python3
"""Fails when a source includes a module's header against the dependency direction of
docs/architecture.md: cli -> app -> {matrix, solver, index, lockfiles, containers, probes} -> core
-> util, and containers -> lockfiles. The build enforces most of it through the include paths each
target gets (tests/layers/CMakeLists.txt shows one case failing); this scan covers every edge,
headers included, without building. Usage: check_includes.py REPO_ROOT"""
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "support"))
import verdict  # noqa: E402

# Where each module's sources live, and the modules it may include besides itself.
MODULES = {
    "util": ("src/util", set()),
    "core": ("src/core", {"util"}),
    "matrix": ("matrix", {"core"}),
    "solver": ("solver", {"core"}),
    "index": ("src/index", {"core"}),
    "lockfiles": ("lockfiles", {"core"}),
    "containers": ("containers", {"core", "lockfiles"}),
    "probes": ("probes", {"core"}),
    "app": ("src/app", {"core", "matrix", "solver", "index", "lockfiles", "containers", "probes"}),
    "cli": ("src/cli", {"core", "app"}),
}
INCLUDE = re.compile(r'^\s*#\s*include\s*"bevenv/([a-z_]+)/', re.M)


def main() -> int:
    root = pathlib.Path(sys.argv[1])
    problems = []
    for module, (folder, allowed) in MODULES.items():
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in (".cpp", ".hpp", ".h", ".cc") or not path.is_file():
                continue
            for included in INCLUDE.findall(path.read_text(errors="replace")):
                # util is below everything: any module may use it.
                if included not in (module, "util") and included not in allowed:
                    problems.append(f"{path.relative_to(root)}: {module} includes "
                                    f"`bevenv/{included}/...`, against the direction")
    return verdict.report(problems, f"{len(problems)} include(s) against the direction")


if __name__ == "__main__":
    sys.exit(main())
