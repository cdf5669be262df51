# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Files out of a Debian package, without installing it (dpkg-deb, tar).

    names = members(deb, './usr/lib/debug/boot/vmlinux-')
    paths = extract(deb, names, dst_dir)   # dst_dir/<member path>
"""
import os
import subprocess


class DebError(Exception):
    pass


def members(deb, prefix):
    """The regular files of @deb whose path starts with @prefix."""
    res = subprocess.run(['dpkg-deb', '-c', deb], capture_output=True,
                         text=True, timeout=600)
    if res.returncode:
        raise DebError('dpkg-deb -c %s: %s' % (deb, res.stderr.strip()))
    out = []
    for line in res.stdout.splitlines():
        f = line.split(None, 5)
        if len(f) == 6 and f[0].startswith('-') and f[5].startswith(prefix):
            out.append(f[5])
    return out


def extract(deb, names, dst):
    """@names (members of @deb) into @dst, each at its path there; the
    paths written, in the order of @names."""
    os.makedirs(dst, exist_ok=True)
    # tar reads the archive on stdin, the names from a file
    lst = os.path.join(dst, '.names')
    with open(lst, 'w') as f:
        f.write('\0'.join(names))
    dpkg = subprocess.Popen(['dpkg-deb', '--fsys-tarfile', deb],
                            stdout=subprocess.PIPE)
    tar = subprocess.run(['tar', '-x', '-C', dst, '--null', '-T', lst],
                         stdin=dpkg.stdout, timeout=1800)
    dpkg.stdout.close()
    os.unlink(lst)
    if dpkg.wait(timeout=600) or tar.returncode:
        raise DebError('cannot extract %d files of %s' % (len(names), deb))
    return [os.path.join(dst, n) for n in names]
