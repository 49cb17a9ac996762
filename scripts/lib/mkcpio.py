#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""mkcpio.py STAGING_DIR OUT.cpio[.gz]

Write STAGING_DIR as a gzipped newc cpio archive for the kernel's
initramfs: every entry owned by root, plus the /dev/console node the kernel
needs to give /init its stdin/stdout (created here, so building the image
needs no root privileges). Compressed with gzip when OUT ends in .gz; the
uncompressed form boots faster on an instrumented kernel under TCG, where
the in-kernel inflate of a few MiB takes over 10 s.
"""
import gzip
import os
import stat
import sys


def header(ino, mode, size, name, nlink=1, rdev=(0, 0)):
    fields = [ino, mode, 0, 0, nlink, 0, size, 0, 0, rdev[0], rdev[1],
              len(name) + 1, 0]
    h = b'070701' + b''.join(b'%08x' % f for f in fields)
    h += name.encode() + b'\0'
    h += b'\0' * (-len(h) % 4)
    return h


def main(src, out):
    chunks = []
    ino = 1

    def add(name, mode, data=b'', rdev=(0, 0)):
        nonlocal ino
        chunks.append(header(ino, mode, len(data), name, rdev=rdev))
        chunks.append(data + b'\0' * (-len(data) % 4))
        ino += 1

    names = set()
    for root, dirs, files in os.walk(src):
        dirs.sort()
        rel = os.path.relpath(root, src)
        if rel != '.':
            add(rel, stat.S_IFDIR | 0o755)
            names.add(rel)
        for f in sorted(files + [d for d in dirs
                                 if os.path.islink(os.path.join(root, d))]):
            path = os.path.join(root, f)
            name = os.path.normpath(os.path.join(rel, f))
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                add(name, stat.S_IFLNK | 0o777, os.readlink(path).encode())
            elif stat.S_ISREG(st.st_mode):
                with open(path, 'rb') as fh:
                    add(name, stat.S_IFREG | (st.st_mode & 0o7777),
                        fh.read())
            names.add(name)
    if 'dev' not in names:
        add('dev', stat.S_IFDIR | 0o755)
    add('dev/console', stat.S_IFCHR | 0o600, rdev=(5, 1))
    chunks.append(header(0, 0, 0, 'TRAILER!!!', nlink=1))
    data = b''.join(chunks)
    data += b'\0' * (-len(data) % 512)
    with open(out + '.tmp', 'wb') as f:
        f.write(gzip.compress(data, compresslevel=6)
                if out.endswith('.gz') else data)
    os.replace(out + '.tmp', out)


if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.stderr.write(__doc__)
        sys.exit(2)
    main(sys.argv[1], sys.argv[2])
