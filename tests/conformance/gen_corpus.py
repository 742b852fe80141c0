#!/usr/bin/env python3
"""Writes the PEP 440 / PEP 503 conformance corpus, with Python's `packaging` as the oracle.

Usage: gen_corpus.py OUT_DIR [SEED [SCALE]]

SEED and SCALE (a multiplier for the corpus sizes) exist for ad-hoc stress runs; the build
always uses the defaults.

The output is deterministic for a given packaging version (fixed seed). See README.md in this
folder for the file format. Nothing here is committed: the build runs this into its own tree.
"""

import json
import os
import random
import re
import sys

import packaging
from packaging.specifiers import InvalidSpecifier, Specifier, SpecifierSet
from packaging.utils import InvalidName, canonicalize_name
from packaging.version import InvalidVersion, Version

SEED = 440
U64_MAX = 2**64 - 1
rng = random.Random(SEED)

# --------------------------------------------------------------------------------------------
# Version text generation


def number():
    roll = rng.random()
    if roll < 0.55:
        value = rng.randint(0, 3)
    elif roll < 0.85:
        value = rng.randint(0, 20)
    elif roll < 0.97:
        value = rng.randint(0, 10**6)
    else:
        value = rng.choice([U64_MAX, U64_MAX - 1, 2**63, 2**32])
    text = str(value)
    if rng.random() < 0.05:
        text = "0" * rng.randint(1, 2) + text
    return text


def sep():
    return rng.choice(["", "", ".", "-", "_"])


def cased(word):
    roll = rng.random()
    if roll < 0.8:
        return word
    if roll < 0.9:
        return word.upper()
    return "".join(c.upper() if rng.random() < 0.5 else c for c in word)


PRE_WORDS = ["a", "a", "b", "b", "rc", "rc", "alpha", "beta", "c", "pre", "preview"]
POST_WORDS = ["post", "post", "rev", "r"]
LOCAL_WORDS = ["cu113", "cu118", "cpu", "ubuntu", "abc", "g1234abc", "torch2", "rocm5", "x"]
SPACES = [" ", "\t", "\n", "  ", "\u00a0", "\u3000", "\x0b", "\u2009"]


def release_text(max_len=5):
    return ".".join(number() for _ in range(rng.randint(1, max_len)))


def local_text():
    parts = []
    for _ in range(rng.randint(1, 3)):
        parts.append(number() if rng.random() < 0.4 else cased(rng.choice(LOCAL_WORDS)))
    out = parts[0]
    for part in parts[1:]:
        out += rng.choice([".", ".", "-", "_"]) + part
    return out


def version_text():
    out = ""
    if rng.random() < 0.05:
        out += rng.choice(["v", "V"])
    if rng.random() < 0.1:
        out += number() + "!"
    out += release_text()
    if rng.random() < 0.35:
        out += sep() + cased(rng.choice(PRE_WORDS)) + sep() + (number() if rng.random() < 0.85 else "")
    if rng.random() < 0.25:
        if rng.random() < 0.2:
            out += "-" + number()
        else:
            out += sep() + cased(rng.choice(POST_WORDS)) + sep() + (
                number() if rng.random() < 0.85 else "")
    if rng.random() < 0.25:
        out += sep() + cased("dev") + sep() + (number() if rng.random() < 0.85 else "")
    if rng.random() < 0.2:
        out += "+" + local_text()
    if rng.random() < 0.05:
        out = rng.choice(SPACES) + out
    if rng.random() < 0.05:
        out += rng.choice(SPACES)
    return out


MUTATION_CHARS = list(".-_+!*abcdevpostrcx 0129") + ["..", "++", "--", "é", "\u00a0", ";", ")", ","]


def mutate(text):
    out = text
    for _ in range(rng.randint(1, 2)):
        roll = rng.random()
        pos = rng.randint(0, len(out))
        if roll < 0.45:
            out = out[:pos] + rng.choice(MUTATION_CHARS) + out[pos:]
        elif roll < 0.8 and out:
            pos = min(pos, len(out) - 1)
            out = out[:pos] + out[pos + 1:]
        elif out:
            pos = min(pos, len(out) - 1)
            out = out[:pos] + rng.choice(MUTATION_CHARS) + out[pos + 1:]
    return out


def huge_number_text():
    big = str(rng.randint(U64_MAX + 1, 10**30))
    templates = ["{}", "1.{}", "{}!1.0", "1.0a{}", "1.0.post{}", "1.0.dev{}", "1.0+{}", "1.0-{}"]
    return rng.choice(templates).format(big)


HARD_VERSIONS = [
    "1.0.post1", "1.0.1", "1.0rc1", "1.0", "1!0.1", "0.1", "1.0+cu113", "2.0.0", "2.0", "2",
    "1.4.5", "1.4.6", "1.5", "1.5.0.dev0", "1.9", "1.9.0", "1.9.1", "1.9a1", "1.10", "1.10.0",
    "1.10.1", "1.10.1+cu113", "1.10.1+cpu", "1.10.1.post1", "1.10.2", "1.0-1", "1.0_post1",
    "1.0.POST1", "v1.0", "V1.0", " 1.0 ", "1.0alpha1", "1.0Beta2", "1.0c3", "1.0pre4",
    "1.0preview5", "1.0rev6", "1.0r7", "1.0-dev8", "1.0.dev", "1.0a", "1.0.post", "1.0+ABC.1",
    "1.0+abc-1_2", "1.0+01", "1.0+1", "1.0+a.0", "1.0+a.a", "1.0+0", "1.0a..post1",
    "1.0a.dev1", "1.0a1-1", "0", "0.0", "0.dev0", "0.0.dev0", "1.0.dev0", "1.0a0", "1.0b0",
    "1.0rc0", "1.0.post0", "1.0.post0.dev0", "1.0a1.post1.dev1", "1!1.0", "0!1.0",
    "1.0.0.0.0.0", "18446744073709551615", "18446744073709551616", "1.0+18446744073709551616",
    "", " ", "1.", ".1", "1..0", "1.0+", "1.0+a..b", "1.0++a", "a1.0", "1.0-", "1.0_",
    "1.0.a1.b2", "1.0a1b2", "1.0-1-1", "1.0.post1-1", "1!", "!1", "1!1!1", "1.0.*",
    "vv1.0", "1.0 a1", "1.0\u00a0", "\u30001.0", "1.0\u200b", "1.0é", "1.0+é",
]


def version_record(text):
    try:
        v = Version(text)
    except InvalidVersion:
        return {"input": text, "valid": False}
    numbers = [v.epoch, *v.release]
    for part in (v.pre[1] if v.pre else None, v.post, v.dev):
        if part is not None:
            numbers.append(part)
    if v.local:
        numbers.extend(int(p) for p in v.local.split(".") if p.isdigit())
    if any(n > U64_MAX for n in numbers):
        return {"input": text, "valid": True, "too_large": True}
    return {
        "input": text,
        "valid": True,
        "normalized": str(v),
        "public": v.public,
        "base": v.base_version,
        "local": v.local or "",
        "epoch": v.epoch,
        "release": list(v.release),
        "is_pre": v.is_prerelease,
        "is_post": v.is_postrelease,
        "is_dev": v.is_devrelease,
    }


def build_versions(count):
    texts = list(HARD_VERSIONS)
    seen = set(texts)
    while len(texts) < count:
        roll = rng.random()
        if roll < 0.72:
            text = version_text()
        elif roll < 0.97:
            text = mutate(version_text())
        else:
            text = huge_number_text()
        if text not in seen:
            seen.add(text)
            texts.append(text)
    records = [version_record(t) for t in texts]
    ordered = sorted({Version(r["input"]) for r in records if r["valid"] and "too_large" not in r})
    ranks = {}
    rank = -1
    previous = None
    for v in ordered:
        if previous is None or v != previous:
            rank += 1
            previous = v
        ranks[v] = rank
    for r in records:
        if r["valid"] and "too_large" not in r:
            r["rank"] = ranks[Version(r["input"])]
    return records


# --------------------------------------------------------------------------------------------
# Specifiers

BASE_VERSIONS = [
    "1.0", "1.0.0", "1.0.post1", "1.0.1", "1.0rc1", "1.0a1", "1.0.dev1", "1!0.1", "1.0+cu113",
    "2.0", "2.0.0", "2", "1.4.5", "1.4", "1.9", "1.10", "1.10.1", "1.10.1+cu113", "1.10.1.post1",
    "1.10.1rc1", "1.10.1.dev0", "0.1", "0", "0.dev0", "3.0b2", "2.0.post1.dev3", "1.0a1.post2",
    "1.0.post1.dev1", "11.8", "12.1", "2.1.0", "0.17.1", "1.13.1", "1.7.0", "1.6.0rc1",
    "18446744073709551615", "1.18446744073709551615",
]
OPERATORS = ["==", "!=", "<=", ">=", "<", ">", "~=", "==="]


def near_versions(text):
    """Versions around `text` that exercise the family rules (pre/post/dev/local/zeros)."""
    v = Version(text)
    rel = list(v.release)
    base = ".".join(map(str, rel))
    epoch = f"{v.epoch}!" if v.epoch else ""
    out = [text, str(v), epoch + base, epoch + base + ".0", epoch + base + "+local.7"]
    bumped = rel[:-1] + [rel[-1] + 1]
    if rel[-1] + 1 <= U64_MAX:
        out.append(epoch + ".".join(map(str, bumped)))
    if rel[-1] > 0:
        out.append(epoch + ".".join(map(str, rel[:-1] + [rel[-1] - 1])))
    if len(rel) > 1 and rel[-2] + 1 <= U64_MAX:
        out.append(epoch + ".".join(map(str, rel[:-2] + [rel[-2] + 1])))
    for suffix in ["a1", "rc1", ".dev0", ".post1", ".post1.dev0", "a1.post1", ".post0", ".1",
                   "+cu113", ".post1+cu113", "rc1+x", ".0.1", "b2.dev1", ".post2"]:
        out.append(epoch + base + suffix)
    if v.epoch:
        out.append(base)
    else:
        out.append("1!" + base)
    return out


def spec_version_text(op):
    text = rng.choice(BASE_VERSIONS)
    v = Version(text)
    if op == "~=" and len(v.release) < 2 and rng.random() < 0.8:
        text += ".0"
    if op in ("==", "!=") and rng.random() < 0.3:
        rel = ".".join(map(str, v.release[: rng.randint(1, len(v.release))]))
        text = (f"{v.epoch}!" if v.epoch else "") + rel + ".*"
    if rng.random() < 0.05:
        text = text + rng.choice([".*", "+local", "+cu113"])
    if rng.random() < 0.05:
        text = rng.choice(["v", "V"]) + text
    if op == "===" and rng.random() < 0.3:
        text = rng.choice([text.upper(), "foobar", "1.0+\u212a", str(v), text + ")"])
    return text


def spec_text():
    op = rng.choice(OPERATORS)
    out = op + (rng.choice(SPACES) if rng.random() < 0.15 else "") + spec_version_text(op)
    if rng.random() < 0.05:
        out = rng.choice(SPACES) + out
    return out


def set_text():
    parts = [spec_text() for _ in range(rng.choice([1, 1, 2, 2, 2, 3, 3]))]
    if rng.random() < 0.1:
        parts.append(rng.choice(["", " "]))
    joined = rng.choice([",", ", ", " ,"]).join(parts)
    if rng.random() < 0.08:
        joined = mutate(joined)
    return joined


HARD_SETS = [
    "", ",", ">=1.0", ">1.0", "<1.0", "<=1.0", "==1.0", "!=1.0", "~=1.4.5", "~=1.4", "~=1",
    "==1.9.*", "!=1.10.*", "==1.10.1", "<=1.10.1", ">1.10.1", "<1.10.1", "==1.10.1+cu113",
    "!=1.10.1+cu113", "==2.0", "==2.0.0", "==2", ">1.0.post1", ">1.0rc1", "<1.0rc1",
    "<1.0.post2", ">=1.0rc1", "~=1.0.*", "<1.0.*", ">=1.0+local", ">1.0+local", "~=1.0+local",
    "===1.0", "===1.0+CU113", "=== foobar", "==1!0.1", ">=1!0", ">=", "==", "~=", "<", "===",
    "1.0", ">= 1.0, < 2.0", ">=1.0,,<2.0", "==1.0a1.*", "==1.0.*+local", "== 1.0.*",
    ">=1.0;", "==1.0)", "=== 1.0 2", "====1.0", ">==1.0", "=>1.0", ">=1.0 ,<2", "!=1.0.*,>=0.9",
    ">1.0.dev1", ">1.0a1.post1", "<0.dev0", "<0", "<=0.dev0", ">=0.dev0", "~=1.0rc1",
    "~=1.0.post1", "~=1.0.dev1", "~=1!1.0", "==1.0.*,!=1.0.1", ">1.0,<1.0.post1", ">=1.0,<=1.0",
    "==1.0,!=1.0", ">1.0.post1,<1.0.post2", "==18446744073709551615.*", "~=1.18446744073709551615",
]


def too_large(specs):
    """Whether a standard specifier holds a number beyond 2^64-1 (bevenv rejects those)."""
    return any(
        int(run) > U64_MAX
        for s in specs
        if s.operator != "==="
        for run in re.findall(r"[0-9]+", s.version)
    )


def fits(text):
    """Whether every number in a candidate version fits in 64 bits (see too_large)."""
    return all(int(run) <= U64_MAX for run in re.findall(r"[0-9]+", text))


def contains(spec_set, v, pre):
    return spec_set.contains(v, prereleases=pre)


def set_record(text):
    try:
        spec_set = SpecifierSet(text)
    except InvalidSpecifier:
        return {"kind": "set", "text": text, "valid": False}
    if too_large(spec_set):
        return {"kind": "set", "text": text, "valid": True, "too_large": True}
    spec_versions = []
    for s in spec_set:
        if s.operator == "===":
            continue
        version = s.version[:-2] if s.version.endswith(".*") else s.version
        spec_versions.append(version)
    pool = []
    for version in spec_versions:
        pool.extend(near_versions(version))
    pool.extend(rng.choice(BASE_VERSIONS) for _ in range(3))
    for s in spec_set:
        if s.operator == "===":
            pool.append(s.version)
    rng.shuffle(pool)
    checks = []
    seen = set()
    for candidate in pool:
        if candidate in seen or not fits(candidate):
            continue
        seen.add(candidate)
        try:
            v = Version(candidate)
        except InvalidVersion:
            continue
        checks.append([candidate, contains(spec_set, v, None), contains(spec_set, v, True),
                       contains(spec_set, v, False)])
        if len(checks) >= 16:
            break
    return {
        "kind": "set",
        "text": text,
        "valid": True,
        "str": str(spec_set),
        "prereleases": spec_set.prereleases is True,
        "checks": checks,
    }


def spec_record(text):
    try:
        spec = Specifier(text)
    except InvalidSpecifier:
        return {"kind": "spec", "text": text, "valid": False}
    if too_large([spec]):
        return {"kind": "spec", "text": text, "valid": True, "too_large": True}
    checks = []
    if spec.operator != "===":
        version = spec.version[:-2] if spec.version.endswith(".*") else spec.version
        for candidate in near_versions(version)[:10]:
            checks.append([candidate, spec.contains(Version(candidate), prereleases=True)])
    return {
        "kind": "spec",
        "text": text,
        "valid": True,
        "str": str(spec),
        "operator": spec.operator,
        "version": spec.version,
        "prereleases": spec.prereleases is True,
        "checks": checks,
    }


def build_specifiers(set_count, spec_count):
    records = [set_record(t) for t in HARD_SETS]
    texts = set(HARD_SETS)
    while len(records) < set_count:
        text = set_text()
        if text in texts:
            continue
        texts.add(text)
        records.append(set_record(text))
    single = set()
    for text in HARD_SETS + [spec_text() for _ in range(spec_count)]:
        if text not in single:
            single.add(text)
            records.append(spec_record(text))
    for _ in range(300):
        a, b = set_text(), set_text()
        try:
            combined = SpecifierSet(a) & SpecifierSet(b)
        except InvalidSpecifier:
            continue
        if too_large(combined):
            continue
        records.append({"kind": "and", "a": a, "b": b, "str": str(combined)})
    return records


def build_filters(count):
    records = []
    while len(records) < count:
        text = set_text() if rng.random() < 0.9 else rng.choice(HARD_SETS)
        try:
            spec_set = SpecifierSet(text)
        except InvalidSpecifier:
            continue
        if too_large(spec_set):
            continue
        pool = []
        for s in spec_set:
            if s.operator != "===":
                version = s.version[:-2] if s.version.endswith(".*") else s.version
                pool.extend(near_versions(version))
        pool.extend(rng.choice(BASE_VERSIONS) for _ in range(4))
        pool = [p for p in dict.fromkeys(pool) if fits(p)]
        candidates = rng.sample(pool, min(len(pool), rng.randint(1, 12)))
        parsed = [Version(c) for c in candidates]

        def indices(pre):
            chosen = list(spec_set.filter(parsed, prereleases=pre))
            out, start = [], 0
            for item in chosen:
                index = next(i for i in range(start, len(parsed)) if parsed[i] is item)
                out.append(index)
                start = index + 1
            return out

        records.append({"text": text, "candidates": candidates, "none": indices(None),
                        "true": indices(True), "false": indices(False)})
    return records


# --------------------------------------------------------------------------------------------
# Names

NAME_CHARS = "abcxyzABCXYZ0189-_." + "-_."


def build_names(count):
    fixed = ["Mmcv_Full", "mmcv-full", "mmdet3d", "torch", "Django", "oslo.concurrency",
             "a", "A", "-", "_a", "a_", "a--b", "a-_.b", "A.B.C", "", "a b", "a+b", "é", "9"]
    records = []
    texts = list(fixed)
    while len(texts) < count:
        texts.append("".join(rng.choice(NAME_CHARS) for _ in range(rng.randint(1, 12))))
    for text in dict.fromkeys(texts):
        try:
            canonicalize_name(text, validate=True)
            valid = True
        except InvalidName:
            valid = False
        records.append({"input": text, "valid": valid, "normalized": canonicalize_name(text)})
    return records


def write_jsonl(path, records):
    with open(path, "w", encoding="utf-8") as f:
        for record in records:
            f.write(json.dumps(record, ensure_ascii=True, sort_keys=True) + "\n")


def main():
    if len(sys.argv) not in (2, 3, 4):
        sys.exit("usage: gen_corpus.py OUT_DIR [SEED [SCALE]]")
    out_dir = sys.argv[1]
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else SEED
    scale = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    rng.seed(seed)
    os.makedirs(out_dir, exist_ok=True)
    versions = build_versions(28000 * scale)
    specifiers = build_specifiers(3000 * scale, 2000 * scale)
    filters = build_filters(2500 * scale)
    names = build_names(2000 * scale)
    write_jsonl(os.path.join(out_dir, "versions.jsonl"), versions)
    write_jsonl(os.path.join(out_dir, "specifiers.jsonl"), specifiers)
    write_jsonl(os.path.join(out_dir, "filters.jsonl"), filters)
    write_jsonl(os.path.join(out_dir, "names.jsonl"), names)
    pairs = sum(len(r.get("checks", [])) for r in specifiers)
    meta = {
        "packaging_version": packaging.__version__,
        "seed": seed,
        "versions": len(versions),
        "versions_valid": sum(1 for r in versions if r["valid"] and "too_large" not in r),
        "versions_invalid": sum(1 for r in versions if not r["valid"]),
        "versions_too_large": sum(1 for r in versions if "too_large" in r),
        "specifier_records": len(specifiers),
        "specifier_version_pairs": pairs,
        "filters": len(filters),
        "names": len(names),
    }
    with open(os.path.join(out_dir, "pep440_meta.json"), "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=2, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
