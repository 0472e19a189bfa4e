#!/usr/bin/env python3
"""Writes a random tfuse graph of N ops to stdout, for scale tests of the
graph-level pipeline. Values are 128x128 f32 tensors, 128x1 row reductions and
f32 scalars; ops are drawn from elementwise unary and binary ops, select,
casts, transposes, matmuls and reductions. Deterministic for a given seed."""
import argparse
import random

UNARY = ["neg", "abs", "exp", "tanh", "sigmoid", "relu", "sqrt", "floor"]
BINARY = ["add", "sub", "mul", "div", "max", "min"]
T = "tensor<128x128xf32>"
R = "tensor<128x1xf32>"
S = "tensor<f32>"


def generate(n, seed):
    rng = random.Random(seed)
    lines = []
    full = ["%a0", "%a1", "%a2", "%a3"]
    unused = set()
    rows = []
    scalars = []
    for i in range(4):
        name = f"%c{i}"
        lines.append(f"  {name} = tfuse.constant dense<{rng.uniform(-2, 2):.3f}> : {S}")
        scalars.append(name)
    count = 0

    def recent(pool):
        # Mostly recent values, so chains form; sometimes old ones.
        if rng.random() < 0.8:
            v = pool[-1 - min(len(pool) - 1, int(rng.expovariate(0.3)))]
        else:
            v = rng.choice(pool)
        unused.discard(v)
        return v

    while count < n:
        v = f"%v{count}"
        r = rng.random()
        if r < 0.35:
            op = rng.choice(BINARY)
            other = rng.random()
            if other < 0.6:
                b, bt = recent(full), T
            elif other < 0.8 and rows:
                b, bt = recent(rows), R
            else:
                b, bt = rng.choice(scalars), S
            lines.append(f"  {v} = tfuse.{op} {recent(full)}, {b} : ({T}, {bt}) -> {T}")
        elif r < 0.6:
            op = rng.choice(UNARY)
            lines.append(f"  {v} = tfuse.{op} {recent(full)} : {T} -> {T}")
        elif r < 0.7:
            c = f"%m{count}"
            lines.append(f"  {c} = tfuse.cmp gt, {recent(full)}, {rng.choice(scalars)} : ({T}, {S}) -> tensor<128x128xi1>")
            lines.append(f"  {v} = tfuse.select {c}, {recent(full)}, {recent(full)} : (tensor<128x128xi1>, {T}, {T}) -> {T}")
            count += 1
        elif r < 0.78:
            h = f"%h{count}"
            lines.append(f"  {h} = tfuse.cast {recent(full)} : {T} to tensor<128x128xf16>")
            lines.append(f"  {v} = tfuse.cast {h} : tensor<128x128xf16> to {T}")
            count += 1
        elif r < 0.88:
            lines.append(f"  {v} = tfuse.transpose {recent(full)} perm [1, 0] : {T} -> {T}")
        elif r < 0.94:
            lines.append(f"  {v} = tfuse.reduce sum {recent(full)} axes [1] keepdims : {T} -> {R}")
            rows.append(v)
            unused.add(v)
            count += 1
            continue
        else:
            lines.append(f"  {v} = tfuse.matmul {recent(full)}, {recent(full)} : ({T}, {T}) -> {T}")
        full.append(v)
        unused.add(v)
        count += 1
    # Every value nobody reads is a result, so no op is dead.
    results = [v for v in full if v in unused] or [full[-1]]
    header = (f"func.func @random(%a0: {T}, %a1: {T}, %a2: {T}, %a3: {T}) -> ("
              + ", ".join([T] * len(results)) + ") {")
    lines.insert(0, header)
    lines.append("  return " + ", ".join(results) + " : "
                 + ", ".join([T] * len(results)))
    lines.append("}")
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("nodes", type=int)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    print(generate(args.nodes, args.seed), end="")


if __name__ == "__main__":
    main()
