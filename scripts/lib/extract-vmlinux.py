#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""extract-vmlinux.py BZIMAGE OUT: write the ELF vmlinux packed in a bzImage
(xz, gzip, lzma or zstd payload), as the kernel's scripts/extract-vmlinux does."""
import gzip
import lzma
import subprocess
import sys
import zlib


def unzstd(data):
    """zstd has no module in Python's standard library: use zstd(1)."""
    try:
        return subprocess.run(['zstd', '-dcq'], input=data, check=False,
                              stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL).stdout
    except OSError:
        return b''

MAGICS = [
    (b'\xfd7zXZ\x00', lambda d: lzma.LZMADecompressor().decompress(d)),
    (b'\x1f\x8b\x08', lambda d: zlib.decompressobj(31).decompress(d)),
    (b'\x5d\x00\x00', lambda d: lzma.LZMADecompressor(
        format=lzma.FORMAT_ALONE).decompress(d)),
    (b'\x28\xb5\x2f\xfd', unzstd),
]


def main(src, out):
    data = open(src, 'rb').read()
    for magic, unpack in MAGICS:
        pos = data.find(magic)
        while pos >= 0:
            try:
                elf = unpack(data[pos:])
            except (lzma.LZMAError, zlib.error, EOFError, gzip.BadGzipFile):
                elf = b''
            if elf[:4] == b'\x7fELF':
                with open(out + '.tmp', 'wb') as f:
                    f.write(elf)
                import os
                os.replace(out + '.tmp', out)
                return 0
            pos = data.find(magic, pos + 1)
    sys.stderr.write('extract-vmlinux: no ELF payload found in %s\n' % src)
    return 1


if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.stderr.write(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
