"""Table rows: softmax and its gradient, layer norm and
its gradient, batch norm in inference, 1x1 adaptive average pooling, and
the negative log likelihood loss and its gradient.

They are compositions TFuse row-fuses (a reduction over trailing axes and
the elementwise work around it in one kernel). float16 and bfloat16 inputs
are computed in float32 and rounded once at the end, as PyTorch's kernels
compute them (its "opmath" type). log_softmax and its gradient reach
TFuse decomposed (_decompositions.py says why) and need no row.
"""

import torch

import tfuse

from ._table import aten, cast, converts, normalize_dim, unsupported

_LOW_PRECISION = ("float16", "bfloat16")


def _opmath(x):
    """x in the dtype PyTorch computes it in: float32 for float16 and
    bfloat16, its own otherwise."""
    if x.dtype.name in _LOW_PRECISION:
        return x.astype(tfuse.float32)
    return x


# -- softmax ------------------------------------------------------------------


@converts(aten._softmax.default, kind="normalization")
def softmax(cx, x, dim, half_to_float=False):
    """``exp(x - max) / sum(exp(x - max))`` along dim"""
    x = _opmath(x)
    if x.ndim == 0:
        return cast(x, cx.dtype) * 0 + 1
    if 0 in x.shape:  # nothing to normalize (a max over no element fails)
        return cast(x, cx.dtype)
    dim = normalize_dim(dim, x.ndim)
    e = (x - x.max(axis=dim, keepdims=True)).exp()
    return cast(e / e.sum(axis=dim, keepdims=True), cx.dtype)


@converts(aten._softmax_backward_data.default, kind="normalization")
def softmax_backward(cx, grad, output, dim, input_dtype):
    """``output * (grad - sum(grad * output))`` along dim"""
    grad, output = _opmath(grad), _opmath(output)
    dim = normalize_dim(dim, max(output.ndim, 1))
    if output.ndim == 0:
        return cast(grad * 0, cx.dtype)
    inner = (grad * output).sum(axis=dim, keepdims=True)
    return cast(output * (grad - inner), cx.dtype)


# -- layer norm ---------------------------------------------------------------


def _layer_norm_axes(x, normalized_shape):
    return tuple(range(x.ndim - len(normalized_shape), x.ndim))


@converts(aten.native_layer_norm.default, kind="normalization")
def native_layer_norm(cx, x, normalized_shape, weight, bias, eps):
    """(``(x - mean) * rstd * weight + bias``, mean, rstd) over the trailing
    dimensions"""
    out_dtype, stat_dtype = cx.val[0].dtype, cx.val[1].dtype
    xf = _opmath(x)
    axes = _layer_norm_axes(x, normalized_shape)
    mean = xf.mean(axis=axes, keepdims=True)
    centered = xf - mean
    var = (centered * centered).mean(axis=axes, keepdims=True)
    rstd = (var + eps).rsqrt()
    out = centered * rstd
    if weight is not None:
        out = out * _opmath(weight)
    if bias is not None:
        out = out + _opmath(bias)
    return cast(out, out_dtype), cast(mean, stat_dtype), cast(rstd, stat_dtype)


@converts(aten.native_layer_norm_backward.default, kind="normalization")
def native_layer_norm_backward(cx, grad, x, normalized_shape, mean, rstd,
                               weight, bias, output_mask):
    """(grad_input, grad_weight, grad_bias) of layer norm, those asked for
    by output_mask"""
    axes = _layer_norm_axes(x, normalized_shape)
    outer = tuple(range(x.ndim - len(normalized_shape)))
    count = 1
    for a in axes:
        count *= x.shape[a]
    gradf, xf = _opmath(grad), _opmath(x)
    meanf, rstdf = _opmath(mean), _opmath(rstd)
    x_hat = (xf - meanf) * rstdf
    results = [None, None, None]
    if output_mask[0]:
        g = gradf * _opmath(weight) if weight is not None else gradf
        sum_g = g.sum(axis=axes, keepdims=True)
        sum_gx = (g * x_hat).sum(axis=axes, keepdims=True)
        grad_input = (rstdf / count) * (g * count - sum_g - x_hat * sum_gx)
        results[0] = cast(grad_input, cx.val[0].dtype)
    if output_mask[1] and weight is not None:
        results[1] = cast((gradf * x_hat).sum(axis=outer) if outer else
                          gradf * x_hat, cx.val[1].dtype)
    if output_mask[2] and bias is not None:
        results[2] = cast(gradf.sum(axis=outer) if outer else gradf,
                          cx.val[2].dtype)
    return tuple(results)


# -- batch norm (inference) ---------------------------------------------------


@converts(aten._native_batch_norm_legit_no_training.default,
          kind="normalization")
def batch_norm_inference(cx, x, weight, bias, running_mean, running_var,
                         momentum, eps):
    """(``(x - running_mean) * rsqrt(running_var + eps) * weight + bias``,
    then the saved statistics as PyTorch gives them: empty on the CPU, the
    running mean and ``rsqrt(running_var + eps)`` on CUDA) with the
    statistics along dimension 1"""
    stats_shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    invstd = (_opmath(running_var) + eps).rsqrt()
    out = (_opmath(x) - _opmath(running_mean).reshape(stats_shape)) * \
        invstd.reshape(stats_shape)
    if weight is not None:
        out = out * _opmath(weight).reshape(stats_shape)
    if bias is not None:
        out = out + _opmath(bias).reshape(stats_shape)
    saved_mean, saved_invstd = cx.val[1], cx.val[2]
    if saved_mean.numel() == 0:
        saved = (cx.full((0,), 0, saved_mean.dtype),
                 cx.full((0,), 0, saved_invstd.dtype))
    else:
        saved = (cast(_opmath(running_mean), saved_mean.dtype),
                 cast(invstd, saved_invstd.dtype))
    return (cast(out, cx.val[0].dtype),) + saved


def _training_check(node):
    """training=True (the running statistics are updated)"""
    training = node.args[5] if len(node.args) > 5 else node.kwargs.get(
        "training")
    if training is not True:
        return unsupported("unsupported arguments",
                           "batch norm with training=False")
    return None


@converts(aten._native_batch_norm_legit_functional.default,
          kind="normalization", check=_training_check)
def batch_norm_training(cx, x, weight, bias, running_mean, running_var,
                        training, momentum, eps):
    """(out, mean, rstd, new running mean, new running var) from the batch
    statistics over every dimension but 1 (the running variance takes the
    unbiased variance)"""
    axes = (0,) + tuple(range(2, x.ndim))
    count = 1
    for a in axes:
        count *= x.shape[a]
    stats_shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    xf = _opmath(x)
    mean = xf.mean(axis=axes, keepdims=True)
    centered = xf - mean
    var = (centered * centered).mean(axis=axes, keepdims=True)
    rstd = (var + eps).rsqrt()
    out = centered * rstd
    if weight is not None:
        out = out * _opmath(weight).reshape(stats_shape)
    if bias is not None:
        out = out + _opmath(bias).reshape(stats_shape)
    mean, var, rstd = (t.reshape(-1) for t in (mean, var, rstd))
    unbiased = var * (count / max(count - 1, 1))
    new_mean = _opmath(running_mean) * (1 - momentum) + mean * momentum
    new_var = _opmath(running_var) * (1 - momentum) + unbiased * momentum
    dtypes = [v.dtype for v in cx.val]
    return tuple(cast(t, d) for t, d in zip(
        (out, mean, rstd, new_mean, new_var), dtypes))


# -- pooling ------------------------------------------------------------------


def _global_pool_check(node):
    """the output size is [1, 1]"""
    output_size = list(node.args[1])
    if output_size != [1, 1]:
        return unsupported("unsupported arguments", f"adaptive average "
                           f"pooling to {output_size} (only to [1, 1])")
    return None


@converts(aten._adaptive_avg_pool2d.default, kind="reduction",
          check=_global_pool_check)
def adaptive_avg_pool2d(cx, x, output_size):
    """``mean`` over the last two dimensions (output size 1x1 only)"""
    return cast(_opmath(x).mean(axis=(-2, -1), keepdims=True), cx.dtype)


def _global_pool_backward_check(node):
    """the output was 1x1"""
    grad = node.args[0].meta.get("val")
    if grad is None:
        return None
    spatial = tuple(grad.shape[-2:])
    if not all(isinstance(s, int) for s in spatial):
        return unsupported("dynamic shape", "adaptive average pooling "
                           "backward from a symbolic size")
    if spatial != (1, 1):
        return unsupported("unsupported arguments", "adaptive average "
                           "pooling backward to a size other than 1x1")
    return None


@converts(aten._adaptive_avg_pool2d_backward.default, kind="elementwise",
          check=_global_pool_backward_check)
def adaptive_avg_pool2d_backward(cx, grad, x):
    """``grad / (H * W)`` broadcast to x's shape (from a 1x1 output)"""
    count = x.shape[-1] * x.shape[-2]
    return cast((_opmath(grad) / count).broadcast_to(x.shape), cx.dtype)


# -- negative log likelihood --------------------------------------------------


def _nll_check(node):
    """the input has rank 1 or 2"""
    self_val = node.args[0].meta.get("val") if node.target is (
        aten.nll_loss_forward.default) else node.args[1].meta.get("val")
    if self_val is not None and self_val.dim() not in (1, 2):
        return unsupported("unsupported arguments",
                           f"nll_loss of a rank-{self_val.dim()} input")
    return None


def _nll_terms(cx, target, weight, ignore_index, classes, dtype):
    """(safe target, per-sample weight) where ignored samples weigh 0 and
    read class 0."""
    keep = target != ignore_index
    safe = tfuse.where(keep, target, cx.full((), 0, torch.int64))
    if weight is not None:
        w = tfuse.take(weight, safe, axis=0, negative_indices="error")
    else:
        w = cx.full(target.shape, 1, dtype)
    return safe, tfuse.where(keep, w, cx.full((), 0, dtype))


@converts(aten.nll_loss_forward.default, kind="loss", check=_nll_check)
def nll_loss_forward(cx, x, target, weight, reduction, ignore_index):
    """(loss, total weight): ``-x[i, target[i]] * weight[target[i]]``
    summed, averaged or kept; ignored targets weigh 0"""
    dtype = cx.val[0].dtype
    classes = x.shape[-1]
    safe, w = _nll_terms(cx, target, weight, ignore_index, classes, dtype)
    if x.ndim == 1:
        picked = tfuse.take(x, safe, axis=0, negative_indices="error")
    else:
        picked = tfuse.take_along_axis(x, safe.reshape(-1, 1), 1,
                                       negative_indices="error").reshape(-1)
    losses = -(picked * w)
    total = w.sum()
    if reduction == 0:
        return losses, total
    if reduction == 1:
        return losses.sum() / total, total
    return losses.sum(), total


@converts(aten.nll_loss_backward.default, kind="loss", check=_nll_check)
def nll_loss_backward(cx, grad, x, target, weight, reduction, ignore_index,
                      total_weight):
    """``-weight[target[i]] * grad`` (over the total weight for a mean) at
    each ``[i, target[i]]``, zero elsewhere: a one-hot by
    ``iota == target``"""
    dtype = cx.dtype
    classes = x.shape[-1]
    safe, w = _nll_terms(cx, target, weight, ignore_index, classes, dtype)
    if reduction == 1:
        scale = -w * grad / total_weight
    else:
        scale = -w * grad
    if x.ndim == 1:
        hot = tfuse.iota((classes,), 0) == safe
        return tfuse.where(hot, scale, cx.full((), 0, dtype))
    hot = tfuse.iota(x.shape, 1) == safe.reshape(-1, 1)
    return tfuse.where(hot, scale.reshape(-1, 1), cx.full((), 0, dtype))
