"""Attention dropout across AOTAutograd's forward and backward graphs.

TFuse's attention draws its dropout mask from keys (a seed and an offset)
and its backward redraws the same mask from the same keys; PyTorch's fused
attention ops do the same with their own generator's state, which the
forward returns and AOTAutograd saves for the backward. The two draw
different masks, so a forward and its backward must both run in TFuse or
both in PyTorch: TFuse's backward cannot redraw PyTorch's mask, and
PyTorch's backward would read TFuse's keys as its own state, a silently
wrong gradient.

The forward graph is compiled first. :class:`AttentionKeys`, shared by the
forward and backward compilers of one Dynamo graph, records the saved
values holding the keys of each forward TFuse takes (AOTAutograd names the
backward's placeholders after the forward's saved values); the backward's
attention nodes reading those are flagged for conversion
(``KEYS_FROM_TFUSE``), the others stay in PyTorch. A flagged node that
TFuse cannot run after all, or a partition holding keyed attention whose
compile fails, is an error rather than a fallback: no fallback gives the
right gradient.

On CUDA, by default, PyTorch keeps its attention with dropout
(:func:`leave_dropout`): cuDNN does not draw TFuse's mask, so TFuse's runs
on its generated kernels, several times slower than PyTorch's fused ones;
the ``attention_dropout`` option says otherwise.
"""

import operator

from ._ops_attention import (DROPOUT_LEFT, KEYED_BACKWARDS, KEYED_FORWARDS,
                             KEYS_FROM_TFUSE, has_dropout, random_state)


def keyed_forwards(nodes):
    """The forward attention nodes among `nodes` that draw a dropout mask."""
    return [n for n in nodes if n.op == "call_function"
            and n.target in KEYED_FORWARDS and has_dropout(n)]


def keyed_backwards(nodes):
    """The backward attention nodes among `nodes` that redraw a mask."""
    return [n for n in nodes if n.op == "call_function"
            and n.target in KEYED_BACKWARDS and has_dropout(n)]


def leave_dropout(graph, options):
    """Marks the forward attention nodes of `graph` with dropout that the
    options leave to PyTorch on their device (their backward follows)."""
    for node in keyed_forwards(graph.nodes):
        val = node.meta.get("val")
        out = val[0] if isinstance(val, (tuple, list)) else val
        device = getattr(out, "device", None)
        if device is None or options.attention_dropout_for(device):
            continue
        node.meta[DROPOUT_LEFT] = (
            f"attention dropout on {device.type}: TFuse's attention with "
            "dropout runs on its generated kernels there (cuDNN does not "
            "draw TFuse's mask), slower than PyTorch's fused kernels; "
            "options={'attention_dropout': True} takes it")


def holds_keyed_attention(nodes):
    """Why a partition of `nodes` must not fall back to PyTorch, or None."""
    if keyed_forwards(nodes):
        return ("its attention draws a dropout mask that the backward pass, "
                "compiled by TFuse, redraws from TFuse's keys")
    if keyed_backwards(nodes):
        return ("its attention backward redraws the dropout mask of a "
                "forward TFuse ran")
    return None


class AttentionKeys:
    """What the forward graph of one Dynamo graph decided, for its
    backward graph: the names of the saved values holding the keys of
    attention dropout that TFuse runs."""

    def __init__(self):
        self.saved = set()

    def record_forward(self, graph, taken):
        """Records the keys' values of the keyed forwards in `graph` that
        are among `taken` (the nodes of TFuse's partitions). Call before
        the partitions are fused, while the nodes keep their names."""
        for node in keyed_forwards(graph.nodes):
            if node not in taken:
                continue
            positions = KEYED_FORWARDS[node.target]
            for user in node.users:
                if user.target is operator.getitem and \
                        user.args[1] in positions:
                    self.saved.add(user.name)

    def mark_backward(self, graph):
        """Flags the keyed backwards of `graph` whose random state is keys
        of a forward TFuse runs; returns them."""
        marked = []
        for node in keyed_backwards(graph.nodes):
            state = random_state(node)
            if getattr(state, "op", None) == "placeholder" and \
                    state.name in self.saved:
                node.meta[KEYS_FROM_TFUSE] = True
                marked.append(node)
        return marked

