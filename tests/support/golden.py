"""The one golden-file mechanism of the Python test drivers (docs/development.md, "Golden
files"); tests/support/golden.cpp is the same for the C++ tests. A produced text is compared
with its reviewed file and a unified diff is printed when they differ; BEVENV_UPDATE_GOLDEN=1
rewrites the file instead (temporary file, then rename), for review with `git diff`.
"""
import difflib
import os
from pathlib import Path

MAX_DIFF_LINES = 80


def updating() -> bool:
    return os.environ.get("BEVENV_UPDATE_GOLDEN") == "1"


def mismatch(path, actual: str) -> str:
    """Empty when `actual` matches the golden at `path` (or it was rewritten); else the report."""
    path = Path(path)
    if updating():
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f"{path.name}.tmp-{os.getpid()}")
        temporary.write_text(actual)
        temporary.replace(path)
        return ""
    if not path.exists():
        return f"no golden file {path}; BEVENV_UPDATE_GOLDEN=1 writes it"
    expected = path.read_text()
    if expected == actual:
        return ""
    diff = list(difflib.unified_diff(expected.splitlines(), actual.splitlines(), "golden",
                                     "actual", lineterm=""))
    if len(diff) > MAX_DIFF_LINES:
        diff = diff[:MAX_DIFF_LINES] + [f"... (diff cut after {MAX_DIFF_LINES} lines)"]
    return (f"{path} differs (BEVENV_UPDATE_GOLDEN=1 rewrites it; review with git diff)\n" +
            "\n".join(diff))
