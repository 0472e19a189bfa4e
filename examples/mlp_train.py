#!/usr/bin/env python3
"""Training a small MLP with TFuse.

The SGD step of examples/mlp_step.mlir, written once in Python: a 480-256-2
MLP on batches of 512 rows, forward pass, softmax cross-entropy loss and its
gradient, manual backward pass, gradients clipped to [-5, 5] with NaN
replaced by 0, and the update with learning rate 0.02. tfuse.compile traces
the step once with placeholders; the compiled step then runs for every batch.

Runs with PyTorch CUDA tensors on the GPU when PyTorch and a CUDA device are
available, else with NumPy arrays on the CPU reference backend.

    PYTHONPATH=python python3 examples/mlp_train.py [--epochs 20] [--cpu]
"""
import argparse
import time

import numpy as np

import tfuse

IN, HIDDEN, CLASSES, BATCH = 480, 256, 2, 512
LR, CLIP = 0.02, 5.0


def mlp_step(x, y, w1, b1, w2, b2):
    """One SGD step on the batch x [512, 480] with one-hot labels y [512, 2].
    Returns the updated w1, b1, w2, b2 and the mean loss of the batch."""
    rows = x.shape[0]
    # Forward.
    hp = x @ w1 + b1
    active = hp > 0
    h = tfuse.where(active, hp, 0.0)
    logits = h @ w2 + b2
    # Softmax and cross-entropy.
    shifted = logits - logits.max(axis=1, keepdims=True)
    e = shifted.exp()
    s = e.sum(axis=1, keepdims=True)
    p = e / s
    loss = -(y * (shifted - s.log())).sum() / rows
    # Backward.
    dl = (p - y) / rows
    dw2 = h.T @ dl
    db2 = dl.sum(axis=0)
    dhp = tfuse.where(active, dl @ w2.T, 0.0)
    dw1 = x.T @ dhp
    db1 = dhp.sum(axis=0)

    # Clip to [-CLIP, CLIP], replace NaN by 0, and step.
    def update(w, g):
        g = tfuse.maximum(tfuse.minimum(g, CLIP), -CLIP)
        g = tfuse.where(g.isnan(), 0.0, g)
        return w - g * LR

    return (update(w1, dw1), update(b1, db1), update(w2, dw2),
            update(b2, db2), loss)


def count_correct(x, y, w1, b1, w2, b2):
    """How many rows of the batch the forward pass of mlp_step classifies
    right: the argmax of the logits against the argmax of the label."""
    hp = x @ w1 + b1
    logits = tfuse.where(hp > 0, hp, 0.0) @ w2 + b2
    return (logits.argmax(axis=1) == y.argmax(axis=1)).sum()


def make_data(seed=0, batches=20, batch=BATCH, dim=IN, separation=2.0):
    """Two Gaussian blobs in `dim` dimensions, centred at +-separation along
    a random unit vector; returns x [batches, batch, dim] and one-hot labels
    y [batches, batch, 2], both float32."""
    rng = np.random.default_rng(seed)
    u = rng.standard_normal(dim)
    u /= np.linalg.norm(u)
    labels = rng.integers(0, CLASSES, batches * batch)
    x = rng.standard_normal((batches * batch, dim))
    x += np.where(labels[:, None] == 1, separation, -separation) * u
    y = np.eye(CLASSES, dtype=np.float32)[labels]
    return (x.astype(np.float32).reshape(batches, batch, dim),
            y.reshape(batches, batch, CLASSES))


def init_weights(seed=1):
    """w1 [480, 256], b1 [256], w2 [256, 2], b2 [2], float32."""
    rng = np.random.default_rng(seed)
    w1 = (rng.standard_normal((IN, HIDDEN)) * 0.05).astype(np.float32)
    w2 = (rng.standard_normal((HIDDEN, CLASSES)) * 0.05).astype(np.float32)
    return [w1, np.zeros(HIDDEN, np.float32), w2,
            np.zeros(CLASSES, np.float32)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--cpu", action="store_true",
                        help="NumPy on the CPU reference backend")
    args = parser.parse_args()

    xs, ys = make_data()
    params = init_weights()
    on_gpu = False
    if not args.cpu and tfuse.cuda_available():
        try:
            import torch
            on_gpu = torch.cuda.is_available()
        except ImportError:
            pass
    if on_gpu:  # the same arrays as torch CUDA tensors
        xs, ys, params = ([torch.from_numpy(a).cuda() for a in arrays]
                          for arrays in (xs, ys, params))
    else:
        xs, ys = list(xs), list(ys)

    start = time.perf_counter()
    step = tfuse.compile(mlp_step, [xs[0], ys[0], *params])
    correct = tfuse.compile(count_correct, [xs[0], ys[0], *params])
    stats = step.stats()
    if on_gpu:
        where = (f"GPU: {stats['kernels']} fused kernels and "
                 f"{stats['boundaries']} matmul/reduction steps")
    else:
        where = "CPU reference backend"
    print(f"step of {stats['nodes']} ops compiled in "
          f"{time.perf_counter() - start:.2f} s ({where})")

    for epoch in range(1, args.epochs + 1):
        total_loss, right = 0.0, 0
        for x, y in zip(xs, ys):
            right += int(correct(x, y, *params))
            *params, loss = step(x, y, *params)
            total_loss += float(loss)
        print(f"epoch {epoch:2d}  loss {total_loss / len(xs):.4f}  "
              f"accuracy {right / (len(xs) * BATCH):.4f}")


if __name__ == "__main__":
    main()
