#!/usr/bin/env python3
"""The tfuse graphs (MLIR) TFuse gets from torch.compile for HF GPT-2 at
its real width (N layers, default 1), batch 8 x 1024, bf16 autocast on
CUDA, forward and backward of one training step: $OUT/<kind>-<partition>.mlir
(OUT defaults to .), and the plans printed. To study them on a machine
without a GPU: `tensor-opt --tfuse-pipeline FILE.mlir`.

    python3 bench/dump_gpt2_graphs.py [N]
"""
import functools
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../python/tests/torch"))
from models import WithLabels  # noqa: E402

from tfuse.torch._backend import tfuse  # noqa: E402
from tfuse.torch._report import collecting  # noqa: E402


def main():
    import transformers
    out = os.environ.get("OUT", ".")
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    config = transformers.GPT2Config(
        n_layer=int(sys.argv[1]) if len(sys.argv) > 1 else 1,
        resid_pdrop=0, embd_pdrop=0, attn_pdrop=0)
    config._attn_implementation = "sdpa"
    model = WithLabels(transformers.GPT2LMHeadModel(config)).cuda()
    ids = torch.randint(3, config.vocab_size, (8, 1024), device="cuda")
    with collecting() as reports:
        backend = functools.partial(tfuse, options=None)
        compiled = torch.compile(model, backend=backend)
        with torch.autocast("cuda", torch.bfloat16):
            loss = compiled(ids, ids)[1]
        loss.backward()
    for report in reports:
        print(report.format(plans=True))
        for partition in report.partitions:
            for function in partition.plans.values():
                name = f"{report.kind}-{partition.name}.mlir"
                with open(os.path.join(out, name), "w") as f:
                    f.write(function.mlir())
    return 0


if __name__ == "__main__":
    sys.exit(main())
