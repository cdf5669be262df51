#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""End-to-end on a profile of another machine: a QEMU guest booting
Debian's real kernel records a storage load in module code; the host
reports that profile through the symbol providers.

    run_guest_e2e.py --kernel-deb IMAGE.deb --dbg-deb DBG.deb
                     [--perf PERF] [--workdir DIR] [--seconds 8]
                     [--filesystems] [--cold-U] [--stock]
                     [--record-arg ARG]...

IMAGE.deb is linux-image-<release>-cloud-amd64(-unsigned) (for 7.x, two
--kernel-deb: linux-binary-<release>-cloud-amd64 and linux-modules-
<release>-cloud-amd64), DBG.deb its linux-image-<release>-cloud-amd64-dbg.
Not in `make check`: both are downloads (350 MB), and the guest takes a
minute (KVM when /dev/kvm answers, TCG otherwise).  Needs root,
qemu-system-x86_64, busybox (busybox-static), kmod, dmsetup, cpio,
debuginfod, and `make` and `make perf`.

The guest is an initramfs: busybox, kmod, dmsetup and this machine's perf
(another perf than the one reporting), the package's modules where
Debian installs them (.ko.xz).  It loads zram, lz4, dm-crypt and
aesni-intel, writes through an aes-xts dm-crypt device onto a zram disk
under `perf record -a`, and reports its own profile with its kallsyms and
modules: the oracle.  Its files come back through a virtio disk.  With
--filesystems it also mounts an xfs and a btrfs (made here: xfsprogs,
btrfs-progs) and creates, syncs and removes small files on both during
the recording: the two largest modules of the package.  Checks:

  guest           the guest's own report names kernel symbols (it files
                  the modules' under [kernel.kallsyms], from /proc/kallsyms)
  --kallsyms      the control: this perf with the guest's kallsyms copy
                  names the modules' samples under their modules
  before          on the host, no provider: every module sample raw
  debuginfod      a debuginfod -F on the -dbg package's vmlinux and .ko
                  files, through libdebuginfodprov.so: every kernel and
                  module line as the guest's own (compare_reports.py,
                  aliases of the guest's kallsyms); what the guest left
                  raw stays the same raw address; where the whole files
                  in perf's build-id cache name a sample otherwise than
                  the guest's kallsyms, as they do; and every line as
                  with the whole files
  package tree    libbuildiddirprov.so on the -dbg package's own layout:
                  the same report as through debuginfod
  cold -U         (--cold-U) a debuginfod -U on the -dbg package itself,
                  as a site serves its packages, cold: the same report as
                  through -F; each file the report needs asked once (one
                  answer per build ID and section, none whole but the
                  modules whose layout needs it); the bytes the server
                  sent, said
  perf cache      `symprov prefetch -i perf.data --perf-cache` from a
                  debuginfod (-F; the cold -U with --cold-U), then this
                  perf with no provider: every kernel and module line as
                  the guest's.  With --stock (a perf without the series:
                  Debian's 6.1, a stock 6.12 or 7.3, recording in the
                  guest and reporting here) the only provider checks,
                  with the next two.
  perf buildid-cache
                  perf's own tools on that cache: each file under its
                  recorded name, as --list names it (perf lists only the
                  entries valid for this machine: never another one's
                  kernel); --purge-all removes them all, and the modules'
                  samples are raw again
  perf cache from a tree
                  the same prefetch through libbuildiddirprov.so on the
                  -dbg package's tree (a site's symbol store): every
                  kernel and module line as the guest's

Ends with "N passed, N failed"; exit 0 when all passed.
"""

import glob
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, '..', 'lib'))
import debfiles  # noqa: E402
from compare_reports import Entry, compare, parse_report  # noqa: E402
from debuginfod_server import DebuginfodServer  # noqa: E402
from elf_fixtures import read_build_id  # noqa: E402
from e2elib import (Checks, E2EError, alias_map, checks_parser,  # noqa: E402
                    clean_env, log, run, run_checks)

MODULES = ('zram', 'lz4', 'dm_crypt', 'aesni_intel', 'virtio_blk')
REPORT = ['report', '--stdio', '--sort', 'dso,sym', '-F',
          'overhead,sample,dso,sym']
TOOLS = ('qemu-system-x86_64', 'busybox', 'kmod', 'dmsetup', 'cpio',
         'debuginfod', 'dpkg-deb')
FS_TOOLS = ('mkfs.xfs', 'mkfs.btrfs')
# the guest's disks after /dev/vda (its files going back): file systems
FILESYSTEMS = ('xfs', 'btrfs')

# The guest's /init: the load, its profile and its own report, then the
# files onto /dev/vda as a tar archive.
INIT = r'''#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/tmp DM_DISABLE_UDEV=1
for m in %(modules)s; do modprobe $m || echo "guest: modprobe $m failed"; done
echo lz4 > /sys/block/zram0/comp_algorithm
echo 1G > /sys/block/zram0/disksize
key=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
dmsetup create c --table "0 2097152 crypt aes-xts-plain64 $key 0 /dev/zram0 0"
for spec in %(filesystems)s; do
    fs=$(echo $spec | cut -d: -f1)
    modprobe $fs || echo "guest: modprobe $fs failed"
    mkdir -p /mnt/$fs
    mount -t $fs $(echo $spec | cut -d: -f2) /mnt/$fs || \
        echo "guest: mount $fs failed"
done
cd /tmp
perf record -e cpu-clock -a -o perf.data %(record_args)s -- sh -c \
    'timeout %(seconds)d /bin/load-crypt & for fs in /mnt/*; do \
     [ -d "$fs" ] && timeout %(seconds)d /bin/load-files $fs & done; wait' \
    > record.txt 2>&1
perf report -i perf.data %(report)s > report.txt 2> report-err.txt
perf buildid-list -i perf.data > buildids.txt 2>&1
cat /proc/kallsyms > kallsyms
cat /proc/modules > modules
uname -r > release
tar cf /dev/vda perf.data report.txt report-err.txt record.txt \
    buildids.txt kallsyms modules release
sync
echo "guest: done"
poweroff -f
'''

# the loads, each until the timeout that runs it kills it
LOAD_CRYPT = r'''#!/bin/busybox sh
while :; do
    dd if=/dev/zero of=/dev/mapper/c bs=1M count=512 oflag=direct 2>/dev/null
done
'''
# metadata work: small files created, synced, removed
LOAD_FILES = r'''#!/bin/busybox sh
while :; do
    mkdir -p $1/d
    for i in $(seq 200); do echo $i > $1/d/f$i; done
    sync
    rm -rf $1/d
done
'''


class Runner(Checks):
    def __init__(self, args):
        super().__init__(args, 'symprov-guest-')

    def preflight(self):
        why = []
        if os.geteuid() != 0:
            why.append('not root')
        for tool in TOOLS + (FS_TOOLS if self.args.filesystems else ()) + (
                ('bsdtar',) if self.args.cold_u else ()):
            if not shutil.which(tool):
                why.append('%s not found in PATH' % tool)
        for deb in self.args.kernel_deb + [self.args.dbg_deb]:
            if not deb or not os.access(deb, os.R_OK):
                why.append('no package %s' % deb)
        if not os.access(self.perf, os.X_OK):
            why.append('no perf at %s (make perf)' % self.perf)
        return why

    # the guest ----------------------------------------------------------
    def copy_program(self, root, prog):
        """@prog and the shared objects it needs, at their paths."""
        prog = os.path.realpath(shutil.which(prog) or prog)
        files = [prog]
        res = run(['ldd', prog], 60, check=False)
        for line in res.stdout.splitlines():
            f = line.split()
            path = f[2] if len(f) > 2 and f[1] == '=>' else f[0]
            if path.startswith('/'):
                files.append(path)
        for f in files:
            dst = root + f
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy(f, dst)
        return prog

    def make_initramfs(self):
        kimg = self.fresh('kimg')
        # 6.12's linux-image-*: /boot/vmlinuz-R, /lib/modules/R; 7.x's
        # linux-binary-* and linux-modules-*: /usr/lib/modules/R/vmlinuz
        for deb in self.args.kernel_deb:
            names = debfiles.members(deb, './')
            debfiles.extract(deb, [n for n in names if n.startswith(
                ('./boot/vmlinuz-', './lib/modules/', './usr/lib/modules/'))],
                kimg)
        found = glob.glob(os.path.join(kimg, 'boot', 'vmlinuz-*')) + \
            glob.glob(os.path.join(kimg, 'usr', 'lib', 'modules', '*',
                                   'vmlinuz'))
        if len(found) != 1:
            raise E2EError('not one kernel in %s: %s' % (
                ', '.join(self.args.kernel_deb), found))
        self.vmlinuz = found[0]
        modules = os.path.join(kimg, 'lib', 'modules')
        if not os.path.isdir(modules):
            modules = os.path.join(kimg, 'usr', 'lib', 'modules')
        self.release = os.listdir(modules)[0]
        root = self.fresh('initramfs')
        for d in ('bin', 'sbin', 'proc', 'sys', 'dev', 'tmp', 'lib'):
            os.makedirs(os.path.join(root, d), exist_ok=True)
        shutil.copytree(modules, os.path.join(root, 'lib', 'modules'))
        run(['depmod', '-b', root, self.release], 300)
        shutil.copy(os.path.realpath(shutil.which('busybox')),
                    os.path.join(root, 'bin', 'busybox'))
        kmod = self.copy_program(root, 'kmod')
        for name in ('modprobe', 'insmod', 'lsmod'):
            os.symlink(kmod, os.path.join(root, 'sbin', name))
        self.copy_program(root, 'dmsetup')
        # the perf that reports here records too (perf 6.1 writes the
        # modules' build IDs only with --record-arg=--buildid-all: its
        # hit marking reads /proc/kcore, which replaces the modules' maps)
        perf = self.copy_program(root, self.perf)
        os.makedirs(os.path.join(root, 'usr', 'bin'), exist_ok=True)
        if perf != '/usr/bin/perf':  # Debian's own is there already
            os.symlink(perf, os.path.join(root, 'usr', 'bin', 'perf'))
        disks = ['%s:/dev/vd%c' % (fs, ord('b') + i)
                 for i, fs in enumerate(self.filesystems)]
        for name, text in (('init', INIT % {
                'modules': ' '.join(MODULES),
                'filesystems': ' '.join(disks),
                'seconds': self.args.seconds,
                'record_args': ' '.join(self.args.record_args),
                'report': ' '.join(REPORT[1:])}),
                ('bin/load-crypt', LOAD_CRYPT),
                ('bin/load-files', LOAD_FILES)):
            with open(os.path.join(root, name), 'w') as f:
                f.write(text)
            os.chmod(os.path.join(root, name), 0o755)
        self.initrd = self.p('initrd.gz')
        with open(self.initrd, 'wb') as out:
            find = subprocess.Popen(['find', '.'], cwd=root,
                                    stdout=subprocess.PIPE)
            cpio = subprocess.Popen(['cpio', '-o', '-H', 'newc', '--quiet'],
                                    cwd=root, stdin=find.stdout,
                                    stdout=subprocess.PIPE)
            gz = subprocess.run(['gzip', '-1'], stdin=cpio.stdout,
                                stdout=out, timeout=600)
            if find.wait() or cpio.wait() or gz.returncode:
                raise E2EError('cannot make the initramfs')
        log('guest: %s, initramfs %.1f MiB' % (
            self.release, os.path.getsize(self.initrd) / 1048576))

    def make_filesystem(self, fs):
        """An empty file system of type @fs in an image: a guest disk."""
        img = self.p('%s.img' % fs)
        with open(img, 'wb') as f:
            f.truncate(512 << 20)
        run(['mkfs.' + fs, '-q', '-f', img], 120)
        return img

    def step_guest(self):
        self.filesystems = FILESYSTEMS if self.args.filesystems else ()
        self.make_initramfs()
        disk = self.p('out.img')
        with open(disk, 'wb') as f:
            f.truncate(256 << 20)
        cmd = ['qemu-system-x86_64', '-m', '2048', '-smp', '2',
               '-nographic', '-no-reboot', '-kernel', self.vmlinuz,
               '-initrd', self.initrd, '-append',
               'console=ttyS0 panic=-1 quiet']
        for img in [disk] + [self.make_filesystem(fs)
                             for fs in self.filesystems]:
            cmd += ['-drive', 'file=%s,if=virtio,format=raw' % img]
        # KVM where it runs this kernel (a nested one may fail to emulate
        # its decompressor's BMI2 instructions), TCG otherwise
        accels = [('KVM', ['-enable-kvm', '-cpu', 'host'])] if os.access(
            '/dev/kvm', os.R_OK | os.W_OK) else []
        accels.append(('TCG', ['-cpu', 'max']))
        for kvm, accel in accels:
            try:
                res = run(cmd + accel, 60 if kvm == 'KVM' else 1800,
                          check=False)
                seen = res.stdout + res.stderr
            except E2EError as e:  # a guest that hangs
                seen = str(e)
            with open(self.p('console-%s.txt' % kvm), 'w') as f:
                f.write(seen)
            if 'guest: done' in seen:
                break
            log('guest: no end with %s: %s' % (kvm, seen.strip()[-300:]))
        else:
            raise E2EError('the guest did not finish: see %s' %
                           self.p('console-TCG.txt'))
        self.g = self.fresh('guest')
        run(['tar', 'xf', disk, '-C', self.g], 120)
        with open(self.p('guest', 'report.txt')) as f:
            self.expected = parse_report(f.read())
        kernel = [e for e in self.expected if e.kernel]
        named = [e for e in kernel if not e.raw]
        if not named:
            raise E2EError('the guest report names no kernel symbol: the '
                           'comparison would say nothing; see %s'
                           % self.p('guest', 'report.txt'))
        log('guest (%s): %.1f%% of the samples in the kernel, %d symbols'
            % (kvm, sum(e.pct for e in kernel), len(named)))

    # the host -----------------------------------------------------------
    def report(self, env, what, extra=()):
        res = run([self.perf] + REPORT + ['-i', self.p('guest', 'perf.data')]
                  + list(extra), 600, env=env, check=False)
        with open(self.p('report-%s.txt' % what), 'w') as f:
            f.write(res.stdout)
        if res.returncode != 0:
            raise E2EError('%s: perf report exit %d: %s' % (
                what, res.returncode, res.stderr[-2000:]))
        return res

    def expect_modules_raw(self, env, what):
        """This perf's report in @env has module lines, every one raw;
        how many."""
        got = parse_report(self.report(env, what).stdout)
        named = [e.line for e in got if e.dso in self.mods and not e.raw]
        raw = [e for e in got if e.dso in self.mods and e.raw]
        if named or not raw:
            raise E2EError('%s: %d module lines named (e.g. %s), %d raw' % (
                what, len(named), named[:1], len(raw)))
        return len(raw)

    def step_before(self):
        raw = self.expect_modules_raw(clean_env(self.fresh('home-before')),
                                      'before')
        log('before: %d module lines, every one raw' % raw)

    @staticmethod
    def kernel_as_one(entries):
        """@entries with every kernel dso called [kernel]: perf reporting
        in the guest itself (6.1 and 6.12 alike) puts the modules'
        symbols under [kernel.kallsyms], from /proc/kallsyms."""
        return [Entry(e.pct, e.nums, '[kernel]' if e.kernel else e.dso,
                      e.lvl, e.sym, e.line) for e in entries]

    def whole_control(self):
        """This perf's report with the package's whole vmlinux and .ko
        files in its build-id cache (`perf buildid-cache -a`), once: where
        it differs from the guest's (the vmlinux's own symbol table is
        not /proc/kallsyms: 7.3.4's sized __x86_indirect_thunk_array over
        the thunks kallsyms names one by one), so may a rebuilt file."""
        if getattr(self, 'whole', None) is None:
            env = clean_env(self.fresh('home-whole'))
            for d, _, files in os.walk(self.dbg_files()):
                for f in files:
                    path = os.path.join(d, f)
                    if not os.path.islink(path):
                        run([self.perf, 'buildid-cache', '-a', path], 600,
                            env=env)
            self.whole = parse_report(self.report(env, 'whole').stdout)
        return self.whole

    def expect_like_guest(self, out, what):
        """The guest's own report, symbol by symbol; and, dso by dso, this
        perf's report of the profile with the guest's kallsyms copy; but
        for the differences the whole files have too, the same."""
        aliases = alias_map(self.p('guest', 'kallsyms'))
        got, whole = parse_report(out), self.whole_control()
        problems = ['as with the whole files: ' + x for x in compare(
            whole, got, aliases, kernel_only=True)]
        shared = 0
        for ref, name in ((self.expected, ''),
                          (self.with_kallsyms, 'as with --kallsyms: ')):
            if not name:
                ref, mine, theirs = (self.kernel_as_one(x)
                                     for x in (ref, got, whole))
            else:
                mine, theirs = got, whole
            excused = set(compare(ref, theirs, aliases, kernel_only=True))
            for x in compare(ref, mine, aliases, kernel_only=True):
                if x in excused:
                    shared += 1
                else:
                    problems.append(name + x)
        if problems:
            raise E2EError('%s: %d differences, e.g. %s' % (
                what, len(problems), problems[:5]))
        if shared:
            log('%s: %d differences from the guest\'s report, each the '
                'whole files\' too' % (what, shared))

    def step_kallsyms(self):
        """The control: this perf with the guest's kallsyms copy names the
        modules' samples under their modules."""
        env = clean_env(self.fresh('home-kallsyms'))
        res = self.report(env, 'kallsyms', ['--kallsyms',
                                            self.p('guest', 'kallsyms')])
        self.with_kallsyms = parse_report(res.stdout)
        mods = {e.dso for e in self.with_kallsyms if e.kernel and
                e.dso != '[kernel.kallsyms]' and not e.raw}
        if not mods:
            raise E2EError('--kallsyms: no module named')
        self.mods = mods
        log('--kallsyms: %.1f%% of the samples in modules (%s)' % (
            sum(e.pct for e in self.with_kallsyms if e.dso in mods),
            ', '.join(sorted(mods))))

    def dbg_files(self):
        """The root of the vmlinux and the .ko files of the modules with
        samples, out of the -dbg package (once)."""
        if not getattr(self, 'dbg', None):
            dbg = self.fresh('dbg')
            want = [n for n in debfiles.members(self.args.dbg_deb,
                                                './usr/lib/debug/')
                    if '/boot/vmlinux-' in n or n.endswith('/vmlinux') or
                    '[%s]' % os.path.basename(n)[:-3].replace('-', '_')
                    in self.mods]
            debfiles.extract(self.args.dbg_deb, want, dbg)
            self.dbg = dbg
        return os.path.join(self.dbg, 'usr', 'lib', 'debug')

    def step_debuginfod(self):
        srv = self.dbg_files()
        cache = self.fresh('cache')
        with DebuginfodServer(srv, log_path=self.p('debuginfod.log')) as s:
            env = clean_env(self.fresh('home-dip'), {
                'DEBUGINFOD_URLS': s.url, 'DEBUGINFOD_CACHE_PATH': cache,
                'PERF_SYMBOL_PROVIDERS': 'libdebuginfodprov.so'})
            res = self.report(env, 'debuginfod')
        self.expect_like_guest(res.stdout, 'through debuginfod')
        self.via_debuginfod = res.stdout
        size = sum(os.path.getsize(os.path.join(d, f))
                   for d, _, fs in os.walk(cache) for f in fs)
        log('debuginfod: every kernel and module line as the guest\'s, '
            '%.1f MiB fetched' % (size / 1048576))

    def step_package_tree(self):
        env = clean_env(self.fresh('home-bdd'), {
            'PERF_SYMBOL_PROVIDERS': 'libbuildiddirprov.so',
            'SYMPROV_BUILDIDDIR_DIRS': os.path.join(self.dbg, 'usr', 'lib',
                                                    'debug')})
        res = self.report(env, 'package-tree')
        self.expect_like_guest(res.stdout, 'package tree')
        if res.stdout != self.via_debuginfod:
            raise E2EError('package tree: not the report through debuginfod')

    def prefetch(self, home, env, providers):
        """symprov prefetch --perf-cache into @home's perf cache through
        @providers: the kernel and every module with samples installed.
        Returns its last line and {build ID: (kind, recorded name)} of
        what it installed."""
        res = run([self.symprov, 'prefetch', '-i',
                   self.p('guest', 'perf.data'), '--perf-cache',
                   '--providers', providers], 900, env=env, check=False)
        if res.returncode not in (0, 2):
            raise E2EError('symprov prefetch --perf-cache: exit %d: %s' % (
                res.returncode, res.stderr[-2000:]))
        said = (res.stderr.strip().splitlines() or [''])[-1]
        got, ids = set(), {}
        for line in res.stdout.splitlines():
            kind, bid, name, where = (line.split('\t') + [''] * 4)[:4]
            if kind in ('kernel', 'module') and where.startswith('/'):
                got.add('[kernel]' if kind == 'kernel' else '[%s]' % (
                    os.path.basename(name).split('.ko')[0].replace('-', '_')))
            if where.startswith('/'):
                ids[bid] = (kind, name)
        missed = sorted((self.mods | {'[kernel]'}) - got)
        if missed:
            raise E2EError('symprov prefetch fetched no file for %s' % missed)
        return said, ids

    def step_perf_cache(self):
        """symprov prefetch --perf-cache from a debuginfod (-F, or a cold
        -U on the package with --cold-U), then this perf, with no
        provider, on its own build-id cache: every kernel and module line
        as the guest's."""
        home = self.fresh('home-perf-cache')
        srv_log = self.p('debuginfod-pc.log')
        with (self.package_server(srv_log) if self.args.cold_u else
              DebuginfodServer(self.dbg_files(), log_path=srv_log)) as s:
            env = clean_env(home, {
                'DEBUGINFOD_URLS': s.url,
                'DEBUGINFOD_CACHE_PATH': self.fresh('cache-pc')})
            said, self.installed = self.prefetch(home, env,
                                                 'libdebuginfodprov.so')
        res = self.report(clean_env(home), 'perf-cache')
        self.expect_like_guest(res.stdout, 'from perf\'s build-id cache')
        self.perf_cache_home = home
        log('perf cache: %s; every kernel and module line as the guest\'s '
            'with no provider' % said)
        if self.args.cold_u:
            log('perf cache: from the cold -U, %s' % self.answers_once(
                srv_log, 'perf cache'))

    def step_perf_cache_tree(self):
        """The same from a site's own tree through libbuildiddirprov.so:
        the -dbg package's files where Debian installs them."""
        home = self.fresh('home-perf-cache-tree')
        env = clean_env(home, {'SYMPROV_BUILDIDDIR_DIRS': self.dbg_files()})
        said, _ = self.prefetch(home, env, 'libbuildiddirprov.so')
        res = self.report(clean_env(home), 'perf-cache-tree')
        self.expect_like_guest(res.stdout, 'from a tree into perf\'s cache')
        log('perf cache from a tree: %s; every kernel and module line as '
            'the guest\'s' % said)

    def buildid_cache(self, home, *args):
        res = run([self.perf, 'buildid-cache'] + list(args), 300,
                  env=clean_env(home), check=False)
        if res.returncode:
            raise E2EError('perf buildid-cache %s: exit %d: %s' % (
                ' '.join(args), res.returncode, res.stderr[-1000:]))
        return res.stdout

    def step_cache_tools(self):
        """perf's own tools on the cache prefetch filled: each file under
        the name perf's --list gives it (the recorded one); --purge-all
        removes them all, and the modules' samples are raw again.  (perf's
        --list itself shows only the entries whose file at that name here
        has the same build ID: never a guest's kernel or modules.)"""
        home = self.perf_cache_home
        top = os.path.join(home, '.debug')
        for bid, (kind, name) in sorted(self.installed.items()):
            link = os.path.join(top, '.build-id', bid[:2], bid[2:])
            # as build_id_cache__origname() reads it
            origin = os.readlink(link)[len('../..'):-len('/' + bid)]
            want = name if name.startswith('[') else os.path.abspath(name)
            if origin.lstrip('/') != want.lstrip('/'):
                raise E2EError('%s %s: under %s, not its recorded name %s' % (
                    kind, bid, origin, want))
        listed = [line for line in
                  self.buildid_cache(home, '--list').splitlines() if line]
        self.buildid_cache(home, '--purge-all')
        # anything but a directory: a file, or a link, broken or not
        left = [p for d, ds, fs in os.walk(top)
                for p in (os.path.join(d, f) for f in fs + ds)
                if os.path.islink(p) or not os.path.isdir(p)]
        if left:
            raise E2EError('--purge-all left %d files (e.g. %s)' % (
                len(left), left[:3]))
        self.expect_modules_raw(clean_env(home), 'purged')
        log('perf buildid-cache: the %d files under their recorded names '
            '(--list, which shows only what is valid for this machine, '
            'listed %d); --purge-all removed every one' % (
                len(self.installed), len(listed)))

    def package_server(self, log_path):
        """A cold debuginfod -U on the -dbg package itself."""
        root = self.fresh('srv-deb')
        deb = os.path.abspath(self.args.dbg_deb)
        os.symlink(deb, os.path.join(root, os.path.basename(deb)))
        # --fdcache-mintmp=0: a server keeps the members it extracted even
        # where its tmpdir is under 25 % free, as a site sizes it to
        return DebuginfodServer(root, extra_args=['-U', '-L',
                                                  '--fdcache-mintmp=0'],
                                index_timeout=900, log_path=log_path)

    def step_cold_u(self):
        """The report through a cold debuginfod -U on the package itself:
        the same as through -F, each answer sent once."""
        srv_log = self.p('debuginfod-U.log')
        with self.package_server(srv_log) as s:
            env = clean_env(self.fresh('home-U'), {
                'DEBUGINFOD_URLS': s.url,
                'DEBUGINFOD_CACHE_PATH': self.fresh('cache-U'),
                'PERF_SYMBOL_PROVIDERS': 'libdebuginfodprov.so'})
            t0 = time.monotonic()
            res = self.report(env, 'cold-U')
            took = time.monotonic() - t0
        if res.stdout != self.via_debuginfod:
            raise E2EError('cold -U: not the report through -F (see %s)'
                           % self.p('report-cold-U.txt'))
        log('cold -U: the report as through -F in %.0f s; %s' % (
            took, self.answers_once(srv_log, 'cold -U')))

    def answers_once(self, srv_log, what):
        """What the server's log @srv_log says it sent: each answer once,
        the kernel never whole; said in a few words."""
        answers = {}
        with open(srv_log, errors='replace') as f:
            for m in re.finditer(r'GET (/buildid/\S+) 200 (\d+)', f.read()):
                answers.setdefault(m.group(1), []).append(int(m.group(2)))
        twice = sorted(a for a, sizes in answers.items() if len(sizes) > 1)
        if twice:
            raise E2EError('%s: sent more than once: %s' % (what, twice))
        names = self.dbg_names()
        whole = sorted(names.get(a.split('/')[2], a) for a in answers
                       if a.endswith(('/debuginfo', '/executable')))
        if any(w.startswith('vmlinux') for w in whole):
            raise E2EError('%s: the kernel was sent whole' % what)
        sent = sum(sizes[0] for sizes in answers.values())
        return '%d answers, each once, %.1f MB sent (%d files whole: %s)' % (
            len(answers), sent / 1e6, len(whole), ', '.join(whole) or 'none')

    def dbg_names(self):
        """{build ID: file name} of the -dbg package's files extracted."""
        names = {}
        for d, _, files in os.walk(self.dbg_files()):
            for f in files:
                names[read_build_id(os.path.join(d, f))] = f
        return names

    def run(self):
        if self.cannot_start('guest e2e'):
            return 2
        if self.check('guest', self.step_guest) and \
                self.check('--kallsyms', self.step_kallsyms):
            self.check('before', self.step_before)
            # a perf without the series reads perf's build-id cache only
            if not self.args.stock and \
                    self.check('debuginfod', self.step_debuginfod):
                self.check('package tree', self.step_package_tree)
                if self.args.cold_u:
                    self.check('cold -U', self.step_cold_u)
            if self.check('perf cache', self.step_perf_cache):
                self.check('perf buildid-cache', self.step_cache_tools)
            self.check('perf cache from a tree', self.step_perf_cache_tree)
        return self.finish()


def main(argv=None):
    ap = checks_parser(__doc__)
    ap.add_argument('--kernel-deb', required=True, action='append',
                    help='linux-image-<release>-cloud-amd64(-unsigned); '
                    'for 7.x, linux-binary-<release>-cloud-amd64 and '
                    'again linux-modules-<release>-cloud-amd64')
    ap.add_argument('--dbg-deb', required=True,
                    help='linux-image-<release>-cloud-amd64-dbg')
    ap.add_argument('--seconds', type=int, default=8)
    ap.add_argument('--record-arg', dest='record_args', action='append',
                    default=[], metavar='ARG',
                    help='one more argument of the guest\'s perf record '
                    '(repeatable), e.g. --buildid-all for perf 6.1')
    ap.add_argument('--filesystems', action='store_true',
                    help='an xfs and a btrfs under load in the guest too')
    ap.add_argument('--stock', action='store_true',
                    help='PERF has no series: only its build-id cache, '
                    'filled by symprov prefetch --perf-cache')
    ap.add_argument('--cold-U', dest='cold_u', action='store_true',
                    help='report through a cold debuginfod -U on the '
                    '-dbg package too')
    return run_checks(Runner, ap.parse_args(argv), 'guest e2e')


if __name__ == '__main__':
    sys.exit(main())
