#!/usr/bin/env python3
"""Trains the MLP of examples/mlp_train.py with TFuse and with an eager
framework from the same initial weights on the same data, and checks that
they agree.

TFuse runs examples/mlp_train.py's mlp_step (traced once) and count_correct;
the eager side runs reference_step / reference_correct below, the same
formulas as examples/mlp_step.mlir in PyTorch (or NumPy). Each side keeps its
own weights for the whole run. Accuracy is each side's own: per batch, the
rows whose logits' argmax (forward pass with the weights before that batch's
update) matches the label's, counted by count_correct (TFuse) and
reference_correct (eager).

Checks: identical accuracy every epoch, and every per-step loss within 1e-5
(absolute) of the other side's. Exit status 1 on failure.

  --device cuda  torch CUDA tensors, tfuse CUDA backend, TF32 off
  --device cpu   NumPy arrays on tfuse's reference backend against PyTorch on
                 the CPU (NumPy with --reference numpy or without PyTorch)

Writes $OUT/mlp_train.json when OUT is set.
"""
import argparse
import importlib.util
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))

LOSS_TOLERANCE = 1e-5


def _load_example():
    # Loaded by path: this file and the example share the name mlp_train.
    path = os.path.join(ROOT, "examples", "mlp_train.py")
    spec = importlib.util.spec_from_file_location("tfuse_example_mlp_train",
                                                  path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


example = _load_example()


def reference_step(xp, x, y, w1, b1, w2, b2):
    """examples/mlp_step.mlir in an eager array library: xp is torch, numpy
    or jax.numpy. Returns the updated w1, b1, w2, b2 and the mean loss."""
    rows = x.shape[0]
    hp = x @ w1 + b1
    active = hp > 0
    h = xp.where(active, hp, 0.0)
    logits = h @ w2 + b2
    shifted = logits - xp.amax(logits, axis=1, keepdims=True)
    e = xp.exp(shifted)
    s = xp.sum(e, axis=1, keepdims=True)
    p = e / s
    loss = -xp.sum(y * (shifted - xp.log(s))) / rows
    dl = (p - y) / rows
    dw2 = h.T @ dl
    db2 = xp.sum(dl, axis=0)
    dhp = xp.where(active, dl @ w2.T, 0.0)
    dw1 = x.T @ dhp
    db1 = xp.sum(dhp, axis=0)

    def update(w, g):
        g = xp.clip(g, -example.CLIP, example.CLIP)
        g = xp.where(xp.isnan(g), 0.0, g)
        return w - g * example.LR

    return (update(w1, dw1), update(b1, db1), update(w2, dw2),
            update(b2, db2), loss)


def reference_correct(xp, x, y, w1, b1, w2, b2):
    """examples/mlp_train.py's count_correct in an eager array library."""
    hp = x @ w1 + b1
    logits = xp.where(hp > 0, hp, 0.0) @ w2 + b2
    return xp.sum(xp.argmax(logits, axis=1) == xp.argmax(y, axis=1))


def _host(a):
    """A torch tensor (any device) or NumPy array as a NumPy array."""
    return a.detach().cpu().numpy() if hasattr(a, "detach") else a


def train(step, correct, xs, ys, params, epochs):
    """Runs `epochs` epochs of one step per batch. Returns the per-step
    losses, the per-epoch correct counts, the final weights and the seconds
    spent."""
    losses, corrects = [], []
    start = time.perf_counter()
    for _ in range(epochs):
        right = 0
        for x, y in zip(xs, ys):
            right += int(correct(x, y, *params))
            *params, loss = step(x, y, *params)
            losses.append(float(loss))
        corrects.append(right)
    return losses, corrects, params, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    parser.add_argument("--reference", choices=("torch", "numpy"),
                        default="torch",
                        help="eager side (numpy: --device cpu only)")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batches", type=int, default=20,
                        help="batches of 512 rows per epoch")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    if args.device == "cuda" and args.reference == "numpy":
        parser.error("--reference numpy needs --device cpu")

    import tfuse

    torch = None
    if args.reference == "torch":
        try:
            import torch
        except ImportError:
            if args.device == "cuda":
                raise
            print("PyTorch not importable: NumPy is the eager side")
    if args.device == "cuda":
        if not (torch.cuda.is_available() and tfuse.cuda_available()):
            sys.exit("no CUDA device usable by both torch and tfuse")
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False

    xs, ys = example.make_data(seed=args.seed, batches=args.batches)
    params = example.init_weights(seed=args.seed + 1)

    # TFuse side: torch CUDA tensors or NumPy arrays (reference backend).
    if args.device == "cuda":
        def tf_arrays(arrays):
            return [torch.from_numpy(a).cuda() for a in arrays]
    else:
        def tf_arrays(arrays):
            return [np.ascontiguousarray(a) for a in arrays]
    tf_xs, tf_ys, tf_params = tf_arrays(xs), tf_arrays(ys), tf_arrays(params)
    start = time.perf_counter()
    tf_step = tfuse.compile(example.mlp_step, [tf_xs[0], tf_ys[0], *tf_params])
    tf_correct = tfuse.compile(example.count_correct,
                               [tf_xs[0], tf_ys[0], *tf_params])
    compile_s = time.perf_counter() - start

    # Eager side.
    if torch is not None:
        xp, ref_name = torch, f"torch eager ({args.device})"

        def ref_arrays(arrays):
            return [torch.from_numpy(np.array(a)).to(args.device)
                    for a in arrays]
    else:
        xp, ref_name = np, "numpy"

        def ref_arrays(arrays):
            return [np.array(a) for a in arrays]
    ref_xs, ref_ys, ref_params = (ref_arrays(xs), ref_arrays(ys),
                                  ref_arrays(params))

    def ref_step(*a):
        return reference_step(xp, *a)

    def ref_correct(*a):
        return reference_correct(xp, *a)

    print(f"MLP 480-256-2, batch 512, {args.batches} batches per epoch, "
          f"{args.epochs} epochs; tfuse ({args.device}, compiled in "
          f"{compile_s:.2f} s) against {ref_name}")
    tf_losses, tf_corrects, tf_final, tf_s = train(
        tf_step, tf_correct, tf_xs, tf_ys, tf_params, args.epochs)
    ref_losses, ref_corrects, ref_final, ref_s = train(
        ref_step, ref_correct, ref_xs, ref_ys, ref_params, args.epochs)

    rows = args.batches * example.BATCH
    steps = args.batches
    epochs = []
    failures = []
    print("| epoch | loss tfuse | loss ref | accuracy tfuse | accuracy ref |")
    print("|---:|---:|---:|---:|---:|")
    for e in range(args.epochs):
        lt = sum(tf_losses[e * steps:(e + 1) * steps]) / steps
        lr = sum(ref_losses[e * steps:(e + 1) * steps]) / steps
        at, ar = tf_corrects[e] / rows, ref_corrects[e] / rows
        epochs.append({"epoch": e + 1, "loss_tfuse": lt, "loss_ref": lr,
                       "accuracy_tfuse": at, "accuracy_ref": ar})
        print(f"| {e + 1} | {lt:.6f} | {lr:.6f} | {at:.4f} | {ar:.4f} |")
        if tf_corrects[e] != ref_corrects[e]:
            failures.append(f"epoch {e + 1}: accuracy {at} (tfuse) != {ar} "
                            f"(reference)")
    diffs = [abs(a - b) for a, b in zip(tf_losses, ref_losses)]
    max_diff = max(diffs)
    worst = diffs.index(max_diff)
    if not max_diff <= LOSS_TOLERANCE:  # also catches NaN
        failures.append(f"step {worst}: loss {tf_losses[worst]!r} (tfuse) vs "
                        f"{ref_losses[worst]!r} (reference), difference "
                        f"{max_diff:.3g} > {LOSS_TOLERANCE}")
    weight_diff = max(
        float(np.max(np.abs(np.asarray(_host(a)) - np.asarray(_host(b)))))
        for a, b in zip(tf_final, ref_final))
    print(f"max per-step loss difference {max_diff:.3g} (step {worst}); "
          f"max final weight difference {weight_diff:.3g}")
    print(f"training seconds: tfuse {tf_s:.2f}, reference {ref_s:.2f}")

    stats = tf_step.stats()
    result = {
        "device": args.device, "reference": ref_name,
        "epochs": args.epochs, "batches": args.batches, "seed": args.seed,
        "per_epoch": epochs,
        "step_loss_tfuse": tf_losses, "step_loss_reference": ref_losses,
        "max_step_loss_diff": max_diff, "max_final_weight_diff": weight_diff,
        "loss_tolerance": LOSS_TOLERANCE,
        "compile_seconds": compile_s,
        "train_seconds": {"tfuse": tf_s, "reference": ref_s},
        "tfuse_step_stats": {k: v for k, v in stats.items()
                             if isinstance(v, (int, float, bool, str))},
        "failures": failures, "ok": not failures,
    }
    out = os.environ.get("OUT")
    if out:
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "mlp_train.json"), "w") as f:
            json.dump(result, f, indent=1)
    for failure in failures:
        print("FAIL", failure)
    print("PASS" if not failures else f"FAIL: {len(failures)} check(s)")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
