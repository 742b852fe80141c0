#!/usr/bin/env python3
"""The printer's colour path, on real pseudo-terminals: the exact escape sequences bevenv writes
when stdout and stderr are terminals, and none when NO_COLOR is set, TERM is `dumb`, a stream is
a pipe, or `--json` is asked. Every other CLI test runs without a terminal, so only this one
sees the styled output a user sees. Offline.

usage: colour.py BEVENV
"""
import json
import os
import pty
import select
import subprocess
import sys
import tempfile

ESC = "\x1b["
RESET, BOLD, DIM = ESC + "0m", ESC + "1m", ESC + "2m"
RED, GREEN, YELLOW = ESC + "31m", ESC + "32m", ESC + "33m"

failures = []


def check(what, ok, shown=""):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)
        print("     got: " + repr(shown)[:600])


def run(bevenv, args, work, env_changes, tty_out=True, tty_err=True):
    """Runs bevenv with stdout and stderr each on its own pty (or pipe); returns code, out, err."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("BEVENV_") and k not in ("NO_COLOR", "TERM")}
    env["TERM"] = "xterm-256color"
    env.update(env_changes)
    out_read, out_write = pty.openpty() if tty_out else os.pipe()
    err_read, err_write = pty.openpty() if tty_err else os.pipe()
    child = subprocess.Popen([bevenv, *args], cwd=work, env=env, stdin=subprocess.DEVNULL,
                             stdout=out_write, stderr=err_write)
    os.close(out_write)
    os.close(err_write)
    received = {out_read: b"", err_read: b""}
    pending = [out_read, err_read]
    while pending:
        ready, _, _ = select.select(pending, [], [], 120)
        if not ready:
            child.kill()
            raise SystemExit("bevenv did not finish in 120 s: " + " ".join(args))
        for fd in ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # a pty's reader gets EIO once the child has closed its side
                chunk = b""
            if chunk:
                received[fd] += chunk
            else:
                pending.remove(fd)
                os.close(fd)
    return (child.wait(), received[out_read].decode().replace("\r\n", "\n"),
            received[err_read].decode().replace("\r\n", "\n"))


def main():
    bevenv = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="bevenv-colour-") as work:
        # A lock on terminals: names in backticks bold, the warning mark yellow.
        code, out, err = run(bevenv, ["lock", "--profile", "bevfusion", "--gpu", "none",
                                      "-o", "a.lock"], work, {})
        check("lock exits 0", code == 0, err)
        check("names in backticks are bold", f"Wrote {BOLD}`a.lock`{RESET}" in out, out)
        check("a warning's mark is yellow", f"{YELLOW}!{RESET} " in out, out)

        # An unsatisfiable lock: the problem mark red, the hint dim with its command bold.
        code, out, err = run(bevenv, ["lock", "--profile", "bevfusion", "--gpu", "sm_90",
                                      "--cuda-driver", "13.0", "-o", "b.lock"], work, {})
        check("unsatisfiable lock exits 1", code == 1, err)
        check("a problem's mark is red", out.startswith(f"{RED}✗{RESET} no environment"), out)
        check("a hint is dim, its command bold inside it",
              f"{DIM}hint: {BOLD}`bevenv lock --profile bevfusion-torch2" in out and
              f"`{RESET}{DIM}" in out, out)
        check("no style is left open at the end of a line",
              all(line.rsplit(ESC, 1)[1].startswith("0m") for line in out.splitlines()
                  if ESC in line), out)

        # An error on stderr: `error:` bold red, `hint:` dim; stdout empty.
        code, out, err = run(bevenv, ["lock", "--profile", "nope"], work, {})
        check("usage error exits 2", code == 2, err)
        check("`error:` is bold red", err.startswith(f"{RED}{BOLD}error:{RESET} unknown profile "
                                                   f"{BOLD}`nope`{RESET}"), err)
        check("`hint:` is dim", f"\n{DIM}hint:{RESET} profiles in the matrix: " in err, err)
        check("nothing on stdout", out == "", out)

        # Styles off: NO_COLOR (any non-empty value), TERM=dumb, pipes, --json.
        plain = [("NO_COLOR=1", {"NO_COLOR": "1"}, True), ("TERM=dumb", {"TERM": "dumb"}, True),
                 ("stdout and stderr pipes", {}, False)]
        for name, env, ttys in plain:
            for args in (["lock", "--profile", "bevfusion", "--gpu", "none", "-o", "c.lock"],
                         ["lock", "--profile", "nope"]):
                code, out, err = run(bevenv, args, work, env, ttys, ttys)
                check(f"{name}: no escape in `{' '.join(args[:3])}`",
                      ESC not in out and ESC not in err, out + err)
        # An empty NO_COLOR is unset (https://no-color.org).
        code, out, err = run(bevenv, ["lock", "--profile", "nope"], work, {"NO_COLOR": ""})
        check("NO_COLOR= (empty) keeps colour", err.startswith(f"{RED}{BOLD}error:"), err)
        # Each stream is judged alone: stdout a pipe, stderr a terminal.
        code, out, err = run(bevenv, ["lock", "--profile", "nope"], work, {}, tty_out=False)
        check("stderr a terminal, stdout a pipe: the error is still styled",
              err.startswith(f"{RED}{BOLD}error:"), err)
        code, out, err = run(bevenv, ["lock", "--profile", "smoke", "--gpu", "none", "-o",
                                      "d.lock"], work, {}, tty_err=False)
        check("stdout a terminal, stderr a pipe: stdout styled", BOLD in out, out)
        # --json on a terminal: plain JSON that parses.
        code, out, err = run(bevenv, ["--json", "lock", "--profile", "smoke", "--gpu", "none",
                                      "-o", "e.lock"], work, {})
        check("--json on a terminal: no escape", ESC not in out and ESC not in err, out + err)
        try:
            json.loads(out)
            parsed = True
        except ValueError:
            parsed = False
        check("--json on a terminal: the output parses", parsed, out)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
