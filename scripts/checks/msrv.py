"""Checks that the workspace's declared rust-version is exactly what its dependencies need.

Reads `cargo metadata` on stdin: the declared version must be at least every dependency's own
`rust-version` (else a user on the declared toolchain cannot build) and equal to the highest of
them (else the declaration claims an older toolchain than the one actually needed).
"""

import json
import sys


def parse(version):
    return tuple(int(part) for part in version.split("."))[:2]


def main():
    metadata = json.load(sys.stdin)
    members = set(metadata["workspace_members"])
    declared = set()
    needed = (0, 0)
    needed_by = []
    for package in metadata["packages"]:
        version = package.get("rust_version")
        if package["id"] in members:
            if version is None:
                sys.exit(f"{package['name']}: no rust-version declared")
            declared.add(parse(version))
        elif version is not None:
            if parse(version) > needed:
                needed, needed_by = parse(version), []
            if parse(version) == needed:
                needed_by.append(f"{package['name']} {package['version']}")
    if len(declared) != 1:
        sys.exit(f"workspace members declare different rust-versions: {sorted(declared)}")
    (declared,) = declared
    shown = ".".join(map(str, needed))
    if declared != needed:
        sys.exit(
            f"declared rust-version {'.'.join(map(str, declared))}, but the dependencies need "
            f"{shown} ({', '.join(needed_by[:4])})"
        )
    print(f"rust-version {shown} is what the dependencies need ({', '.join(needed_by[:3])}, ...)")


main()
