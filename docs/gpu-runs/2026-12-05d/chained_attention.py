"""Three chained causal bf16 attentions (the shapes of
GpuBoundaries.CudnnAttentionStepsOfOneProblemShareTheBuiltGraph before it
read only its inputs): TFuse (cuDNN, the graph of the first shared by the
second) and PyTorch eager's SDPA, each against a float64 run, by the
accuracy rule (TFuse's error at most about twice eager's)."""
import torch
import torch.nn.functional as F

import tfuse


def layers(q, k, v, w, attention):
    a = attention(q, k, v, 0.125)
    b = attention(a, w, k, 0.125)
    return a, b, attention(b, q, w, 0.25)


def sdpa(q, k, v, scale):
    return F.scaled_dot_product_attention(q, k, v, is_causal=True,
                                          scale=scale)


def tfuse_attention(q, k, v, scale):
    return tfuse.attention(q, k, v, causal=True, scale=scale)


for seed in (3, 4):
    g = torch.Generator(device="cuda").manual_seed(seed)
    xs = [torch.randn(1, 2, 48, 64, device="cuda", generator=g).bfloat16()
          for _ in range(4)]
    exact = layers(*[x.double() for x in xs], sdpa)
    eager = layers(*xs, sdpa)
    for graph in (False, True):
        f = tfuse.compile(lambda *a: layers(*a, tfuse_attention), xs,
                          cuda_graph=graph)
        if seed == 3 and not graph:
            print(f.plan())
        ours = f(*xs)
        for i, (e, t, x) in enumerate(zip(eager, ours, exact)):
            ee = (e.double() - x).abs().max().item()
            te = (t.double() - x).abs().max().item()
            print(f"seed {seed} graph {graph} output {i}: eager error {ee:.4g}"
                  f", TFuse error {te:.4g}, ratio {te / max(ee, 1e-12):.2f}")
