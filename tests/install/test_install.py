#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""make install and what a site engineer does with it.

- `make install DESTDIR=D PREFIX=/usr/local`: every file where it belongs,
  the pkg-config file, man pages that render; `make uninstall` leaves no
  file behind.
- docs/WRITING-A-PROVIDER.md's provider, its code and its build command
  taken from the page, built in a temporary directory against the DESTDIR
  install with exactly `cc -shared -fPIC $(pkg-config --cflags symprov)
  siteindex.c -o libsiteindex.so`, then listed, checked and asked by the
  installed symprov.
- An out-of-tree host: a 30-line C program built with `pkg-config
  --cflags --libs symprov` alone against the DESTDIR install finds a
  build ID through the installed providers.
- Bare provider names found in the installed $(LIBDIR)/symprov, next to
  libsymprov.so.1: by a build whose PREFIX is a temporary directory, and
  (root) by the DESTDIR install itself, its /usr/local bind-mounted over
  /usr/local in a private mount namespace, for symprov and for perf
  (a profile of a kernel that is "not installed", resolved through
  libbuildiddirprov.so byte for byte as with --vmlinux).  The installed
  programs find libsymprov where the dynamic loader looks: here, with
  LD_LIBRARY_PATH, as after an install and ldconfig.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(HERE, '..', 'lib'))

from elf_fixtures import make_elf, make_module  # noqa: E402
from server_testcase import run_main  # noqa: E402

BUILD = os.path.join(REPO, 'build')
ARGS = None  # the command line, from run_main()
TIMEOUT = 600
PREFIX = '/usr/local'
BID_SITE = '5173000000000000000000000000000000000001'
BID_GONE = '5173000000000000000000000000000000000002'
BID_SITE_MODULE = '5173000000000000000000000000000000000004'
PERF_BID = '5173000000000000000000000000000000000003'


def make(*args, **kw):
    """make in the repository, not as a child of the make running us."""
    env = {k: v for k, v in os.environ.items()
           if k not in ('MAKEFLAGS', 'MFLAGS', 'MAKELEVEL', 'MAKEOVERRIDES')}
    env.update(kw.pop('env', {}))
    return subprocess.run(['make', '-s', '-C', REPO] + list(args), env=env,
                          text=True, capture_output=True, timeout=TIMEOUT,
                          **kw)


def plain_env(**extra):
    """No provider list, no LD_LIBRARY_PATH, no debuginfod."""
    env = {k: v for k, v in os.environ.items()
           if k not in ('PERF_SYMBOL_PROVIDERS', 'LD_LIBRARY_PATH',
                        'SYMPROV_BUILDIDDIR_DIRS') and
           not k.startswith('DEBUGINFOD_')}
    env.update(extra)
    return env


def files_under(root):
    out = set()
    for d, _dirs, files in os.walk(root):
        for f in files:
            out.add(os.path.relpath(os.path.join(d, f), root))
    return out


def in_mount_ns(dest, cmd, env, timeout=TIMEOUT, hide=None):
    """CMD with DEST/usr/local over /usr/local (unless DEST is None) and
    an empty directory over HIDE (if given), in a private namespace."""
    script = ('if [ -n "$1" ]; then mount --bind "$1" /usr/local || exit 1; '
              'fi; if [ -n "$2" ]; then mount -t tmpfs none "$2" || exit 1; '
              'fi; shift 2 && exec "$@"')
    return subprocess.run(['unshare', '--mount', '--propagation', 'private',
                           'sh', '-c', script, 'sh',
                           os.path.join(dest, 'usr', 'local') if dest else '',
                           hide or ''] + cmd,
                          env=env, text=True, capture_output=True,
                          timeout=timeout)


def doc_blocks(lang):
    """The ```LANG blocks of docs/WRITING-A-PROVIDER.md, in order."""
    with open(os.path.join(REPO, 'docs', 'WRITING-A-PROVIDER.md')) as f:
        text = f.read()
    return re.findall(r'^```%s\n(.*?)^```$' % lang, text, re.S | re.M)


class InstallTest(unittest.TestCase):
    tmp = None
    dest = None

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix='symprov-install-')
        os.chmod(cls.tmp, 0o755)
        cls.dest = os.path.join(cls.tmp, 'dest')
        res = make('install', 'DESTDIR=' + cls.dest, 'PREFIX=' + PREFIX,
                   'B=' + BUILD)
        if res.returncode:
            raise AssertionError('make install failed:\n' + res.stdout +
                                 res.stderr)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def installed(self, *parts):
        return os.path.join(self.dest, PREFIX.lstrip('/'), *parts)

    def lib_env(self, env=None):
        """ENV (default plain_env()) finding the installed libsymprov."""
        env = dict(env or plain_env())
        env['LD_LIBRARY_PATH'] = self.installed('lib')
        return env

    def symprov(self, *args, env=None, cwd=None):
        return subprocess.run([self.installed('bin', 'symprov')] +
                              list(args), env=self.lib_env(env), cwd=cwd,
                              text=True, capture_output=True,
                              timeout=TIMEOUT)

    def pkg_config(self, *args):
        env = plain_env(
            PKG_CONFIG_PATH=self.installed('lib', 'pkgconfig'),
            PKG_CONFIG_SYSROOT_DIR=self.dest)
        return subprocess.run(['pkg-config'] + list(args) + ['symprov'],
                              env=env, text=True, capture_output=True,
                              timeout=60)

    # -- the files --------------------------------------------------------

    def test_files(self):
        doc = 'share/doc/symprov/'
        want = {'bin/symprov', 'include/symprov.h', 'include/libsymprov.h',
                'lib/libsymprov.so.1.2.0', 'lib/libsymprov.so.1',
                'lib/libsymprov.so',
                'lib/symprov/libdebuginfodprov.so',
                'lib/symprov/libbuildiddirprov.so',
                'lib/pkgconfig/symprov.pc', 'share/man/man1/symprov.1',
                'share/man/man3/libsymprov.3',
                'share/man/man7/symprov-provider.7',
                doc + 'README.md', doc + 'NEWS', doc + 'LICENSE',
                doc + 'PERF.md',
                doc + 'RELIABILITY.md', doc + 'WRITING-A-PROVIDER.md',
                doc + 'examples/example_provider.c'}
        want |= {doc + 'LICENSES/' + n
                 for n in os.listdir(os.path.join(REPO, 'LICENSES'))}
        self.assertEqual(files_under(self.dest),
                         {os.path.join(PREFIX.lstrip('/'), f)
                          for f in want})
        self.assertTrue(os.access(self.installed('bin', 'symprov'),
                                  os.X_OK))
        self.assertEqual(os.readlink(self.installed('lib',
                                                    'libsymprov.so.1')),
                         'libsymprov.so.1.2.0')
        # installed, the command has no build tree's rpath
        res = subprocess.run(['readelf', '-d', self.installed('bin',
                                                              'symprov')],
                             text=True, capture_output=True, timeout=60)
        self.assertIn('[libsymprov.so.1]', res.stdout)
        self.assertNotIn('PATH', res.stdout)
        with open(self.installed('include', 'symprov.h')) as f, \
                open(os.path.join(REPO, 'include', 'symprov.h')) as g:
            self.assertEqual(f.read(), g.read())

    def test_man_pages_render(self):
        for page, words in (('man1/symprov.1', ('symprov check', 'EXIT')),
                            ('man3/libsymprov.3', ('symprov_session_find',
                                                   'LIBSYMPROV_1.0')),
                            ('man7/symprov-provider.7',
                             ('symprov_provider_entry', 'SYMPROV_HAS'))):
            path = self.installed('share', 'man', page)
            with open(path) as f:
                self.assertTrue(f.readline().startswith('.\\" Generated'))
            if shutil.which('man') is None:
                self.skipTest('no man (man-db): the pages not rendered')
            res = subprocess.run(['man', '-l', path],
                                 env=plain_env(MANWIDTH='80',
                                               MANPAGER='cat'),
                                 text=True, capture_output=True, timeout=60)
            self.assertEqual(res.returncode, 0, res.stderr)
            for w in words:
                self.assertIn(w, res.stdout)

    def test_pkg_config(self):
        res = self.pkg_config('--cflags')
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(res.stdout.split(),
                         ['-I' + self.installed('include')])
        self.assertEqual(self.pkg_config('--libs').stdout.split(),
                         ['-L' + self.installed('lib'), '-lsymprov'])
        self.assertEqual(self.pkg_config('--modversion').stdout.strip(),
                         make_version())
        self.assertEqual(self.pkg_config(
            '--variable=providerdir').stdout.strip(),
            self.dest + PREFIX + '/lib/symprov')

    def test_uninstall_leaves_no_file(self):
        dest = os.path.join(self.tmp, 'dest2')
        for target in ('install', 'uninstall'):
            res = make(target, 'DESTDIR=' + dest, 'PREFIX=' + PREFIX,
                       'B=' + BUILD)
            self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(files_under(dest), set())
        self.assertFalse(os.path.exists(os.path.join(
            dest, 'usr/local/lib/symprov')))

    # -- a provider from outside the tree ---------------------------------

    def build_tutorial_provider(self):
        work = os.path.join(self.tmp, 'siteindex')
        os.mkdir(work)
        os.chmod(work, 0o755)
        with open(os.path.join(work, 'siteindex.c'), 'w') as f:
            f.write(''.join(doc_blocks('c')))
        cmds = [ln for b in doc_blocks('sh') for ln in b.splitlines()
                if ln.startswith('cc ')]
        self.assertEqual(cmds, ['cc -shared -fPIC $(pkg-config --cflags '
                                'symprov) siteindex.c -o libsiteindex.so'])
        env = plain_env(PKG_CONFIG_PATH=self.installed('lib', 'pkgconfig'),
                        PKG_CONFIG_SYSROOT_DIR=self.dest)
        res = subprocess.run(['sh', '-c', cmds[0]], cwd=work, env=env,
                             text=True, capture_output=True, timeout=120)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertEqual(res.stderr, '')
        # and it is clean code
        res = subprocess.run(['sh', '-c', cmds[0].replace(
            '-o libsiteindex.so', '-Wall -Wextra -Werror -o /dev/null')],
            cwd=work, env=env, text=True, capture_output=True, timeout=120)
        self.assertEqual(res.returncode, 0, res.stderr)
        return work

    def test_tutorial_provider(self):
        work = self.build_tutorial_provider()
        res = self.symprov('list', '--providers',
                           './libsiteindex.so:libnothere.so', cwd=work)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertRegex(res.stdout.splitlines()[0],
                         r'^siteindex\t1\.0\tABI 1\.\d+\t\./libsiteindex\.so'
                         r"\tkernels and modules listed in the site's index file$")
        res = self.symprov('check', './libsiteindex.so', cwd=work)
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        self.assertIn('conforms: 10 checks, 0 warnings', res.stdout)

        kernel = make_elf(os.path.join(work, 'vmlinux'), BID_SITE)
        module = make_module(os.path.join(work, 'm.ko'), BID_SITE_MODULE)
        index = os.path.join(work, 'index')
        with open(index, 'w') as f:
            f.write('# build ID   file\n%s %s\n%s %s\n%s %s\n' % (
                BID_SITE, kernel, BID_SITE_MODULE, module, BID_GONE,
                os.path.join(work, 'gone')))
        env = plain_env(SITEINDEX_FILE=index)

        def find(bid, *args):
            return self.symprov('find', '--providers', './libsiteindex.so',
                                *(args + (bid,)), env=env, cwd=work)
        res = find(BID_SITE)
        self.assertEqual((res.returncode, res.stdout), (0, kernel + '\n'),
                         res.stderr)
        res = find(BID_SITE_MODULE, '--kind', 'module')
        self.assertEqual((res.returncode, res.stdout), (0, module + '\n'),
                         res.stderr)
        # the host checks the kind: a vmlinux is no module
        res = find(BID_SITE, '--kind', 'module')
        self.assertEqual(res.returncode, 4, res.stderr)
        self.assertIn('not a relocatable object file', res.stderr)
        res = find(BID_GONE)
        self.assertEqual(res.returncode, 4, res.stderr)
        self.assertIn('No such file', res.stderr)
        self.assertEqual(find('ab' * 20).returncode, 2)
        # configured, it still conforms: a miss is "not found"
        res = self.symprov('check', './libsiteindex.so', env=env, cwd=work)
        self.assertIn('conforms: 10 checks, 0 warnings', res.stdout)
        self.assertIn('kernel, a build ID that cannot exist: not found',
                      res.stdout)

    # -- a host from outside the tree -------------------------------------

    def test_out_of_tree_host(self):
        work = os.path.join(self.tmp, 'host')
        os.mkdir(work)
        with open(os.path.join(work, 'host.c'), 'w') as f:
            f.write(HOST_C)
        self.assertLessEqual(HOST_C.count('\n'), 30)
        env = plain_env(PKG_CONFIG_PATH=self.installed('lib', 'pkgconfig'),
                        PKG_CONFIG_SYSROOT_DIR=self.dest)
        res = subprocess.run(['sh', '-c', 'cc -Wall -Werror host.c -o host '
                              '$(pkg-config --cflags --libs symprov)'],
                             cwd=work, env=env, text=True,
                             capture_output=True, timeout=120)
        self.assertEqual(res.returncode, 0, res.stderr)
        tree = os.path.join(work, 'tree')
        os.makedirs(os.path.join(tree, 'boot'))
        vmlinux = make_elf(os.path.join(tree, 'boot', 'vmlinux-site'),
                           BID_SITE)
        env = self.lib_env(plain_env(SYMPROV_BUILDIDDIR_DIRS=tree))
        res = subprocess.run([os.path.join(work, 'host'), BID_SITE],
                             env=env, text=True, capture_output=True,
                             timeout=120)
        self.assertEqual((res.returncode, res.stdout), (0, vmlinux + '\n'),
                         res.stderr)
        # a build ID nobody has: not found, said so
        res = subprocess.run([os.path.join(work, 'host'), BID_GONE],
                             env=env, text=True, capture_output=True,
                             timeout=120)
        self.assertEqual(res.returncode, 1)
        self.assertIn('no provider supplied the vmlinux', res.stderr)

    # -- bare names from $(LIBDIR)/symprov ----------------------------------

    def assert_lists_from(self, res, providerdir):
        self.assertEqual(res.returncode, 0, res.stderr)
        lines = res.stdout.splitlines()
        self.assertEqual(len(lines), 2, res.stdout)
        for line, name in zip(lines, ('buildiddir', 'debuginfod')):
            fields = line.split('\t')
            self.assertEqual(fields[:2] + fields[3:4],
                             [name, make_version(),
                              '%s/lib%sprov.so' % (providerdir, name)])
            self.assertRegex(fields[2], r'^ABI 1\.\d+$')

    def test_bare_name_from_compiled_in_libdir(self):
        # a build of its own, with PREFIX (and so LIBDIR) in a temp dir
        prefix = os.path.join(self.tmp, 'prefix')
        res = make('-j2', 'install', 'PREFIX=' + prefix,
                   'B=' + os.path.join(self.tmp, 'build'))
        self.assertEqual(res.returncode, 0, res.stdout + res.stderr)
        res = subprocess.run(
            [os.path.join(prefix, 'bin', 'symprov'), 'list', '--providers',
             'libbuildiddirprov.so:libdebuginfodprov.so'],
            env=plain_env(LD_LIBRARY_PATH=os.path.join(prefix, 'lib')),
            text=True, capture_output=True, timeout=60)
        self.assert_lists_from(res, os.path.join(prefix, 'lib', 'symprov'))

    def require_root(self):
        if os.geteuid() != 0 or shutil.which('unshare') is None:
            self.fail('CANNOT RUN: needs root and unshare, to bind-mount '
                      'the DESTDIR install over /usr/local privately')

    def test_bare_name_from_default_libdir(self):
        self.require_root()
        res = in_mount_ns(self.dest, [
            '/usr/local/bin/symprov', 'list', '--providers',
            'libbuildiddirprov.so:libdebuginfodprov.so'],
            plain_env(LD_LIBRARY_PATH='/usr/local/lib'))
        self.assert_lists_from(res, '/usr/local/lib/symprov')

    def test_perf_finds_installed_provider(self):
        """perf with the installed libsymprov finds the providers next to
        it, as the symprov command does."""
        self.require_root()
        perf = os.path.abspath(ARGS.perf)
        if not os.access(perf, os.X_OK):
            self.fail('CANNOT RUN: no perf with perf-glue.patch at %s '
                      '(make perf)' % perf)
        work = os.path.join(self.tmp, 'perf')
        tree = os.path.join(work, 'debug')
        home = os.path.join(work, 'home')
        os.makedirs(os.path.join(tree, 'boot'))
        os.makedirs(home)
        moved = os.path.join(work, 'moved.data')
        standin = os.path.join(tree, 'boot', 'vmlinux-standin')
        e2e = os.path.join(REPO, 'tests', 'e2e')
        for cmd in ([os.path.join(e2e, 'make_profile.py'), '--original',
                     os.path.join(work, 'orig.data'), '--moved', moved,
                     '--build-id', PERF_BID, '--duration', '1', '--perf',
                     perf, '--home', home],
                    [os.path.join(e2e, 'make_standin.py'), '--build-id',
                     PERF_BID, '-o', standin,
                     '--workdir', os.path.join(work, 'standin')]):
            res = subprocess.run([sys.executable] + cmd, env=plain_env(),
                                 text=True, capture_output=True,
                                 timeout=TIMEOUT)
            self.assertEqual(res.returncode, 0, res.stderr)
        report = [perf, 'report', '--stdio', '--sort', 'dso,sym', '-i',
                  moved]
        env = plain_env(HOME=home, PERF_PAGER='cat', LC_ALL='C')
        ref = subprocess.run(report + ['--vmlinux=' + standin], env=env,
                             text=True, capture_output=True,
                             timeout=TIMEOUT)
        self.assertEqual(ref.returncode, 0, ref.stderr)
        self.assertRegex(ref.stdout, r'\[k\] [a-z_]')
        env.update(PERF_SYMBOL_PROVIDERS='libbuildiddirprov.so',
                   SYMPROV_BUILDIDDIR_DIRS=tree,
                   LD_LIBRARY_PATH='/usr/local/lib')
        # the perf of `make perf` finds the tree's libsymprov, and the
        # providers next to it, by its rpath: hidden here, so that only
        # the installed ones can answer
        hide = os.path.join(REPO, 'build', 'lib')
        # a libsymprov alone: the bare name is found nowhere...
        alone = os.path.join(work, 'alone')
        os.makedirs(alone)
        shutil.copy2(os.path.join(BUILD, 'lib', 'libsymprov.so.1'), alone)
        res = in_mount_ns(None, report, dict(env, LD_LIBRARY_PATH=alone),
                          hide=hide)
        self.assertIn("symbol provider 'libbuildiddirprov.so' skipped",
                      res.stderr)
        self.assertNotEqual(res.stdout, ref.stdout)
        # ...with it, the kernel resolves through the provider, by the
        # stand-in's build ID note under boot/
        res = in_mount_ns(self.dest, report, env, hide=hide)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertNotIn('skipped', res.stderr)
        self.assertEqual(res.stdout, ref.stdout)


# A host of libsymprov, with the installed buildiddir provider by its bare
# name: what docs/LIBSYMPROV.md shows.
HOST_C = r'''#include <stdio.h>
#include <libsymprov.h>

int main(int argc, char **argv)
{
	struct symprov_session_opts opts = {
		.size = sizeof(opts),
		.host_name = "host",
		.providers = "libbuildiddirprov.so",
	};
	unsigned char id[SYMPROV_BUILD_ID_MAX];
	struct symprov_find_opts req = { .size = sizeof(req), .build_id = id,
					 .kind = SYMPROV_KIND_KERNEL };
	struct symprov_answer ans = { .size = sizeof(ans) };
	struct symprov_session *s = symprov_session_new(&opts);
	const char *why;
	char line[256];
	int len = argc > 1 ? symprov_build_id_parse(argv[1], id, &why) : -1;

	if (!s || len < 0 || symprov_session_load(s) <= 0)
		return 2;
	req.build_id_len = (unsigned int)len;
	if (symprov_session_find(s, &req, &ans) == 0)
		printf("%s\n", ans.path);
	else if (symprov_answer_describe(line, sizeof(line), &req, &ans) > 0)
		fprintf(stderr, "%s\n", line);
	symprov_answer_fini(&ans);
	symprov_session_free(s);
	return ans.status != SYMPROV_FOUND;
}
'''


def make_version():
    with open(os.path.join(REPO, 'Makefile')) as f:
        return re.search(r'^VERSION := (\S+)', f.read(), re.M).group(1)


if __name__ == '__main__':
    sys.exit(run_main('install', sys.modules[__name__], debuginfod=False,
                      options=(('--perf', dict(default=os.path.join(
                          REPO, 'build', 'perf', 'perf'))),)))
