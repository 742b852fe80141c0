"""Writes one package universe in the two forms the benchmarks and the lock oracle feed to
resolvers: a matrix overlay directory for `bevenv --matrix DIR lock` and a find-links directory
of metadata-only wheels for pip, pip-tools, uv and `bevenv lock --find-links DIR`.

A universe is a list of (name, version, requires) where requires is a list of
(target name, PEP 440 specifier text); roots are (name, specifier text) pairs.
"""

import glob
import os
import zipfile

WHEEL_FILE = "Wheel-Version: 1.0\nGenerator: bevenv-bench\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


def toml_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def requirement_text(target, spec):
    return f"{target}{spec}"


def write_overlay(directory, packages, file_name="universe.toml"):
    """One TOML file with a `[[package]]` record per version. No `[matrix]` table: the
    embedded matrix's version and schema stay in force."""
    os.makedirs(directory, exist_ok=True)
    lines = []
    for name, version, requires in packages:
        lines.append("[[package]]")
        lines.append(f"name = {toml_string(name)}")
        lines.append(f"version = {toml_string(version)}")
        if requires:
            items = ", ".join(toml_string(requirement_text(t, s)) for t, s in requires)
            lines.append(f"requires = [{items}]")
        lines.append('sources = ["https://example.org/generated-universe"]')
        lines.append("")
    with open(os.path.join(directory, file_name), "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def write_wheel(directory, name, version, requires):
    """A metadata-only wheel: METADATA, WHEEL and an empty RECORD are all pip and uv read."""
    dist = f"{name.replace('-', '_')}-{version}"
    metadata = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    metadata.extend(f"Requires-Dist: {requirement_text(t, s)}" for t, s in requires)
    path = os.path.join(directory, f"{dist}-py3-none-any.whl")
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"{dist}.dist-info/METADATA", "\n".join(metadata) + "\n")
        archive.writestr(f"{dist}.dist-info/WHEEL", WHEEL_FILE)
        archive.writestr(f"{dist}.dist-info/RECORD", "")


def write_find_links(directory, packages):
    os.makedirs(directory, exist_ok=True)
    for name, version, requires in packages:
        write_wheel(directory, name, version, requires)


def chain_universe(chains, depth, versions, cap=None):
    """Deep conflict chains: `chains` chains of `depth` packages with `versions` versions each,
    plus one shared package `hub`. Version v of link j of a chain requires link j+1 in
    [v-2, v]; version v of a chain's last link requires `hub==v`; the roots ask for every
    chain's head and `hub<=versions//3`. Taking the newest version at every step leads each
    chain to `hub==versions`, which the root forbids, so a resolver that decides greedily must
    back out of every level of every chain; a solution exists (every chain at one version
    at most versions//3). `cap` replaces versions//3 (cap=versions: no conflict at all).
    Returns (packages, roots); len(packages) = chains*depth*versions + versions."""
    cap = versions // 3 if cap is None else cap
    packages = []
    for c in range(chains):
        for j in range(depth):
            name = f"c{c}-l{j}"
            for v in range(1, versions + 1):
                if j + 1 < depth:
                    requires = [(f"c{c}-l{j + 1}", f">={max(v - 2, 1)}.0,<={v}.0")]
                else:
                    requires = [("hub", f"=={v}.0")]
                packages.append((name, f"{v}.0", requires))
    packages.extend(("hub", f"{v}.0", []) for v in range(1, versions + 1))
    roots = [(f"c{c}-l0", "") for c in range(chains)] + [("hub", f"<={cap}.0")]
    return packages, roots


def python_38():
    """pyenv's CPython 3.8: the interpreter uv is given for a Python 3.8 target (without one it
    downloads a CPython on every run, seconds that are not resolution). Empty when absent."""
    found = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.8*/bin/python3.8")))
    return found[-1] if found else ""
