#!/usr/bin/env python3
"""Runs the commands of README.md's "Quick start" and of docs/tutorial.md exactly as written, in
order, in one fresh directory, with the built `bevenv` first on PATH: every command must exit 0,
or the code its line announces with a trailing `# exit N`. A heredoc (`<<'END'` ... `END`) is
one command with its lines.

Usage: docs_commands.py BEVENV REPO_ROOT
Skips (exit 77) where no Python 3.8 is installed: the tutorial syncs a Python 3.8 venv from PyPI.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

EXIT_NOTE = re.compile(r"#\s*exit\s+(\d+)\s*$")
HEREDOC = re.compile(r"<<-?\s*'?\"?(\w+)'?\"?")


def sh_blocks(markdown: str) -> list[str]:
    return re.findall(r"^```sh\n(.*?)^```", markdown, flags=re.S | re.M)


def section(markdown: str, heading: str) -> str:
    start = markdown.index(heading)
    end = markdown.find("\n## ", start + len(heading))
    return markdown[start:] if end < 0 else markdown[start:end]


def commands(block: str) -> list[str]:
    out, lines = [], block.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        heredoc = HEREDOC.search(line)
        if heredoc:
            body = [line]
            while i < len(lines):
                body.append(lines[i])
                i += 1
                if body[-1].strip() == heredoc.group(1):
                    break
            out.append("\n".join(body))
        else:
            out.append(line)
    return out


def has_python38() -> bool:
    pyenv = Path(os.environ.get("PYENV_ROOT", "/root/.pyenv")) / "versions"
    return shutil.which("python3.8") is not None or any(pyenv.glob("3.8.*/bin/python3.8"))


def main() -> int:
    bevenv, root = Path(sys.argv[1]).resolve(), Path(sys.argv[2])
    if not has_python38():
        print("SKIP: no Python 3.8 interpreter (pyenv's or on PATH): the tutorial syncs a 3.8 venv")
        return 77
    readme = section((root / "README.md").read_text(), "## Quick start")
    sources = [("README.md", b) for b in sh_blocks(readme)]
    sources += [("docs/tutorial.md", b) for b in sh_blocks((root / "docs/tutorial.md").read_text())]
    steps = [(where, c) for where, block in sources for c in commands(block)]
    assert len(steps) >= 15, f"too few commands found ({len(steps)}): did a heading move?"
    env = {k: v for k, v in os.environ.items() if not k.startswith("BEVENV_")}
    failures = 0
    with tempfile.TemporaryDirectory(prefix="bevenv-docs-") as work:
        env.update(NO_COLOR="1", PATH=f"{bevenv.parent}:{env.get('PATH', '')}",
                   XDG_CACHE_HOME=f"{work}/.cache", XDG_DATA_HOME=f"{work}/.data")
        os.makedirs(f"{work}/run")
        for where, command in steps:
            note = EXIT_NOTE.search(command.splitlines()[0])
            want = int(note.group(1)) if note else 0
            done = subprocess.run(["bash", "-c", command], cwd=f"{work}/run", env=env,
                                  capture_output=True, text=True, timeout=600)
            ok = done.returncode == want
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {where}: {command.splitlines()[0]} "
                  f"[exit {done.returncode}{'' if ok else f', expected {want}'}]")
            if not ok:
                print(done.stdout[-3000:] + done.stderr[-3000:])
    print(f"{len(steps) - failures}/{len(steps)} documented commands ran as written")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
