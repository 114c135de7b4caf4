#!/usr/bin/env python3
"""Converts a 2048-byte-sector ISO to a CSO (CISO v1), as maxcso or ciso do, for tests.

Written independently of piney's reader (Python's zlib, not piney-disc) so that a CSO test
checks piney against the format, not against itself. The format (CISO v1, as PSP/PS2 loaders
read it): a 24-byte header ("CISO", header size 0x18, the uncompressed size as u64, the block
size as u32, version 1, the index shift, two reserved bytes), then (blocks + 1) u32 index entries
(the block's position >> shift; bit 31 set = the block is stored uncompressed; the last entry is
the end of the data), then the blocks: raw deflate (no zlib header), or stored when deflate does
not make them smaller.

    tools/make-cso.py IN.iso OUT.cso [--block-size N] [--shift S]
"""
import argparse
import struct
import sys
import zlib


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("iso")
    ap.add_argument("cso")
    ap.add_argument("--block-size", type=int, default=2048)
    ap.add_argument("--shift", type=int, default=0)
    a = ap.parse_args()
    data = open(a.iso, "rb").read()
    bs = a.block_size
    if bs <= 0 or bs % 2048:
        sys.exit("make-cso: the block size must be a multiple of 2048")
    blocks = (len(data) + bs - 1) // bs
    align = 1 << a.shift
    out = bytearray(b"CISO")
    out += struct.pack("<IQIBB2x", 0x18, len(data), bs, 1, a.shift)
    index_at = len(out)
    out += bytes(4 * (blocks + 1))
    index = []
    for i in range(blocks):
        block = data[i * bs:(i + 1) * bs]
        while len(out) % align:
            out.append(0)
        pos = len(out) >> a.shift
        c = zlib.compressobj(9, zlib.DEFLATED, -15)
        packed = c.compress(block) + c.flush()
        if len(packed) >= len(block):
            out += block
            index.append(pos | 0x80000000)
        else:
            out += packed
            index.append(pos)
    while len(out) % align:
        out.append(0)
    index.append(len(out) >> a.shift)
    out[index_at:index_at + 4 * len(index)] = struct.pack("<%dI" % len(index), *index)
    open(a.cso, "wb").write(out)


if __name__ == "__main__":
    main()
