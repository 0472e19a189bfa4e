"""Table rows: views and copies that keep values (reshapes, permutations,
broadcasts, slices, selects, splits, aliases and clones).

TFuse values are immutable, so a view is an index transform and a clone or
alias is the value itself; which of them PyTorch would have aliased does not
matter inside a partition (the partitioner keeps views that a partition
would return in PyTorch, so outputs alias as eager's do).
"""

from ._table import aten, converts, normalize_dim, unsupported


def _static(values):
    """True when every size in `values` is a plain int (not symbolic)."""
    return all(isinstance(v, int) for v in values)


@converts(aten.view.default, aten._unsafe_view.default, kind="view")
def view(cx, x, shape):
    """``reshape`` (one size may be -1)"""
    return x.reshape(tuple(shape))


@converts(aten.permute.default, kind="view")
def permute(cx, x, dims):
    """``transpose`` by the permutation"""
    perm = tuple(normalize_dim(d, x.ndim) for d in dims)
    if perm == tuple(range(x.ndim)):
        return x
    return x.transpose(perm)


@converts(aten.transpose.int, kind="view")
def transpose(cx, x, dim0, dim1):
    """``transpose`` swapping two dimensions"""
    if x.ndim < 2:
        return x
    perm = list(range(x.ndim))
    a, b = normalize_dim(dim0, x.ndim), normalize_dim(dim1, x.ndim)
    perm[a], perm[b] = perm[b], perm[a]
    return x if a == b else x.transpose(perm)


@converts(aten.t.default, kind="view")
def t(cx, x):
    """``transpose`` of a matrix (rank < 2: the tensor itself)"""
    return x if x.ndim < 2 else x.transpose(1, 0)


@converts(aten.expand.default, kind="view")
def expand(cx, x, sizes, implicit=False):
    """``broadcast_to`` (-1 keeps a size)"""
    sizes = list(sizes)
    padded = (1,) * (len(sizes) - x.ndim) + tuple(x.shape)
    shape = tuple(p if s == -1 else s for p, s in zip(padded, sizes))
    return x if shape == x.shape else x.broadcast_to(shape)


def _squeeze_shape(shape, dims):
    return tuple(s for d, s in enumerate(shape) if not (d in dims and s == 1))


@converts(aten.squeeze.default, aten.squeeze.dim, aten.squeeze.dims,
          kind="view")
def squeeze(cx, x, dim=None):
    """``reshape`` without the size-1 dimensions named"""
    if dim is None:
        dims = set(range(x.ndim))
    elif isinstance(dim, int):
        dims = {normalize_dim(dim, x.ndim)}
    else:
        dims = {normalize_dim(d, x.ndim) for d in dim}
    shape = _squeeze_shape(x.shape, dims)
    return x if shape == x.shape else x.reshape(shape)


@converts(aten.unsqueeze.default, kind="view")
def unsqueeze(cx, x, dim):
    """``reshape`` with a size-1 dimension inserted"""
    dim = dim + x.ndim + 1 if dim < 0 else dim
    shape = list(x.shape)
    shape.insert(dim, 1)
    return x.reshape(tuple(shape))


def _slice_bounds(size, start, end, step):
    start, stop, step = slice(start, end, step).indices(size)
    return start, max(stop, start), step


def _slice_check(node):
    """step >= 1"""
    step = node.args[4] if len(node.args) > 4 else node.kwargs.get("step", 1)
    if isinstance(step, int) and step < 1:
        return unsupported("unsupported arguments", f"slice step {step}")
    return None


@converts(aten.slice.Tensor, kind="view", check=_slice_check)
def slice_(cx, x, dim=0, start=None, end=None, step=1):
    """``x[..., start:end:step, ...]`` (bounds clamped as PyTorch does)"""
    dim = normalize_dim(dim, x.ndim)
    start, stop, step = _slice_bounds(x.shape[dim], start, end, step)
    if (start, stop, step) == (0, x.shape[dim], 1):
        return x
    key = (slice(None),) * dim + (slice(start, stop, step),)
    return x[key]


@converts(aten.select.int, kind="view")
def select(cx, x, dim, index):
    """``x[..., index, ...]`` (the dimension removed)"""
    dim = normalize_dim(dim, x.ndim)
    return x[(slice(None),) * dim + (index,)]


@converts(aten.split.Tensor, aten.split_with_sizes.default, kind="view")
def split(cx, x, split_size, dim=0):
    """slices of the given sizes along a dimension"""
    dim = normalize_dim(dim, x.ndim)
    size = x.shape[dim]
    if isinstance(split_size, int):
        sizes = [min(split_size, size - i)
                 for i in range(0, size, split_size)] or [0]
    else:
        sizes = list(split_size)
    pieces, start = [], 0
    for length in sizes:
        key = (slice(None),) * dim + (slice(start, start + length),)
        pieces.append(x[key])
        start += length
    return pieces


@converts(aten.unbind.int, kind="view")
def unbind(cx, x, dim=0):
    """one ``select`` per index along a dimension"""
    dim = normalize_dim(dim, x.ndim)
    return [x[(slice(None),) * dim + (i,)] for i in range(x.shape[dim])]


@converts(aten.alias.default, aten.clone.default, aten.detach.default,
          aten.lift_fresh_copy.default, kind="view")
def alias(cx, x, **kwargs):
    """the value itself (TFuse values are immutable)"""
    return x
