#!/usr/bin/env python3
"""Prints the checks of a `bevenv --json doctor` report, one line each: those that are not ok, or
with `--arch`, every check about the driver, the CUDA runtime, the GPUs and their kernels (ok
ones too, so a clean run shows what was checked). Used by the device scripts.
Usage: device_findings.py REPORT.json [--arch]"""
import json
import sys

ARCH_WORDS = ("driver", "arch", "gpu", "cuda", "kernel")


def main() -> int:
    report = json.load(open(sys.argv[1]))
    only_arch = "--arch" in sys.argv[2:]
    for check in report.get("checks", []):
        about_arch = any(word in check["id"] for word in ARCH_WORDS)
        if only_arch and not about_arch:
            continue
        if only_arch or check["severity"] != "ok":
            failure = f" [{check['failure']}]" if check.get("failure") else ""
            print(f"  {check['severity']:<8} {check['id']:<18} {check['title'][:150]}{failure}")
            if check.get("fix") and check["severity"] != "ok":
                print(f"  {'':<8} {'':<18} fix: {check['fix'][:150]}")
    print("  summary:", report.get("summary"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
