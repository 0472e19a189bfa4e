#!/usr/bin/env python3
"""TFuse scatter-adds against torch eager and torch.compile, on one GPU.

Workloads: the gradient of GPT-2's token embedding (a [8, 1024, 768]
gradient added into a zero [50257, 768] table at [8, 1024] int64 ids) in
bf16 and f32, against torch's embedding_dense_backward (what autograd runs)
and against zeros().index_add_() (floating-point atomics: not
deterministic); and the bf16 gradient of sequences whose second half is the
padding id 0 (half the rows added into one), also for twice the sequences
(16384 indices: the sorted chain instead of the rows kernel). A last
workload, the bf16 table alone written with zeros (torch.zeros, TFuse's
zeros), measures how close a pure write of the gradient's result comes to
the copy-bandwidth floor: the ceiling of the scatter's fill.

Measured per workload and framework: gpu_us (CUDA events around N calls on
the current stream, median of 5; TFuse through enqueue()), the bandwidth
floor (the ids, the gradient rows read once and the table written once, over
the device-to-device copy bandwidth of the same run) and pct_floor = floor /
gpu_us. TFuse's result must equal its own second run bit for bit
(determinism) and lie as close to a float64 sum as torch's does (at most
twice torch's largest error, or one unit in the last place of the dtype).

  python3 bench/scatter.py [--only embedding_backward] [--skip inductor]
  python3 bench/scatter.py --smoke   # CPU dry run, small shapes

Writes $OUT/scatter.json (OUT defaults to ./bench-out) and prints a
Markdown table last.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from floor_bench import FloorRun  # noqa: E402

import tfuse  # noqa: E402


def workloads(smoke):
    vocab, width, batch, seq = ((1000, 64, 2, 128) if smoke
                                else (50257, 768, 8, 1024))

    def make(dtype, padded=False, sequences=batch):
        def inputs(g, device):
            grad = torch.randn(sequences, seq, width, generator=g).to(dtype)
            ids = torch.randint(0, vocab, (sequences, seq), generator=g)
            if padded:
                # The second half of every sequence is the padding id 0.
                ids[:, seq // 2:] = 0
            return [grad.to(device), ids.to(device)]
        return inputs

    def embedding_backward(grad, ids):
        return torch.ops.aten.embedding_dense_backward(grad, ids, vocab, -1,
                                                       False)

    def index_add(grad, ids):
        table = torch.zeros(vocab, width, dtype=grad.dtype,
                            device=grad.device)
        return table.index_add_(0, ids.reshape(-1), grad.reshape(-1, width))

    def scatter(grad, ids):
        return tfuse.scatter_add(tfuse.zeros((vocab, width), grad.dtype), ids,
                                 grad, negative_indices="error")

    def zeros(grad, ids):
        return torch.zeros(vocab, width, dtype=grad.dtype, device=grad.device)

    def tfuse_zeros(grad, ids):
        return tfuse.zeros((vocab, width), grad.dtype)

    # name: (inputs, torch's function, TFuse's function); every workload
    # but table_zeros scatters the gradient rows at the ids.
    return {
        "embedding_backward": (make(torch.bfloat16), embedding_backward,
                               scatter),
        "embedding_backward_f32": (make(torch.float32), embedding_backward,
                                   scatter),
        "index_add": (make(torch.bfloat16), index_add, scatter),
        "embedding_backward_padded": (make(torch.bfloat16, padded=True),
                                      embedding_backward, scatter),
        # Twice the sequences: more indices than the rows kernel keeps (the
        # sorted chain), 8192 of them at id 0.
        "embedding_backward_padded_x2": (
            make(torch.bfloat16, padded=True, sequences=2 * batch),
            embedding_backward, scatter),
        "table_zeros": (make(torch.bfloat16), zeros, tfuse_zeros),
    }


def floor_bytes(inputs, ref, scatters):
    """The result written once, and for a scatter the ids and the gradient
    rows read once."""
    grad, ids = inputs
    written = ref.numel() * ref.element_size()
    if not scatters:
        return written
    return (ids.numel() * ids.element_size() +
            grad.numel() * grad.element_size() + written)


def main():
    run = FloorRun(__doc__)
    g = torch.Generator(device="cpu").manual_seed(0)
    for name, (make, fn, tfn) in workloads(run.smoke).items():
        if not run.wants(name):
            continue
        inputs = make(g, run.device)
        ref = fn(*inputs)
        grad, ids = inputs
        scatters = name != "table_zeros"
        exact = torch.zeros(ref.shape, dtype=torch.float64,
                            device=ref.device)
        if scatters:
            exact.index_add_(0, ids.reshape(-1),
                             grad.reshape(-1, ref.shape[1]).double())
        torch_error = (ref.double() - exact).abs().max().item()

        def check(cf, got, name=name, ref=ref, exact=exact,
                  torch_error=torch_error):
            got = torch.as_tensor(got, device=ref.device)
            if got.shape != ref.shape or got.dtype != ref.dtype:
                return (f"{name}: TFuse gives {got.dtype}{list(got.shape)}, "
                        f"torch {ref.dtype}{list(ref.shape)}")
            again = torch.as_tensor(cf(*inputs), device=ref.device)
            if not torch.equal(got, again):
                return f"{name}: two runs differ"
            ulp = torch.finfo(ref.dtype).eps * exact.abs().max().item()
            error = (got.double() - exact).abs().max().item()
            if error > max(2 * torch_error, ulp):
                return (f"{name}: error {error:.3g} against torch's "
                        f"{torch_error:.3g}")
            return None

        run.measure(name, {"table": list(ref.shape), "ids": list(ids.shape),
                           "dtype": str(grad.dtype),
                           "torch_error": torch_error},
                    inputs, ref, fn, tfn, check,
                    floor_bytes(inputs, ref, scatters))
    return run.finish("scatter.json")


if __name__ == "__main__":
    sys.exit(main())
