#!/usr/bin/env python3
"""Generates PEP 508 conformance cases with Python's `packaging` as the oracle.

Writes two JSON-lines files into the output directory (first argument, default: the
current directory), one object a line:

  pep508_markers.jsonl
    {"env": ID, "values": {VARIABLE: VALUE, ...}}     a marker environment
    {"marker": TEXT, "str": str(Marker) or null}     null: packaging rejects TEXT
    {"eval": TEXT, "env": ID, "result": "true" | "false" | "error"}
  pep508_requirements.jsonl
    {"requirement": TEXT, "str": str(Requirement) or null}

The seed is fixed, so the files are the same on every run with the same `packaging`.

bevenv keeps a requirement's extras normalized (PEP 685), so the expected text of a
requirement is packaging's str(Requirement) after normalizing its extras with packaging's
own canonicalize_name.
"""

from __future__ import annotations

import json
import os
import random
import sys

import packaging
from packaging.markers import InvalidMarker, Marker, prepare_environment
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

SEED = 508
rng = random.Random(SEED)

# Every variable spelling the grammar accepts, with the environment key it reads.
VARIABLES = {
    "os_name": "os_name",
    "os.name": "os_name",
    "sys_platform": "sys_platform",
    "sys.platform": "sys_platform",
    "platform_machine": "platform_machine",
    "platform.machine": "platform_machine",
    "platform_python_implementation": "platform_python_implementation",
    "platform.python_implementation": "platform_python_implementation",
    "python_implementation": "platform_python_implementation",
    "platform_release": "platform_release",
    "platform_system": "platform_system",
    "platform_version": "platform_version",
    "platform.version": "platform_version",
    "python_version": "python_version",
    "python_full_version": "python_full_version",
    "implementation_name": "implementation_name",
    "implementation_version": "implementation_version",
    "extra": "extra",
}

# Values each variable takes in environments, and the pool literals are drawn from.
POOLS = {
    "os_name": ["posix", "nt", "java"],
    "sys_platform": ["linux", "win32", "darwin", "cygwin", "linux2", "emscripten"],
    "platform_machine": ["x86_64", "aarch64", "AMD64", "arm64", "ppc64le", "i686", ""],
    "platform_python_implementation": ["CPython", "PyPy", "Jython", "IronPython"],
    "platform_release": ["5.15.0-1051-azure", "6.2.0", "4.19.0", "5.4", "", "10", "22.04",
                         "6.8.0-rc3", "5.10.0.post1"],
    "platform_system": ["Linux", "Windows", "Darwin", "Java", ""],
    "platform_version": ["#1 SMP Debian 5.10.0", "10.0.19041", "Darwin Kernel Version 22.1.0",
                         "1.2", ""],
    "python_version": ["2.7", "3.6", "3.7", "3.8", "3.9", "3.10", "3.11", "3.12", "3.13"],
    "python_full_version": ["3.8.18", "3.8.0", "3.10.0rc1", "3.11.4+", "3.9.7", "3.7.0a1",
                            "3.12.0.dev1", "3.13.1", "2.7.18", "3.10.12"],
    "implementation_name": ["cpython", "pypy", "graalpy"],
    "implementation_version": ["3.8.18", "7.3.13", "3.11.0b4", "3.10.12", "23.1"],
    "extra": ["", "cuda", "CUDA", "test_all", "Test.All", "dev", "docs"],
}

# Literals that exercise version parsing and the string fallback.
VERSIONISH = ["3", "3.8", "3.8.0", "3.8.18", "3.10", "3.10.0rc1", "3.11.4", "3.11.4+local",
              "3.8.*", "3.*", "3.10.*", "2.7", "1!3.8", "3.8.post1", "3.8.dev0", "v3.8",
              "3.8a1", "3.8.18.0", "5.4", "5.15", "6.2.0", "7.3", "23.1", " 3.8", "3.8 ",
              "3.8.*.1", "3.8+local", "foo", "", "3.8,3.9", "3 .8", "3.x", "3.10rc", "10",
              "3.7.0A1", "3.7.0-a1", "3.7.0_a1", "3.12.0.DEV1", "3.11.04", "03.8"]
STRINGISH = ["linux", "Linux", "lin", "win", "x86", "64", "_", "PyPy", "py", "posix", "",
             "cuda", "Cuda", "test-all", "test_all", "Test.All", "docs", "SMP", "Debian",
             "darwin", "x86_64 ", "a'b", 'a"b', "\\", "a\\tb", "é", "\u00a0"]

OPERATORS = ["==", "==", "!=", "!=", "<", "<=", ">", ">=", "~=", "===", "in", "in", "not in"]

# Characters mutations insert: grammar punctuation, blanks, other whitespace, non-ASCII.
MUTATION_CHARS = list("()[];,@=<>!~*+.-_'\" \t\nabxz09\\") + ["é", "€", "\u00a0", "\u2003"]


def record(**fields: object) -> str:
    return json.dumps(fields, ensure_ascii=True)


def encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def blank() -> str:
    return rng.choice(["", "", " ", " ", "  ", "\t"])


def some_blank() -> str:
    return rng.choice([" ", " ", "  ", "\t", " \t "])


def quote(value: str) -> str:
    if '"' in value and "'" in value:
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if '"' in value:
        return "'" + value + "'"
    if "'" in value:
        return '"' + value + '"'
    q = rng.choice(['"', "'"])
    return q + value + q


def literal_for(key: str) -> str:
    roll = rng.random()
    if roll < 0.45:
        value = rng.choice(POOLS[key])
    elif roll < 0.75:
        value = rng.choice(VERSIONISH)
    elif roll < 0.9:
        value = rng.choice(STRINGISH)
    else:
        base = rng.choice(POOLS[key]) or "x"
        start = rng.randrange(len(base))
        value = base[start : start + rng.randint(1, 4)]
    if rng.random() < 0.05:
        value = value.upper() if rng.random() < 0.5 else value.swapcase()
    return value


def comparison() -> str:
    roll = rng.random()
    op = rng.choice(OPERATORS)
    if op in ("in", "not in"):
        space_before, space_after = some_blank(), some_blank()
    else:
        space_before, space_after = blank(), blank()
    if roll < 0.03:
        # Both sides variables, or both literals: packaging reads these in its own way.
        lhs = rng.choice(list(VARIABLES))
        rhs = rng.choice(list(VARIABLES)) if rng.random() < 0.5 else quote("extra")
        if rhs.startswith(("'", '"')):
            lhs = quote(rng.choice(STRINGISH))
        return f"{lhs}{space_before}{op}{space_after}{rhs}"
    if roll < 0.05:
        variable = rng.choice(["extras", "dependency_groups"])
        return f"{quote(rng.choice(STRINGISH))} in {variable}"
    variable = rng.choice(list(VARIABLES))
    literal = quote(literal_for(VARIABLES[variable]))
    if rng.random() < 0.3:
        return f"{literal}{space_before}{op}{space_after}{variable}"
    return f"{variable}{space_before}{op}{space_after}{literal}"


def expression(depth: int = 0) -> str:
    count = rng.choice([1, 1, 2, 2, 3]) if depth < 3 else 1
    parts = []
    for index in range(count):
        if index > 0:
            parts.append(some_blank() + rng.choice(["and", "or"]) + some_blank())
        if depth < 3 and rng.random() < 0.3:
            parens = rng.choice([1, 1, 1, 2])
            inner = expression(depth + 1)
            parts.append("(" * parens + blank() + inner + blank() + ")" * parens)
        else:
            parts.append(comparison())
    return blank() + "".join(parts) + blank()


def mutate(text: str) -> str:
    chars = list(text)
    for _ in range(rng.choice([1, 1, 2])):
        action = rng.random()
        position = rng.randrange(len(chars) + 1)
        if action < 0.35 and chars:
            del chars[min(position, len(chars) - 1)]
        elif action < 0.7:
            chars.insert(position, rng.choice(MUTATION_CHARS))
        elif action < 0.85:
            chars = chars[:position]
        elif chars:
            chars[min(position, len(chars) - 1)] = rng.choice(MUTATION_CHARS)
    return "".join(chars)


def random_environment() -> dict[str, str]:
    env = {key: rng.choice(pool) for key, pool in POOLS.items()}
    if rng.random() < 0.3:
        env["python_version"] = ".".join(env["python_full_version"].split(".")[:2])
    if rng.random() < 0.1:
        del env[rng.choice(list(env))]
    return env


def prepared(env: dict[str, str]) -> dict[str, str]:
    if "python_full_version" in env:
        # All keys present: packaging's own preparation (normalized `extra`, repaired
        # python_full_version) without any value of the machine running this script.
        full = {key: env.get(key, "") for key in POOLS}
        result = prepare_environment(full)
        for key in POOLS:
            if key not in env and key != "extra":
                del result[key]
        return result
    result = dict(env)
    result["extra"] = canonicalize_name(env["extra"]) if env.get("extra") else ""
    return result


def evaluate(marker: Marker, env: dict[str, str]) -> str:
    try:
        return "true" if marker.evaluate_prepared(prepared(env)) else "false"
    except (ValueError, KeyError):
        # UndefinedComparison (a ValueError) and UndefinedEnvironmentName (a KeyError).
        return "error"


def marker_cases(lines: list[str]) -> tuple[int, int, int]:
    environments = [random_environment() for _ in range(60)]
    # The target bevenv locks for, as MarkerEnvironment::linux_cpython builds it.
    environments.append({
        "implementation_name": "cpython", "implementation_version": "3.8.18",
        "os_name": "posix", "platform_machine": "x86_64", "platform_release": "",
        "platform_version": "", "platform_system": "Linux",
        "platform_python_implementation": "CPython", "python_full_version": "3.8.18",
        "python_version": "3.8", "sys_platform": "linux", "extra": "",
    })
    for index, env in enumerate(environments):
        lines.append(record(env=index, values=env))

    texts: list[str] = []
    for _ in range(1400):
        texts.append(expression())
    for _ in range(1200):
        texts.append(mutate(rng.choice(texts)))
    # Escapes in quoted strings, which packaging reads with Python's literal_eval.
    for body in ["a\\\\b", "\\x41", "\\u00e9", "\\101", "\\q", "\\n", "a\\\nb", "\\x4",
                 "\\U0001F600", "\\'", '\\"', "\\t3.8", "3.8\\x00"]:
        texts.append(f'python_version == "{body}"')
    texts += ["(" * 200 + 'os_name == "nt"' + ")" * 200,
              "(" * 201 + 'os_name == "nt"' + ")" * 201,
              "(" * 5000, "", " ", "()", "and", 'os_name == "a" and', 'os_name in"posix"',
              'os_name=="a"or os_name=="b"', 'os_name=="a"oros_name=="b"',
              'os_name not  in "x"', 'os_name notin "x"', 'os_name not\tin "posix"',
              "python_version<'3'and(extra=='Foo_Bar')", 'unknown_var == "x"']

    valid = evaluations = 0
    for text in texts:
        try:
            marker = Marker(text)
            canonical = str(marker)
        except InvalidMarker:
            lines.append(record(marker=text, str=None))
            continue
        except ValueError:
            continue  # a value holding both quote characters: packaging cannot print it
        if not encodable(text) or not encodable(canonical):
            continue
        valid += 1
        lines.append(record(marker=text, str=canonical))
        for env_index in rng.sample(range(len(environments)), 3):
            result = evaluate(marker, environments[env_index])
            lines.append(record(eval=text, env=env_index, result=result))
            evaluations += 1
    return len(texts), valid, evaluations


NAMES = ["torch", "mmcv-full", "mmcv_full", "MMCV.Full", "numpy", "A", "a1", "foo_", "x-y.z",
         "Pillow", "nuscenes-devkit", "9lives", "scikit-learn", "spconv-cu118"]
EXTRAS = ["cuda", "CUDA", "test_all", "Test.All", "dev", "a-b", "x__y", "docs", "e1"]
SPECIFIERS = [">=1.0", "==1.9.*", "!=1.5", "<2", "~=1.4", "~=1.4.2", "===1.0-custom", ">1.0a1",
              "==1.10.1+cu113", "<=2.0.post1", ">= 1.0", "== 2.0.dev1", ">=v1.0", "==1!2.0",
              "~= 3.8", "<3.0rc1", ">=1.0.0", "==1.0.0.0", ">=1.0,<2.0", "!=1.*", "==2",
              ">=1.0 , <2", "==1.*", ">=1.0,", "== 1.0.0 ", "<=1.0-1", ">1.0_post2", "===x(y"]


def requirement_text() -> str:
    parts = [blank(), rng.choice(NAMES)]
    if rng.random() < 0.4:
        extras = rng.sample(EXTRAS, rng.randint(0, 3))
        joined = ("," + blank()).join(extras) if rng.random() < 0.5 else ",".join(extras)
        parts.append(blank() + "[" + blank() + joined + blank() + "]")
    roll = rng.random()
    if roll < 0.15:
        parts.append(blank() + "@" + blank() + rng.choice([
            "https://example.com/torch-2.0.whl", "git+https://github.com/a/b.git@v1#egg=b",
            "file:///tmp/x.tar.gz", "https://x/y;z"]))
        if rng.random() < 0.5:
            parts.append(some_blank() + ";" + blank() + expression())
        return "".join(parts)
    if roll < 0.85:
        specifiers = rng.sample(SPECIFIERS, rng.randint(1, 3))
        joined = (blank() + "," + blank()).join(specifiers)
        if rng.random() < 0.25:
            joined = "(" + blank() + joined + blank() + ")"
        parts.append(blank() + joined)
    if rng.random() < 0.4:
        parts.append(blank() + ";" + expression())
    parts.append(blank())
    return "".join(parts)


def requirement_cases(lines: list[str]) -> tuple[int, int]:
    texts = [requirement_text() for _ in range(1800)]
    texts += [mutate(rng.choice(texts)) for _ in range(1800)]
    texts += ["torch>=", "mmcv-full[", "foo bar", "foo>=\n1.0", "foo>=\u20031.0", "foo[]",
              "foo[ ]", "foo()", "foo ( )", "foo[a b]", "foo[a,]", "foo[,a]", "foo @",
              "foo @ ", "foo @ url;", "foo @ url ;", "foo @ url\n", "foo ;", "foo;", "",
              " ", "-foo", "foo-", "foo.bar_", "foo>=1.0,,<2", "foo,>=1", "foo>=1.0.*",
              "foo==1.0+local.*", "foo>=1.0+local", "foo===a,b", "foo (>=1.0",
              "foo >=1.0)", "foo==1.0 ==2.0", "foo~=1", "fooé", "foo€>=1", "foo>=1.0é",
              "name @ https://x ; extra == 'Foo'", "name[X]@https://x"]
    valid = 0
    for text in texts:
        try:
            requirement = Requirement(text)
            requirement.extras = {canonicalize_name(extra) for extra in requirement.extras}
            canonical = str(requirement)
        except InvalidRequirement:
            lines.append(record(requirement=text, str=None))
            continue
        except ValueError:
            continue  # a marker value holding both quote characters: packaging cannot print it
        if not encodable(text) or not encodable(canonical):
            continue
        valid += 1
        lines.append(record(requirement=text, str=canonical))
    return len(texts), valid


def main() -> int:
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out_dir, exist_ok=True)
    marker_lines: list[str] = []
    marker_total, marker_valid, evaluations = marker_cases(marker_lines)
    requirement_lines: list[str] = []
    requirement_total, requirement_valid = requirement_cases(requirement_lines)
    with open(os.path.join(out_dir, "pep508_markers.jsonl"), "w", encoding="utf-8") as out:
        out.write("\n".join(marker_lines) + "\n")
    with open(os.path.join(out_dir, "pep508_requirements.jsonl"), "w", encoding="utf-8") as out:
        out.write("\n".join(requirement_lines) + "\n")
    print(f"gen_markers (packaging {packaging.__version__}, seed {SEED}): {marker_total} markers ({marker_valid} valid, {evaluations} "
          f"evaluations), {requirement_total} requirements ({requirement_valid} valid)",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
