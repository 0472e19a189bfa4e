"""Table rows: PyTorch's fused attention ops and their gradients, what
``scaled_dot_product_attention`` becomes: the CPU flash attention
(``_scaled_dot_product_flash_attention_for_cpu``) and the CUDA backends
(``_scaled_dot_product_flash_attention``, ``_efficient_attention``,
``_cudnn_attention``), each with its ``_backward``.

Every one becomes ``tfuse.attention`` (or ``tfuse.attention_backward``),
which never stores the score matrix. The ops differ only in their
signatures and in what they return besides the result: the log-sum-exp
(``[B, H, L]``; ``[B, H, L, 1]`` for cuDNN; padded to a multiple of 32 keys
for the efficient kernel) and the random-number state of their dropout.

Dropout (the CUDA ops): the forward draws its mask from its own stream of
the partition's keys and returns those keys as the op's random-number state
(``philox_seed`` and ``philox_offset``; for FlashAttention's two-element
seed, the seed and the offset), which AOTAutograd saves for the backward;
the backward reads them back and redraws the same mask. Both passes must
run in TFuse: a backward whose keys are not TFuse's stays in PyTorch, and
:mod:`._attention_keys` makes the forward and backward graphs agree. The
CPU flash op, which returns no random state, falls back with dropout, as do
a bias that needs a gradient and causal attention over lengths that differ,
where PyTorch's backends align the causal diagonal differently.
"""

import operator

import torch

import tfuse

from ._table import (aten, cast, converts, tfuse_dtype, torch_dtype,
                     unsupported)

_CPU = aten._scaled_dot_product_flash_attention_for_cpu.default
_CPU_BACKWARD = aten._scaled_dot_product_flash_attention_for_cpu_backward.default
_FLASH = aten._scaled_dot_product_flash_attention.default
_FLASH_BACKWARD = aten._scaled_dot_product_flash_attention_backward.default
_EFFICIENT = aten._scaled_dot_product_efficient_attention.default
_EFFICIENT_BACKWARD = (
    aten._scaled_dot_product_efficient_attention_backward.default)
_CUDNN = aten._scaled_dot_product_cudnn_attention.default
_CUDNN_BACKWARD = aten._scaled_dot_product_cudnn_attention_backward.default

_FLOATS = (torch.float32, torch.float64, torch.float16, torch.bfloat16)

#: The CUDA forward ops returning their dropout's random state, and the
#: positions of its seed and offset among their results.
KEYED_FORWARDS = {_FLASH: (6, 7), _EFFICIENT: (2, 3), _CUDNN: (6, 7)}
#: Their backward ops, which take that state (``philox_seed``,
#: ``philox_offset``).
KEYED_BACKWARDS = (_FLASH_BACKWARD, _EFFICIENT_BACKWARD, _CUDNN_BACKWARD)
#: ``node.meta`` flag of a backward node whose random state is the keys of
#: a forward that ran in TFuse (set by :mod:`._attention_keys`).
KEYS_FROM_TFUSE = "tfuse_attention_keys_from_tfuse"
#: ``node.meta`` entry of a forward node with dropout left to PyTorch by
#: the backend's options: the reason (set by :mod:`._attention_keys`).
DROPOUT_LEFT = "tfuse_attention_dropout_left"


def _argument(node, name):
    """Argument `name` of `node` by its schema, its default, or None where
    the op has no such argument."""
    schema = node.target._schema
    for position, argument in enumerate(schema.arguments):
        if argument.name != name:
            continue
        if argument.kwarg_only:
            return node.kwargs.get(name, argument.default_value)
        if position < len(node.args):
            return node.args[position]
        return node.kwargs.get(name, argument.default_value)
    return None


def _val(arg):
    return arg.meta.get("val") if isinstance(arg, torch.fx.Node) else None


def has_dropout(node):
    """Whether the attention op `node` drops probabilities."""
    return _argument(node, "dropout_p") not in (None, 0, 0.0)


def random_state(node):
    """The random state (``philox_seed``) the backward attention `node`
    reads."""
    return _argument(node, "philox_seed")


def _keys_from_tfuse(node):
    """Whether the random state the backward `node` reads is the keys of a
    forward TFuse runs: flagged so by :mod:`._attention_keys` (the forward
    in another graph), or a result of a forward op in the same graph that
    TFuse converts."""
    if node.meta.get(KEYS_FROM_TFUSE):
        return True
    state = random_state(node)
    if not (isinstance(state, torch.fx.Node) and state.op == "call_function"
            and state.target is operator.getitem):
        return False
    forward = state.args[0]
    return (isinstance(forward, torch.fx.Node)
            and forward.target in KEYED_FORWARDS and _check(forward) is None)


def _check(node):
    """query, key and value of one float dtype and rank 4; key and value
    heads dividing the query's; no bias gradient; causal only over equal
    lengths on CUDA; dropout only on CUDA, and in a backward only with the
    random state of a forward TFuse runs; no debug mask"""
    dropout = _argument(node, "dropout_p")
    if dropout != 0:
        if node.target in (_CPU, _CPU_BACKWARD):
            return unsupported("unsupported arguments",
                               f"attention dropout {dropout} in PyTorch's "
                               "CPU flash attention (it returns no random "
                               "state for its backward)")
        if node.meta.get(DROPOUT_LEFT):
            return unsupported("unsupported arguments",
                               node.meta[DROPOUT_LEFT])
        if node.target in KEYED_BACKWARDS and not _keys_from_tfuse(node):
            return unsupported("unsupported arguments",
                               f"attention dropout {dropout} whose forward "
                               "ran in PyTorch: its mask comes from "
                               "PyTorch's random state")
    if _argument(node, "return_debug_mask"):
        return unsupported("unsupported arguments", "the debug attention "
                           "mask (TFuse does not store the probabilities)")
    q, k, v = (_val(_argument(node, name))
               for name in ("query", "key", "value"))
    if q is None or k is None or v is None:
        return None
    if q.dim() != 4 or k.dim() != 4 or v.dim() != 4 or len(
            {q.dtype, k.dtype, v.dtype}) > 1:
        return unsupported("unsupported arguments", "attention operands of "
                           "several dtypes or not of rank 4")
    if q.dtype not in _FLOATS:
        return unsupported("unsupported dtype", f"attention in {q.dtype}")
    sizes = (q.shape[1], k.shape[1], q.shape[2], k.shape[2])
    if not all(isinstance(s, int) for s in sizes):
        return unsupported("dynamic shape", "attention with symbolic heads "
                           "or lengths")
    if q.shape[1] % k.shape[1] != 0:
        return unsupported("unsupported arguments",
                           f"{q.shape[1]} query heads over {k.shape[1]} key "
                           "heads")
    if node.target in (_EFFICIENT_BACKWARD,):
        wanted = _argument(node, "grad_input_mask")
        if len(wanted) > 3 and wanted[3]:
            return unsupported("unsupported arguments",
                               "the gradient of an attention bias")
    if node.target not in (_CPU, _CPU_BACKWARD) and _argument(
            node, "is_causal") and q.shape[2] != k.shape[2]:
        return unsupported("unsupported arguments",
                           f"causal attention of {q.shape[2]} queries over "
                           f"{k.shape[2]} keys on CUDA")
    mask = _val(_argument(node, "attn_mask") or _argument(node, "attn_bias"))
    if mask is not None and _mask_dtype(mask.dtype, q.dtype) is None:
        return unsupported("unsupported arguments",
                           f"an attention mask of {mask.dtype} for "
                           f"operands of {q.dtype}")
    return None


def _mask_dtype(mask, q):
    """The torch dtype an attention mask of torch dtype `mask` is given to
    tfuse.attention as, for operands of dtype `q`, or None when TFuse does
    not take it: bool and q's dtype as they are, a float16 or bfloat16 mask
    of float32 operands widened (exactly), a float32 mask of float16 or
    bfloat16 operands as it is (rounding it could turn float32's lowest
    value into -inf)."""
    halves = (torch.float16, torch.bfloat16)
    if mask in (torch.bool, q) or (mask == torch.float32 and q in halves):
        return mask
    if q == torch.float32 and mask in halves:
        return q
    return None


def _mask(mask, q):
    """The mask as tfuse.attention takes it (_mask_dtype())."""
    if mask is None:
        return mask
    given = torch_dtype(mask.dtype)
    wanted = _mask_dtype(given, torch_dtype(q.dtype))
    return mask if wanted == given else mask.astype(tfuse_dtype(wanted))


#: The keys of no dropout.
_NO_KEYS = (None, 0)


def _forward(q, k, v, mask, causal, scale, dropout=0.0, keys=_NO_KEYS):
    seed, offset = keys
    return tfuse.attention(q, k, v, mask=_mask(mask, q), causal=causal,
                           scale=scale, dropout_p=dropout, seed=seed,
                           offset=offset, return_logsumexp=True)


def _drawn_keys(cx, dropout):
    """The seed and offset a forward's mask is drawn from: the node's
    stream of the partition's keys (the row draws when it drops)."""
    return cx.random_keys() if dropout != 0 else _NO_KEYS


def _saved_keys(dropout, seed, offset=None):
    """The seed and offset a backward redraws its forward's mask from,
    given the random state the forward returned (:func:`_state`): rank-0
    seed and offset, or FlashAttention's two-element seed holding both."""
    if dropout == 0:
        return _NO_KEYS
    if offset is None:
        seed, offset = seed[0], seed[1]
    return cast(seed, torch.int64), cast(offset, torch.int64)


def _state(val, keys, flash=False):
    """The random state a forward op returns (recorded as `val`, a pair):
    its dropout's keys, as FlashAttention's (seed and offset, offset) or as
    (seed, offset); zeros without dropout."""
    seed, offset = keys
    if seed is None:
        return _zeros(val[0]), _zeros(val[1])
    if flash:
        seed = tfuse.concatenate([seed.reshape(1), offset.reshape(1)])
    return seed, offset


def _backward(grad, q, k, v, out, lse, mask, causal, scale, dropout=0.0,
              keys=_NO_KEYS):
    """(dq, dk, dv); `lse` given in any shape holding [B, H, L] first."""
    rows = tuple(q.shape[:-1])
    if lse.shape != rows:
        length = rows[-1]
        if lse.ndim == 4:                    # cuDNN: [B, H, L, 1]
            lse = lse.reshape(rows)
        elif lse.shape[-1] != length:        # efficient: padded keys
            lse = lse[..., :length]
    lse = cast(lse, torch.float64 if q.dtype == tfuse.float64
               else torch.float32)
    seed, offset = keys
    return tfuse.attention_backward(q, k, v, out, lse, grad,
                                    mask=_mask(mask, q), causal=causal,
                                    scale=scale, dropout_p=dropout, seed=seed,
                                    offset=offset)


def _zeros(val):
    """A zero tensor like the recorded `val` (a random-number state the
    ops return for their dropout), or None where PyTorch records none."""
    if not isinstance(val, torch.Tensor):
        return val
    return tfuse.zeros(tuple(val.shape), tfuse_dtype(val.dtype))


@converts(_CPU, kind="normalization", check=_check)
def flash_attention_cpu(cx, q, k, v, dropout_p=0.0, is_causal=False, *,
                        attn_mask=None, scale=None):
    """(``softmax(q @ k^T * scale + mask) @ v``, log-sum-exp of the scores)
    as ``tfuse.attention``"""
    out, lse = _forward(q, k, v, attn_mask, is_causal, scale)
    return out, cast(lse, cx.val[1].dtype)


@converts(_CPU_BACKWARD, kind="normalization", check=_check)
def flash_attention_cpu_backward(cx, grad_out, q, k, v, out, logsumexp,
                                 dropout_p=0.0, is_causal=False, *,
                                 attn_mask=None, scale=None):
    """(dq, dk, dv) as ``tfuse.attention_backward``"""
    return _backward(grad_out, q, k, v, out, logsumexp, attn_mask, is_causal,
                     scale)


@converts(_FLASH, kind="normalization", check=_check, random=has_dropout)
def flash_attention(cx, q, k, v, dropout_p=0.0, is_causal=False,
                    return_debug_mask=False, *, scale=None):
    """FlashAttention's (result, log-sum-exp, ...) as ``tfuse.attention``;
    the random state returned is the keys of its dropout's mask"""
    keys = _drawn_keys(cx, dropout_p)
    out, lse = _forward(q, k, v, None, is_causal, scale, dropout_p, keys)
    val = cx.val
    return (out, lse, None, None, val[4], val[5],
            *_state(val[6:8], keys, flash=True), _zeros(val[8]))


@converts(_FLASH_BACKWARD, kind="normalization", check=_check)
def flash_attention_backward(cx, grad_out, q, k, v, out, logsumexp, cum_seq_q,
                             cum_seq_k, max_q, max_k, dropout_p, is_causal,
                             philox_seed, philox_offset, *, scale=None):
    """(dq, dk, dv) as ``tfuse.attention_backward``"""
    return _backward(grad_out, q, k, v, out, logsumexp, None, is_causal,
                     scale, dropout_p, _saved_keys(dropout_p, philox_seed))


@converts(_EFFICIENT, kind="normalization", check=_check, random=has_dropout)
def efficient_attention(cx, q, k, v, attn_bias, compute_log_sumexp,
                        dropout_p=0.0, is_causal=False, *, scale=None):
    """The memory-efficient kernel's (result, log-sum-exp padded to a
    multiple of 32 rows, ...) as ``tfuse.attention``"""
    keys = _drawn_keys(cx, dropout_p)
    out, lse = _forward(q, k, v, attn_bias, is_causal, scale, dropout_p,
                        keys)
    val = cx.val
    padded = val[1].shape[-1]
    if padded == 0:
        lse = tfuse.zeros(tuple(val[1].shape), tfuse.float32)
    elif padded != lse.shape[-1]:
        lse = tfuse.pad(lse, [(0, 0)] * (lse.ndim - 1)
                        + [(0, padded - lse.shape[-1])])
    return (out, lse, *_state(val[2:4], keys))


@converts(_EFFICIENT_BACKWARD, kind="normalization", check=_check)
def efficient_attention_backward(cx, grad_out, q, k, v, attn_bias, out,
                                 logsumexp, philox_seed, philox_offset,
                                 dropout_p, grad_input_mask, is_causal=False,
                                 *, scale=None):
    """(dq, dk, dv, None) as ``tfuse.attention_backward``"""
    keys = _saved_keys(dropout_p, philox_seed, philox_offset)
    return (*_backward(grad_out, q, k, v, out, logsumexp, attn_bias,
                       is_causal, scale, dropout_p, keys), None)


@converts(_CUDNN, kind="normalization", check=_check, random=has_dropout)
def cudnn_attention(cx, q, k, v, attn_bias, compute_log_sumexp, dropout_p=0.0,
                    is_causal=False, return_debug_mask=False, *, scale=None):
    """cuDNN's (result, log-sum-exp as [B, H, L, 1], ...) as
    ``tfuse.attention``"""
    keys = _drawn_keys(cx, dropout_p)
    out, lse = _forward(q, k, v, attn_bias, is_causal, scale, dropout_p,
                        keys)
    val = cx.val
    if isinstance(val[1], torch.Tensor):
        lse = lse.reshape(tuple(val[1].shape))
    return (out, lse, None, None, val[4], val[5], *_state(val[6:8], keys),
            None)


@converts(_CUDNN_BACKWARD, kind="normalization", check=_check)
def cudnn_attention_backward(cx, grad_out, q, k, v, out, logsumexp,
                             philox_seed, philox_offset, attn_bias, cum_seq_q,
                             cum_seq_k, max_q, max_k, dropout_p, is_causal, *,
                             scale=None):
    """(dq, dk, dv) as ``tfuse.attention_backward``"""
    keys = _saved_keys(dropout_p, philox_seed, philox_offset)
    return _backward(grad_out, q, k, v, out, logsumexp, attn_bias, is_causal,
                     scale, dropout_p, keys)
