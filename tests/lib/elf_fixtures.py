# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Small ELF files with a chosen build ID, made with gcc and ld."""
import os
import subprocess

SOURCE = 'int symprov_fixture(void) { return %d; }\n'


def make_elf(path, build_id, debuginfo=True, seed=0):
    """Link PATH with --build-id=0xBUILD_ID; with debuginfo it carries
    DWARF, so debuginfod serves it as 'debuginfo' as well as 'executable'."""
    src = path + '.c'
    obj = path + '.o'
    with open(src, 'w') as f:
        f.write(SOURCE % seed)
    cmd = ['gcc', '-c', '-O0', src, '-o', obj]
    if debuginfo:
        cmd.insert(1, '-g')
    subprocess.run(cmd, check=True, timeout=60)
    subprocess.run(['ld', '--build-id=0x' + build_id, '-e',
                    'symprov_fixture', '-o', path, obj],
                   check=True, timeout=60)
    os.unlink(src)
    os.unlink(obj)
    return path


def read_build_id(path):
    """The GNU build ID of PATH, as hex, from readelf -n."""
    out = subprocess.run(['readelf', '-n', path], capture_output=True,
                         text=True, timeout=60, check=True).stdout
    for line in out.splitlines():
        if 'Build ID:' in line:
            return line.split('Build ID:')[1].strip()
    return None
