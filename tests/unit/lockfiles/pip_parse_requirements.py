"""Parses a requirements file with pip's own parser and prints what pip understood, as JSON.

Used by the lockfile export tests as the oracle for "pip can install this file".
"""
import json
import sys

from packaging.requirements import Requirement
from pip._internal.network.session import PipSession
from pip._internal.req.constructors import install_req_from_line
from pip._internal.req.req_file import RequirementsFileParser, get_line_parser


def main(path):
    parser = RequirementsFileParser(PipSession(), get_line_parser(None))
    out = {"requirements": [], "extra_index_urls": [], "find_links": []}
    for line in parser.parse(path, constraint=False):
        # pip < 26 marks requirement lines with `is_requirement`; pip 26 leaves `requirement`
        # empty on option lines instead.
        is_requirement = getattr(line, "is_requirement", None)
        if is_requirement is None:
            is_requirement = bool(line.requirement)
        if is_requirement and "://" in line.requirement:
            # A bare URL line: pip names a wheel from its file name.
            req = install_req_from_line(line.requirement)
            out["requirements"].append({
                "name": req.name,
                "url": req.link.url,
                "specifier": str(req.req.specifier) if req.req else None,
                "marker": str(req.markers) if req.markers else None,
                "hashes": sorted((line.opts.hashes or {}).get("sha256", []) if line.opts else []),
            })
        elif is_requirement:
            req = Requirement(line.requirement)
            hashes = (line.opts.hashes or {}).get("sha256", []) if line.opts else []
            out["requirements"].append({
                "name": req.name,
                "specifier": str(req.specifier),
                "marker": str(req.marker) if req.marker else None,
                "hashes": sorted(hashes),
            })
        else:
            out["extra_index_urls"] += line.opts.extra_index_urls or []
            out["find_links"] += line.opts.find_links or []
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1])
