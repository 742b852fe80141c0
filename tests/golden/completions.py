#!/usr/bin/env python3
"""Runs `bevenv completions bash|zsh|fish` and drives each script in the real shell.

bash: source the script, set COMP_WORDS/COMP_CWORD, call _bevenv, read COMPREPLY.
fish: `complete -C "bevenv ..."`, fish's own completion engine.
zsh: `zsh -n`; compinit in a private ZDOTDIR must pick up `#compdef bevenv`; then _bevenv runs
with the completion builtins stubbed (they only exist inside a completion widget), and the
candidates it hands them are checked.
Exits 77 (skipped) when a shell is missing.
"""
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SHELLS = ["bash", "zsh", "fish"]
FAILURES = []


def check(label, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + label + ("" if ok else f": {detail}"))
    if not ok:
        FAILURES.append(label)


def run(argv, cwd, env):
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=60)
    if done.returncode != 0 or done.stderr.strip():
        check(" ".join(argv[:2]) + " runs cleanly", False, f"exit {done.returncode}: {done.stderr}")
    return done.stdout.splitlines()


BASH = 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _bevenv; ' \
       'printf "%s\\n" "${COMPREPLY[@]}"'


def bash(script, words, cwd, env):
    return run(["bash", "--norc", "--noprofile", "-c", BASH, "_", script, *words], cwd, env)


def fish(script, line, cwd, env):
    out = run(["fish", "--no-config", "-c", f"source {script}; complete -C {fish_str(line)}"],
              cwd, env)
    return [entry.split("\t")[0] for entry in out]


def fish_str(text):
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


# The stubs print what _bevenv offers; like the real ones, _describe shows `name` of
# `name:description` and candidates are filtered by the word's prefix (done in zsh_complete).
ZSH = r'''
compdef() { :; }
compset() { :; }
_describe() { local item; for item in "${(@P)${@[-1]}}"; do print -r -- "${item%%:*}"; done; }
compadd() { [[ $1 == -a ]] && print -rl -- "${(@P)2}"; }
_files() { print -r -- @files; }
_directories() { print -r -- @directories; }
source "$1"; shift
words=("$@"); CURRENT=$#
_bevenv
'''


def zsh(script, words, cwd, env):
    out = run(["zsh", "-f", "-c", ZSH, "_", script, *words], cwd, env)
    return [w for w in out if w.startswith(words[-1]) or w.startswith("@")]


def expect(shell, what, got, want=(), exactly=None, absent=()):
    missing = [w for w in want if w not in got]
    present = [w for w in absent if w in got]
    ok = not missing and not present and (exactly is None or sorted(got) == sorted(exactly))
    check(f"{shell}: {what}", ok, f"got {got}")


def common_cases(shell, complete):
    """The same completions, asked of each shell; `complete` takes the words, the last the
    one being completed."""
    expect(shell, "bevenv lo -> lock", complete(["bevenv", "lo"]), exactly=["lock"])
    expect(shell, "bevenv co -> completions", complete(["bevenv", "co"]), exactly=["completions"])
    expect(shell, "bevenv lock --pro", complete(["bevenv", "lock", "--pro"]),
           want=["--profile", "--project"], absent=["--python"])
    expect(shell, "bevenv lock --profile", complete(["bevenv", "lock", "--profile", ""]),
           want=["bevfusion", "smoke", "uniad-2.0"])
    expect(shell, "bevenv export --format", complete(["bevenv", "export", "--format", ""]),
           exactly=["requirements", "pylock", "json"])
    expect(shell, "bevenv matrix", complete(["bevenv", "matrix", ""]),
           want=["check", "show", "rules", "profiles", "snapshot"], absent=["lock"])
    expect(shell, "bevenv matrix show --", complete(["bevenv", "matrix", "show", "--"]),
           want=["--help", "--json", "--matrix"], absent=["--version", "--profile"])
    expect(shell, "bevenv lock --gpu", complete(["bevenv", "lock", "--gpu", "sm_8"]),
           want=["sm_86"], absent=["sm_70"])
    expect(shell, "bevenv why", complete(["bevenv", "why", "setupt"]), want=["setuptools"])
    expect(shell, "bevenv matrix profiles", complete(["bevenv", "matrix", "profiles", "uni"]),
           want=["uniad", "uniad-2.0"])
    expect(shell, "bevenv matrix rules --failure",
           complete(["bevenv", "matrix", "rules", "--failure", "F1"]), want=["F1", "F12"])
    expect(shell, "bevenv sync --installer", complete(["bevenv", "sync", "--installer", ""]),
           exactly=["pip", "uv"])
    expect(shell, "bevenv completions", complete(["bevenv", "completions", ""]),
           exactly=["bash", "zsh", "fish"])
    expect(shell, "an optional value left out",
           complete(["bevenv", "doctor", "--record", "--json", "--lo"]),
           exactly=["--lockfile", "--log"])
    expect(shell, "options after a value",
           complete(["bevenv", "lock", "--profile", "smoke", "--o"]),
           want=["--output", "--offline"])


def file_cases(shell, complete, files, dirs):
    expect(shell, "a FILE value", complete(["bevenv", "lock", "-o", "f"]), exactly=files)
    expect(shell, "a DIR value", complete(["bevenv", "--matrix", "f"]), exactly=dirs)


def main():
    missing = [s for s in SHELLS if shutil.which(s) is None]
    if missing:
        print("skipped: no " + ", ".join(missing) + " on PATH")
        return 77
    bevenv = str(Path(sys.argv[1]).resolve())
    env = {k: v for k, v in os.environ.items() if not k.startswith("BEVENV_")}
    with tempfile.TemporaryDirectory(prefix="bevenv-completions-") as tmp:
        work = Path(tmp, "work")
        (work / "fdir").mkdir(parents=True)
        (work / "foo.lock").write_text("")
        (work / "fab.txt").write_text("")
        env.update(HOME=tmp, XDG_CONFIG_HOME=tmp + "/config", XDG_DATA_HOME=tmp + "/data")
        scripts = {}
        for shell in SHELLS:
            text = "\n".join(run([bevenv, "completions", shell], tmp, env)) + "\n"
            scripts[shell] = Path(tmp, "_bevenv" if shell == "zsh" else f"bevenv.{shell}")
            scripts[shell].write_text(text)
        for shell in ["bash", "zsh"]:
            done = subprocess.run([shell, "-n", str(scripts[shell])], capture_output=True,
                                  text=True)
            check(f"{shell} -n parses the script", done.returncode == 0, done.stderr)

        b = lambda words: bash(str(scripts["bash"]), words, work, env)
        common_cases("bash", b)
        file_cases("bash", b, ["fab.txt", "fdir", "foo.lock"], ["fdir"])
        expect("bash", "--format=VALUE", b(["bevenv", "export", "--format", "=", "py"]),
               exactly=["pylock"])

        f = lambda words: fish(scripts["fish"], " ".join(words), work, env)
        common_cases("fish", f)
        file_cases("fish", f, ["fab.txt", "fdir/", "foo.lock"], ["fdir/"])
        got = run(["fish", "--no-config", "-c",
                   f"source {scripts['fish']}; complete -C 'bevenv doctor --rec'"], work, env)
        check("fish: a `$` in a description stays text", any("$XDG_DATA_HOME" in g for g in got),
              str(got))

        z = lambda words: zsh(str(scripts["zsh"]), words, work, env)
        common_cases("zsh", z)
        expect("zsh", "a FILE value", z(["bevenv", "lock", "-o", ""]), exactly=["@files"])
        expect("zsh", "a DIR value", z(["bevenv", "--matrix", ""]), exactly=["@directories"])
        zdot = Path(tmp, "zdot")
        zdot.mkdir()
        out = run(["zsh", "-c", f"fpath=({tmp} $fpath); autoload -Uz compinit; "
                   f"compinit -u -d {zdot}/dump; print -r -- ${{_comps[bevenv]}}"],
                  tmp, {**env, "ZDOTDIR": str(zdot)})
        check("zsh: compinit finds #compdef bevenv", out == ["_bevenv"], str(out))
    print(f"{len(FAILURES)} failures")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
