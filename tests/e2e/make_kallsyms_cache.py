#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Put a kallsyms copy for a build ID into a perf build-id cache.

    make_kallsyms_cache.py --home HOME --build-id ID [--kallsyms FILE]
        [--keep-addresses]

Lays out what `perf record` leaves in the build-id cache for the kernel:

    HOME/.debug/[kernel.kallsyms]/ID/kallsyms
    HOME/.debug/.build-id/ID[:2]/ID[2:] -> ../../[kernel.kallsyms]/ID

By default every address is zeroed, as perf copies /proc/kallsyms on a
machine with kptr_restrict (or as an unprivileged user): the file exists, so
perf 6.12's dso__find_kallsyms() returns it, and dso__load_kallsyms() then
fails (no _text address).  This is the one case where the upstream seed
patch's fallback fires; the symprov hook must fire with and without it.
--keep-addresses copies the addresses as they are (a working cache entry).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2elib import E2EError, KERNEL_DSO, is_hex_build_id, log  # noqa: E402


def write_cache(home, build_id, kallsyms="/proc/kallsyms", zero=True,
                buildid_dir=None):
    """Create the cache entry; returns the kallsyms path written."""
    bdir = buildid_dir or os.path.join(home, ".debug")
    entry = os.path.join(bdir, KERNEL_DSO, build_id)
    os.makedirs(entry, exist_ok=True)
    dst = os.path.join(entry, "kallsyms")
    with open(kallsyms, "r", errors="replace") as f:
        lines = f.read().splitlines()
    out = []
    for line in lines:
        addr, sep, rest = line.partition(" ")
        if zero and sep:
            addr = "0" * len(addr)
        out.append(addr + sep + rest)
    tmp = dst + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(out) + "\n")
    os.replace(tmp, dst)
    linkdir = os.path.join(bdir, ".build-id", build_id[:2])
    os.makedirs(linkdir, exist_ok=True)
    link = os.path.join(linkdir, build_id[2:])
    target = os.path.join("..", "..", KERNEL_DSO, build_id)
    if os.path.islink(link) or os.path.exists(link):
        os.unlink(link)
    os.symlink(target, link)
    return dst


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--home", required=True,
                    help="HOME whose .debug is the build-id cache")
    ap.add_argument("--buildid-dir",
                    help="cache dir if not HOME/.debug (perf buildid.dir)")
    ap.add_argument("--build-id", required=True)
    ap.add_argument("--kallsyms", default="/proc/kallsyms")
    ap.add_argument("--keep-addresses", action="store_true")
    args = ap.parse_args(argv)
    bid = args.build_id.lower()
    if not is_hex_build_id(bid):
        ap.error("--build-id must be 40 hex digits")
    try:
        path = write_cache(args.home, bid, args.kallsyms,
                           not args.keep_addresses, args.buildid_dir)
    except (OSError, E2EError) as e:
        print("make_kallsyms_cache: error: %s" % e, file=sys.stderr)
        return 1
    log("wrote %s (%s addresses)" % (
        path, "real" if args.keep_addresses else "zeroed"))
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
