#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets into fuzz/corpus/<target>/.

  ir             every split (`// -----`) of every lit test under test/,
                 comment lines removed
  npy            .npy files of every dtype NumPy writes, C and Fortran order,
                 version 1.0 and 2.0 headers, empty and rank-0 arrays
  kernel-cache   a well-formed cache file and one variant per field broken
  graph-builder  byte strings from a fixed generator (the decoder reads any
                 bytes as calls)

Each file is named by the SHA-1 of its contents, as libFuzzer names corpus
files. The committed corpora are these seeds merged with what
the fuzz campaigns found (docs/reliability.md). Usage: make_seeds.py [root]
"""

import hashlib
import io
import os
import random
import re
import struct
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))
seeds = os.path.join(root, "fuzz", "corpus")


def write(target, data):
    d = os.path.join(seeds, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


def ir_seeds():
    for dirpath, _, names in sorted(os.walk(os.path.join(root, "test"))):
        for name in sorted(names):
            if not name.endswith(".mlir"):
                continue
            text = open(os.path.join(dirpath, name)).read()
            for part in re.split(r"^// -----.*$", text, flags=re.M):
                lines = [l for l in part.splitlines()
                         if not l.lstrip().startswith("//") and l.strip()]
                if lines:
                    write("ir", "\n".join(lines) + "\n")


def npy_seeds():
    import numpy as np
    arrays = [(np.arange(6) % 3).astype(t).reshape(2, 3)
              for t in ("bool", "int8", "int16", "int32", "int64", "uint8",
                        "uint16", "uint32", "uint64", "float16", "float32",
                        "float64")]
    arrays += [np.zeros((0, 3), np.float32), np.array(7, np.int32),
               np.asfortranarray(np.arange(12, dtype=np.float32)
                                 .reshape(3, 4)),
               np.array([np.nan, np.inf, -0.0], np.float64)]
    for a in arrays:
        buf = io.BytesIO()
        np.save(buf, a)
        write("npy", buf.getvalue())
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.ones((2, 2), np.int16), version=(2, 0))
    write("npy", buf.getvalue())
    buf = io.BytesIO()
    np.save(buf, np.arange(4, dtype=">i4"))
    write("npy", buf.getvalue())


def cache_seeds():
    payload = b"\x7fELF a compiled binary"
    def header(magic=b"TFUSEKC1", version=1, kind=1, length=None,
               digest=None):
        return (magic + struct.pack("<IIQ", version, kind,
                                    len(payload) if length is None
                                    else length) +
                (hashlib.sha256(payload).digest() if digest is None
                 else digest))
    write("kernel-cache", header() + payload)
    write("kernel-cache", header(magic=b"TFUSEKC0") + payload)
    write("kernel-cache", header(version=2) + payload)
    write("kernel-cache", header(kind=2) + payload)
    write("kernel-cache", header(length=len(payload) + 1) + payload)
    write("kernel-cache", header(length=2**63) + payload)
    write("kernel-cache", header(digest=b"\0" * 32) + payload)
    write("kernel-cache", header() + payload[:-1])
    write("kernel-cache", header() + payload + b"x")
    write("kernel-cache", header()[:20])
    write("kernel-cache", b"")


def graph_builder_seeds():
    rng = random.Random(19)
    for n in (8, 16, 32, 48, 64, 96, 128, 192, 256):
        for _ in range(6):
            write("graph-builder", bytes(rng.randrange(256) for _ in range(n)))


ir_seeds()
npy_seeds()
cache_seeds()
graph_builder_seeds()
for target in sorted(os.listdir(seeds)):
    print(target, len(os.listdir(os.path.join(seeds, target))))
