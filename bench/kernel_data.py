# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The real kernel the benchmarks serve: Debian's cloud kernel debug package.

The newest linux-image-6.12.*-cloud-amd64-dbg the machine's apt sources
know (SYMPROV_BENCH_PACKAGE names another) is fetched with
`apt-get download` into a cache outside the tree,
SYMPROV_BENCH_CACHE (default $XDG_CACHE_HOME/symprov-bench), and its
vmlinux extracted beside it: DIR/deb/ holds the .deb alone, for
`debuginfod -U`, DIR/vmlinux/ the vmlinux alone, for `debuginfod -F`.
Never in CI: it is about 320 MB to download and 660 MB on disk.
"""
import glob
import os
import re
import shutil
import subprocess

import debfiles
from benchlib import BenchError, log
from elf_fixtures import read_build_id

PACKAGE_RE = r'^linux-image-6\.12\..*-cloud-amd64-dbg$'
VMLINUX_MEMBER = './usr/lib/debug/boot/'


def cache_dir():
    d = os.environ.get('SYMPROV_BENCH_CACHE')
    if not d:
        xdg = os.environ.get('XDG_CACHE_HOME') or os.path.join(
            os.path.expanduser('~'), '.cache')
        d = os.path.join(xdg, 'symprov-bench')
    return os.path.abspath(d)


def _version_key(name):
    return [int(x) for x in re.findall(r'\d+', name)]


def newest_package():
    """The newest 6.12 cloud kernel debug package apt knows of."""
    def search():
        out = subprocess.run(['apt-cache', 'search', '--names-only',
                              PACKAGE_RE], capture_output=True, text=True,
                             timeout=120).stdout
        return [line.split(' - ')[0].strip() for line in out.splitlines()
                if line.strip()]

    names = search()
    if not names and os.geteuid() == 0:
        subprocess.run(['apt-get', 'update'], check=True, timeout=900)
        names = search()
    if not names:
        raise BenchError('no package matches %s in the apt sources (set '
                         'SYMPROV_BENCH_PACKAGE)' % PACKAGE_RE)
    return max(names, key=_version_key)


def _download(package, deb_dir):
    debs = glob.glob(os.path.join(deb_dir, package + '_*.deb'))
    if debs:
        return debs[0]
    if os.environ.get('CI'):
        raise BenchError('not downloading %s in CI' % package)
    tmp = deb_dir + '.part'
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    log('apt-get download %s (about 320 MB) into %s' % (package, deb_dir))
    subprocess.run(['apt-get', 'download', package], cwd=tmp, check=True,
                   timeout=3600)
    debs = glob.glob(os.path.join(tmp, package + '_*.deb'))
    if len(debs) != 1:
        raise BenchError('apt-get download %s gave %s' % (package, debs))
    os.makedirs(deb_dir, exist_ok=True)
    dst = os.path.join(deb_dir, os.path.basename(debs[0]))
    os.replace(debs[0], dst)
    shutil.rmtree(tmp, ignore_errors=True)
    return dst


def _extract_vmlinux(deb, vm_dir):
    want = debfiles.members(deb, VMLINUX_MEMBER + 'vmlinux-')
    if len(want) != 1:
        raise BenchError('%s: expected one %svmlinux-*, found %s'
                         % (deb, VMLINUX_MEMBER, want))
    tmp = vm_dir + '.part'
    shutil.rmtree(tmp, ignore_errors=True)
    log('extracting %s' % want[0])
    path = debfiles.extract(deb, want, tmp)[0]
    os.makedirs(vm_dir, exist_ok=True)
    dst = os.path.join(vm_dir, os.path.basename(want[0]))
    os.replace(path, dst)
    shutil.rmtree(tmp, ignore_errors=True)
    return dst


def prepare():
    """{package, deb, deb_size, vmlinux, size, build_id, cache}."""
    cache = cache_dir()
    package = os.environ.get('SYMPROV_BENCH_PACKAGE') or newest_package()
    deb_dir = os.path.join(cache, 'deb')
    vm_dir = os.path.join(cache, 'vmlinux')
    deb = _download(package, deb_dir)
    for old in os.listdir(deb_dir):  # -U serves this package alone
        if os.path.join(deb_dir, old) != deb:
            os.unlink(os.path.join(deb_dir, old))
    release = package[len('linux-image-'):-len('-dbg')]
    vmlinux = os.path.join(vm_dir, 'vmlinux-' + release)
    if not os.path.exists(vmlinux):
        shutil.rmtree(vm_dir, ignore_errors=True)
        vmlinux = _extract_vmlinux(deb, vm_dir)
    build_id = read_build_id(vmlinux)
    if not build_id:
        raise BenchError('%s has no build ID' % vmlinux)
    return {'package': package, 'deb': deb,
            'deb_size': os.path.getsize(deb), 'vmlinux': vmlinux,
            'size': os.path.getsize(vmlinux), 'build_id': build_id,
            'cache': cache}
