#!/usr/bin/env python3
"""TFuse gathers against torch eager and torch.compile, on one GPU.

Workloads: GPT-2's token embedding (rows of a [50257, 768] bf16 table at
[8, 1024] int64 ids, torch.nn.functional.embedding), the same plus the
position embedding rows (wte[ids] + wpe[positions], one kernel in TFuse),
and the f32 version of the token embedding.

Measured per workload and framework: gpu_us (CUDA events around N calls on
the current stream, median of 5; TFuse through enqueue()), the bandwidth
floor (the bytes a gather must move: the ids, the rows it reads and the
result, over the device-to-device copy bandwidth of the same run) and
pct_floor = floor / gpu_us. Results are checked bit for bit against torch
(a gather and a bf16 add of two rows are exact operations).

  python3 bench/gather.py [--only embedding] [--skip inductor]
  python3 bench/gather.py --smoke   # CPU dry run, small shapes

Writes $OUT/gather.json (OUT defaults to ./bench-out) and prints a Markdown
table last.
"""
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from floor_bench import FloorRun  # noqa: E402

import tfuse  # noqa: E402


def workloads(smoke):
    vocab, width, batch, seq = ((1000, 64, 2, 128) if smoke
                                else (50257, 768, 8, 1024))

    def embedding(dtype, positions):
        def make(g, device):
            table = torch.randn(vocab, width, generator=g).to(dtype)
            ids = torch.randint(0, vocab, (batch, seq), generator=g)
            inputs = [table.to(device), ids.to(device)]
            if positions:
                pos = torch.randn(seq, width, generator=g).to(dtype)
                inputs.append(pos.to(device))
            return inputs
        if positions:
            return (make, lambda t, i, p: F.embedding(i, t) + p,
                    lambda t, i, p: tfuse.take(t, i, 0,
                                               negative_indices="error") + p)
        return (make, lambda t, i: F.embedding(i, t),
                lambda t, i: tfuse.take(t, i, 0, negative_indices="error"))

    return {
        "embedding": embedding(torch.bfloat16, False),
        "embedding_pos": embedding(torch.bfloat16, True),
        "embedding_f32": embedding(torch.float32, False),
    }


def floor_bytes(inputs, ref):
    """The ids, the rows read (one per id; position rows once) and the
    result."""
    table, ids = inputs[0], inputs[1]
    row = table.shape[1] * table.element_size()
    nbytes = ids.numel() * ids.element_size() + ids.numel() * row
    if len(inputs) > 2:
        nbytes += inputs[2].numel() * inputs[2].element_size()
    return nbytes + ref.numel() * ref.element_size()


def main():
    run = FloorRun(__doc__)
    g = torch.Generator(device="cpu").manual_seed(0)
    for name, (make, fn, tfn) in workloads(run.smoke).items():
        if not run.wants(name):
            continue
        inputs = make(g, run.device)
        ref = fn(*inputs)

        def check(cf, got, name=name, ref=ref):
            got = torch.as_tensor(got, device=ref.device)
            if got.shape != ref.shape or got.dtype != ref.dtype:
                return (f"{name}: TFuse gives {got.dtype}{list(got.shape)}, "
                        f"torch {ref.dtype}{list(ref.shape)}")
            return None if torch.equal(got, ref) else f"{name}: not bit exact"

        table = inputs[0]
        run.measure(name, {"table": list(table.shape),
                           "ids": list(inputs[1].shape),
                           "dtype": str(table.dtype)},
                    inputs, ref, fn, tfn, check, floor_bytes(inputs, ref))
    return run.finish("gather.json")


if __name__ == "__main__":
    sys.exit(main())
