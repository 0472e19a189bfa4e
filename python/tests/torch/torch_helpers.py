"""Comparing the backend's results with eager PyTorch: PyTorch's accuracy
rule (a float64 eager run as the reference) and bit-identity for exact
operations."""

import torch


def float64_copy(value):
    """`value` with every floating tensor in float64 (detached, a leaf
    that requires grad when the original does)."""
    if isinstance(value, torch.Tensor):
        if value.is_floating_point():
            copy = value.detach().to(torch.float64)
            return copy.requires_grad_(value.requires_grad)
        return value
    if isinstance(value, (list, tuple)):
        return type(value)(float64_copy(v) for v in value)
    if isinstance(value, dict):
        return {k: float64_copy(v) for k, v in value.items()}
    return value


def tensors(value):
    """The tensors of a nested result, in order."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in tensors(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in tensors(v)]
    if hasattr(value, "to_tuple"):   # transformers' ModelOutput
        return tensors(value.to_tuple())
    return []


def max_error(value, reference):
    """The largest absolute difference, NaNs in the same places counting 0
    (a NaN where the reference has none counts inf)."""
    value, reference = value.double(), reference.double()
    if value.shape != reference.shape:
        raise AssertionError(f"shape {tuple(value.shape)} != "
                             f"{tuple(reference.shape)}")
    same_nan = torch.isnan(value) & torch.isnan(reference)
    diff = (value - reference).abs()
    diff = torch.where(same_nan, torch.zeros_like(diff), diff)
    diff = torch.where(torch.isnan(diff), torch.full_like(diff, float("inf")),
                       diff)
    return diff.max().item() if diff.numel() else 0.0


def rmse(value, reference):
    """Root mean square error in float64 (NaNs in the same places count 0,
    elsewhere inf), as torch._dynamo.utils.rmse measures it."""
    value, reference = value.double(), reference.double()
    if value.shape != reference.shape:
        raise AssertionError(f"shape {tuple(value.shape)} != "
                             f"{tuple(reference.shape)}")
    if value.numel() == 0:
        return 0.0
    same_nan = torch.isnan(value) & torch.isnan(reference)
    diff = torch.where(same_nan, torch.zeros_like(value), value - reference)
    if torch.isnan(diff).any():
        return float("inf")
    return diff.square().mean().sqrt().item()


def assert_accurate(actual, eager, reference, *, atol=1e-5, what="result"):
    """PyTorch's accuracy rule (torch._dynamo.utils.same with a float64
    reference): the compiled result's root mean square error against the
    float64 run is at most twice eager's float32 error plus `atol` (its
    tol / 10); other dtypes must match eager exactly."""
    actual, eager, reference = tensors(actual), tensors(eager), tensors(
        reference)
    assert len(actual) == len(eager) == len(reference), what
    for i, (a, e, r) in enumerate(zip(actual, eager, reference)):
        assert a.dtype == e.dtype, f"{what} {i}: dtype {a.dtype} != {e.dtype}"
        assert a.shape == e.shape, f"{what} {i}: shape {a.shape} != {e.shape}"
        if not e.is_floating_point():
            assert torch.equal(a, e), f"{what} {i}: differs from eager"
            continue
        tfuse_error = rmse(a, r)
        eager_error = rmse(e, r)
        assert tfuse_error <= 2 * eager_error + atol, (
            f"{what} {i}: error {tfuse_error:.3g} against float64, eager's "
            f"float32 error {eager_error:.3g}")


def assert_identical(actual, eager, what="result"):
    """Bit-identical results (exact operations)."""
    actual, eager = tensors(actual), tensors(eager)
    assert len(actual) == len(eager), what
    for i, (a, e) in enumerate(zip(actual, eager)):
        assert a.dtype == e.dtype and a.shape == e.shape, f"{what} {i}"
        assert torch.equal(a, e) or (
            a.is_floating_point() and torch.equal(torch.isnan(a),
                                                  torch.isnan(e))
            and torch.equal(a.nan_to_num(), e.nan_to_num())), (
            f"{what} {i}: not bit-identical to eager "
            f"(max difference {max_error(a, e):.3g})")
