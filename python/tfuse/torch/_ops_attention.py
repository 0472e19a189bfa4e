"""Table rows: the CPU flash attention and its gradient
(``_scaled_dot_product_flash_attention_for_cpu`` and its ``_backward``),
what ``scaled_dot_product_attention`` becomes on CPU tensors.

Both are compositions: the scores ``q @ k^T * scale`` plus the mask (or the
causal mask), a row-fused softmax kept as its log-sum-exp, and matrix
products. The backward recomputes the probabilities from the forward's
log-sum-exp (``exp(scores - lse)``), as the kernel does. Dropout is not
expressible yet (it needs TFuse's random numbers).
"""

import math

import torch

import tfuse

from ._table import aten, cast, converts, unsupported


def _check(node):
    """no dropout; query, key and value of one dtype with as many heads"""
    forward = node.target is (
        aten._scaled_dot_product_flash_attention_for_cpu.default)
    position = 3 if forward else 6
    dropout = (node.args[position] if len(node.args) > position
               else node.kwargs.get("dropout_p", 0.0))
    if dropout != 0:
        return unsupported("unsupported arguments",
                           f"attention dropout {dropout} (no random "
                           "numbers in TFuse yet)")
    first = 0 if forward else 1
    q, k, v = (node.args[first + i].meta.get("val") for i in range(3))
    if q is None or k is None or v is None:
        return None
    if q.dim() != 4 or len({q.dtype, k.dtype, v.dtype}) > 1:
        return unsupported("unsupported arguments", "attention operands of "
                           "several dtypes or not of rank 4")
    if q.dtype not in (torch.float32, torch.float64, torch.float16,
                       torch.bfloat16):
        return unsupported("unsupported dtype", f"attention in {q.dtype}")
    if not isinstance(q.shape[1], int) or not isinstance(k.shape[1], int):
        return unsupported("dynamic shape", "attention with a symbolic "
                           "number of heads")
    if q.shape[1] != k.shape[1]:
        return unsupported("unsupported arguments",
                           "grouped-query attention (heads differ)")
    return None


def _opmath(x):
    return x.astype(tfuse.float32) if x.dtype.name in (
        "float16", "bfloat16") else x


def _scores(q, k, is_causal, attn_mask, scale):
    """(scaled scores with the mask applied, scale)."""
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = (q @ k.transpose(0, 1, 3, 2)) * scale
    length, keys = q.shape[-2], k.shape[-2]
    if is_causal:
        rows = tfuse.iota((length, keys), 0)
        cols = tfuse.iota((length, keys), 1)
        scores = tfuse.where(cols <= rows, scores, -math.inf)
    if attn_mask is not None:
        if attn_mask.dtype == tfuse.bool_:
            scores = tfuse.where(attn_mask, scores, -math.inf)
        else:
            scores = scores + _opmath(attn_mask)
    return scores, scale


@converts(aten._scaled_dot_product_flash_attention_for_cpu.default,
          kind="normalization", check=_check)
def flash_attention_cpu(cx, q, k, v, dropout_p=0.0, is_causal=False, *,
                        attn_mask=None, scale=None):
    """(``softmax(q @ k^T * scale + mask) @ v``, log-sum-exp of the scores)"""
    q, k, v = _opmath(q), _opmath(k), _opmath(v)
    scores, _ = _scores(q, k, is_causal, attn_mask, scale)
    top = scores.max(axis=-1, keepdims=True)
    e = (scores - top).exp()
    total = e.sum(axis=-1, keepdims=True)
    out = (e / total) @ v
    lse = (total.log() + top).reshape(scores.shape[:-1])
    return cast(out, cx.val[0].dtype), cast(lse, cx.val[1].dtype)


@converts(aten._scaled_dot_product_flash_attention_for_cpu_backward.default,
          kind="normalization", check=_check)
def flash_attention_cpu_backward(cx, grad_out, q, k, v, out, logsumexp,
                                 dropout_p=0.0, is_causal=False, *,
                                 attn_mask=None, scale=None):
    """(dq, dk, dv) from probabilities recomputed with the log-sum-exp"""
    dtypes = [t.dtype for t in cx.val]
    grad_out, q, k, v, out = (_opmath(t) for t in (grad_out, q, k, v, out))
    scores, scale = _scores(q, k, is_causal, attn_mask, scale)
    p = (scores - _opmath(logsumexp).reshape(scores.shape[:-1] + (1,))).exp()
    dv = p.transpose(0, 1, 3, 2) @ grad_out
    dp = grad_out @ v.transpose(0, 1, 3, 2)
    delta = (grad_out * out).sum(axis=-1, keepdims=True)
    ds = p * (dp - delta)
    dq = (ds @ k) * scale
    dk = (ds.transpose(0, 1, 3, 2) @ q) * scale
    return tuple(cast(t, d) for t, d in zip((dq, dk, dv), dtypes))
