#!/usr/bin/env python3
"""Extras in an offline lock: one solve brings what an extra adds exactly when a chosen package
asks for it, and the lock reads as if the extra's dependencies were its package's.

An overlay matrix (`--matrix DIR`) adds four made-up packages:
- `bxt-app` 1.0 requires `bxt-lib[fast]>=1.0`; `bxt-app` 2.0 requires `bxt-lib` (no extra);
- `bxt-lib` 1.0 and 2.0, whose extra `fast` requires `bxt-speed` (>=1.0 and >=2.0);
- `bxt-speed` 0.1, 1.0 and 2.0; `bxt-unused` is asked by no one.

1. `--require bxt-app==1.0`: `bxt-speed` is locked, listed among `bxt-lib`'s dependencies and
   required by `bxt-lib`; no `why` of `bxt-lib` names the extra's own record.
2. `--require bxt-app`: app 2.0 asks no extra, so `bxt-speed` is not locked.
3. A previous pin is a preference that the extra follows: locked once with `bxt-lib==1.0`, then
   again without it, `bxt-lib` stays 1.0 and `bxt-speed` is what lib 1.0's extra allows.
4. `--require bxt-app==1.0 --require bxt-speed<0.5` is unsatisfiable, and the explanation names
   `bxt-lib[fast]` as a user writes it (no solver-internal `__` names).

usage: extras.py BEVENV
"""

import os
import subprocess
import sys
import tempfile
import tomllib


def record(name, version, *requires):
    quoted = ", ".join(f'"{r}"' for r in requires)
    return (f'[[package]]\nname = "{name}"\nversion = "{version}"\nrequires = [{quoted}]\n'
            'sources = ["https://example.invalid/bevenv-test-fixture"]\n')


OVERLAY = "\n".join([
    record("bxt-app", "1.0", "bxt-lib[fast]>=1.0"),
    record("bxt-app", "2.0", "bxt-lib"),
    record("bxt-lib", "1.0", "bxt-speed>=1.0; extra == 'fast'"),
    record("bxt-lib", "2.0", "bxt-speed>=2.0; extra == 'fast'"),
    *(record("bxt-speed", v) for v in ("0.1", "1.0", "2.0")),
    record("bxt-unused", "1.0", "bxt-lib[fast]"),
])


def lock(bevenv, overlay, path, *requires):
    args = [a for r in requires for a in ("--require", r)]
    done = subprocess.run([bevenv, "lock", "--offline", "--matrix", overlay, "--gpu", "none",
                           *args, "-o", path], capture_output=True, text=True)
    return done.returncode, done.stdout + done.stderr


def packages(path):
    return {p["name"]: p for p in tomllib.load(open(path, "rb"))["package"]}


def main():
    bevenv = sys.argv[1]
    work = tempfile.mkdtemp(prefix="bevenv-extras.")
    overlay = os.path.join(work, "overlay")
    os.makedirs(overlay)
    with open(os.path.join(overlay, "extras.toml"), "w") as out:
        out.write(OVERLAY)
    failures = []

    def expect(what, holds, detail=""):
        print(("ok: " if holds else "FAIL: ") + what)
        if not holds:
            failures.append(what)
            if detail:
                print(detail)

    path = os.path.join(work, "one.lock")
    code, text = lock(bevenv, overlay, path, "bxt-app==1.0")
    expect("app 1.0 locks", code == 0, text)
    if code == 0:
        pins = packages(path)
        lib, speed = pins.get("bxt-lib", {}), pins.get("bxt-speed", {})
        expect("the extra's dependency is locked", speed.get("version") == "2.0", str(speed))
        expect("it is among the package's dependencies",
               "bxt-speed" in lib.get("dependencies", []), str(lib))
        expect("its reason is the package",
               any(w.get("package") == "bxt-lib" for w in speed.get("why", [])), str(speed))
        expect("no reason names an extra's record",
               all("__" not in str(p.get("why")) for p in pins.values()), str(lib))
        expect("bxt-unused is not locked", "bxt-unused" not in pins)

    path = os.path.join(work, "two.lock")
    code, text = lock(bevenv, overlay, path, "bxt-app")
    expect("app 2.0 locks without the extra's dependency",
           code == 0 and "bxt-speed" not in packages(path), text)

    path = os.path.join(work, "kept.lock")
    code, text = lock(bevenv, overlay, path, "bxt-app==1.0", "bxt-lib==1.0")
    expect("lib held at 1.0 locks", code == 0, text)
    code, text = lock(bevenv, overlay, path, "bxt-app==1.0")
    if code == 0:
        pins = packages(path)
        expect("the previous pin of lib is kept through its extra",
               pins["bxt-lib"]["version"] == "1.0", text)
        expect("the extra follows the kept version",
               pins.get("bxt-speed", {}).get("version") in ("1.0", "2.0"), text)
    else:
        expect("the re-lock works", False, text)

    code, text = lock(bevenv, overlay, os.path.join(work, "no.lock"), "bxt-app==1.0",
                      "bxt-speed<0.5")
    expect("a conflict through the extra is unsatisfiable (exit 1)", code == 1, text)
    expect("the explanation names `bxt-lib[fast]` as written",
           "bxt-lib[fast]" in text and "__" not in text, text)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
