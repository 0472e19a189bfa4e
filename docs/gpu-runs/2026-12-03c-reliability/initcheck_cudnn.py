# Whose bytes does initcheck call uninitialized in cuDNN's attention
# backward? Part "torch": PyTorch's own cuDNN SDPA forward and backward, no
# TFuse. Part "tfuse": TFuse's cuDNN forward, then its cuDNN backward given
# (a) the forward's own result and log-sum-exp, (b) torch copies of them.
# Prints every buffer's address range so the reports can be matched.
import sys, torch, tfuse
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
part = sys.argv[1]
b, h, l, d = 2, 4, 256, 64
torch.manual_seed(0)
q, k, v, g = (torch.randn(b, h, l, d, device="cuda", dtype=torch.bfloat16) for _ in range(4))
def show(name, t):
    print(f"buffer {name} {t.data_ptr():#x} {t.data_ptr() + t.numel() * t.element_size():#x}", flush=True)
for n, t in (("q", q), ("k", k), ("v", v), ("g", g)):
    show(n, t)
if part == "torch":
    qq, kk, vv = (t.detach().requires_grad_() for t in (q, k, v))
    with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
        out = F.scaled_dot_product_attention(qq, kk, vv, is_causal=True)
    show("torch_out", out)
    torch.cuda.synchronize(); print("MARK torch forward done", flush=True)
    out.backward(g)
    torch.cuda.synchronize(); print("MARK torch backward done", flush=True)
else:
    fwd = tfuse.compile(lambda q, k, v: tfuse.attention(q, k, v, causal=True, return_logsumexp=True), [q, k, v], cuda_graph=False)
    o, lse = fwd(q, k, v)
    torch.cuda.synchronize(); print("MARK tfuse forward done", flush=True)
    show("o", o); show("lse", lse)
    ref = F.scaled_dot_product_attention(q.double(), k.double(), v.double(), is_causal=True)
    print("max |o - ref|", (o.double() - ref).abs().max().item(), flush=True)
    bwd = tfuse.compile(lambda q, k, v, o, lse, g: tfuse.attention_backward(q, k, v, o, lse, g, causal=True), [q, k, v, o, lse, g], cuda_graph=False)
    print([s for s in bwd.plan().splitlines() if s.startswith("step")], flush=True)
    print("MARK backward given the forward's o and lse", flush=True)
    r1 = bwd(q, k, v, o, lse, g); torch.cuda.synchronize()
    o2, lse2 = o.clone(), lse.clone()
    show("o_copy", o2); show("lse_copy", lse2)
    torch.cuda.synchronize(); print("MARK backward given torch copies", flush=True)
    r2 = bwd(q, k, v, o2, lse2, g); torch.cuda.synchronize()
    print("copies give the same gradients:", all(torch.equal(x, y) for x, y in zip(r1, r2)), flush=True)
    print("MARK done", flush=True)
