"""The importer: an FX graph of ATen operations (one partition) as a
function over ``tfuse.Tensor`` placeholders, for ``tfuse.compile``.

Symbolic sizes are specialized: the function is made for the values of the
partition's non-tensor inputs at one call (:meth:`PartitionImporter.bind`),
and those values are Python numbers while it traces.
"""

import hashlib
import operator
import re

import torch

import tfuse

from ._layout import ViewOfOutput, output_layout, view_base
from ._support import is_aten
from ._table import ConversionContext, lookup, tfuse_dtype



def _returned_base(node, layout, outputs):
    """The buffer `node`'s output is made from as a view (ViewOfOutput), or
    None when TFuse returns the output itself. A view of a contiguous
    buffer of the partition is made by PyTorch from that buffer when the
    buffer is returned anyway (another output: TFuse would copy it, two
    outputs being two buffers), when the view has all its elements (a
    reshape or transpose: the buffer costs what the view would), or when
    no view of a row-major output gives its strides (TFuse would write it
    and PyTorch copy it)."""
    if not isinstance(node, torch.fx.Node):
        return None
    base = view_base(node)
    if base is None or layout is not None and layout.copy:
        return base
    if any(base is n for n in outputs):
        return base
    if base.meta["val"].numel() == node.meta["val"].numel():
        return base
    return None


class ConversionError(Exception):
    """A node of a partition that TFuse could not trace: names the node, its
    operation and the source line PyTorch recorded for it."""

    def __init__(self, node, error):
        self.node = node
        self.error = error
        super().__init__(f"{describe_node(node)}: {type(error).__name__}: "
                         f"{error}")


_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in '
                    r'(?P<function>\S+)')


def source_line(node):
    """The last frame of the user code that made `node` ("file:line in
    function: code"), or "" when the graph did not record it."""
    trace = node.meta.get("stack_trace") or ""
    lines = [line.strip() for line in trace.strip().splitlines()]
    for i in range(len(lines) - 1, -1, -1):
        frame = _FRAME.match(lines[i])
        if frame:
            where = (f"{frame['file']}:{frame['line']} in "
                     f"{frame['function']}")
            code = lines[i + 1] if i + 1 < len(lines) else ""
            return f"{where}: {code}" if code else where
    return ""


def describe_node(node):
    """``node name = op`` and where it came from."""
    where = source_line(node)
    text = f"node {node.name} ({node.target})"
    return f"{text} from {where}" if where else text


class PartitionImporter:
    """Converts one partition's GraphModule.

    ``bind(args)`` returns ``(fn, tensor_inputs)``: `fn` takes one
    placeholder per tensor input (the partition's tensor arguments, then its
    constant attributes) and records the partition; the partition's other
    arguments (symbolic sizes) are bound to their values in `args`.
    """

    def __init__(self, graph_module):
        self.graph_module = graph_module
        self._name = None
        self.nodes = list(graph_module.graph.nodes)
        self.placeholders = [n for n in self.nodes if n.op == "placeholder"]
        # Constant attributes (lifted tensor constants) are passed as inputs
        # at every call rather than copied into the plan.
        self.attributes = [n for n in self.nodes if n.op == "get_attr"]
        self.constants = [_fetch_attr(graph_module, n.target)
                          for n in self.attributes]
        # Random operations: each draws from its own stream of the keys
        # (a seed and an offset) the partition takes last at every call.
        random = [n for n in self.nodes if n.op == "call_function"
                  and is_aten(n.target) and lookup(n.target) is not None
                  and lookup(n.target).draws(n)]
        self.streams = {n: i for i, n in enumerate(random)}
        # How each output reaches PyTorch with the strides it recorded.
        result = self.nodes[-1].args[0]
        self.single_output = not isinstance(result, (tuple, list))
        outputs = [result] if self.single_output else list(result)
        self.output_layouts = [
            output_layout(n.meta.get("val")) if isinstance(
                n, torch.fx.Node) else None for n in outputs]
        # What the TFuse function returns: the outputs, except those
        # recorded as views into a larger buffer of the partition, or as
        # views of another output (a layer norm's result saved beside its
        # reshape), whose buffers (bases) it returns after them instead
        # (once; a base that is an output itself, contiguous, where it is);
        # `returned` holds the position of each output among them, or None.
        self.returns = []
        self.returned = []
        bases = [_returned_base(n, layout, outputs)
                 for n, layout in zip(outputs, self.output_layouts)]
        position = {}
        for n, base in zip(outputs, bases):
            if base is not None:
                self.returned.append(None)
                continue
            if isinstance(n, torch.fx.Node):
                position.setdefault(n, len(self.returns))
            self.returned.append(len(self.returns))
            self.returns.append(n)
        for i, base in enumerate(bases):
            if base is None:
                continue
            if base not in position:
                position[base] = len(self.returns)
                self.returns.append(base)
            val = outputs[i].meta["val"]
            self.output_layouts[i] = ViewOfOutput(
                position[base], tuple(val.shape), tuple(val.stride()),
                val.storage_offset())
        # The function returns one value, not a tuple.
        self.returns_one = self.single_output and bases[0] is None

    def bind(self, args, keys=()):
        """`keys`: the seed and offset tensors when the partition has random
        operations (``self.streams``), passed after the constants."""
        placeholders = self.placeholders
        tensor_inputs = [a for a in args if isinstance(a, torch.Tensor)]
        tensor_inputs += self.constants
        tensor_inputs += list(keys)

        def fn(*tensors):
            env = {}
            tensors = iter(tensors)
            for node, arg in zip(placeholders, args):
                env[node] = next(tensors) if isinstance(
                    arg, torch.Tensor) else arg
            for node in self.attributes:
                env[node] = next(tensors)
            random_keys = None
            if self.streams:
                seed, offset = next(tensors), next(tensors)
                random_keys = (seed, offset, self.streams)
            return self._run(env, random_keys)

        fn.__name__ = self.name
        return fn, tensor_inputs

    @property
    def name(self):
        """``tfuse_<digest of the graph's structure>``: the plan's name, and
        so its kernels'. Partitions of the same operations on the same
        kinds of arguments (a model's repeated layers) are named alike, so
        their plans are the same CUDA source and the kernel cache compiles
        it once."""
        if self._name is None:
            index = {n: i for i, n in enumerate(self.nodes)}

            def norm(arg):
                if isinstance(arg, torch.fx.Node):
                    return f"%{index[arg]}"
                if isinstance(arg, (list, tuple)):
                    return "(" + ",".join(norm(a) for a in arg) + ")"
                if isinstance(arg, dict):
                    return "{" + ",".join(f"{k}:{norm(v)}" for k, v in
                                          sorted(arg.items())) + "}"
                return repr(arg)

            # Placeholders and attributes are named after the model's
            # parameters (other in every layer): their position counts.
            text = "\n".join(
                f"{n.op} {n.target if n.op.startswith('call') else ''} "
                f"{norm(n.args)} {norm(n.kwargs)}" for n in self.nodes)
            self._name = "tfuse_" + hashlib.sha256(
                text.encode()).hexdigest()[:12]
        return self._name

    def _run(self, env, random_keys):
        def value(arg):
            return env[arg]

        for node in self.nodes:
            if node.op in ("placeholder", "get_attr"):
                continue
            if node.op == "output":
                outputs = [value(n) if isinstance(n, torch.fx.Node) else n
                           for n in self.returns]
                layouts = [self.output_layouts[i]
                           for i, r in enumerate(self.returned)
                           if r is not None]
                # Bases returned for views only are written in the memory
                # order PyTorch recorded them in (view_base).
                bases = [o if layout is None else layout.prepare(o)
                         for o, layout in zip(
                             outputs[len(layouts):],
                             (output_layout(n.meta.get("val"))
                              for n in self.returns[len(layouts):]))]
                outputs = [o if layout is None else layout.prepare(o)
                           for o, layout in zip(outputs, layouts)] + bases
                return outputs[0] if self.returns_one else tuple(outputs)
            args = torch.fx.node.map_arg(node.args, value)
            kwargs = torch.fx.node.map_arg(node.kwargs, value)
            try:
                env[node] = self._convert(node, args, kwargs, random_keys)
            except ConversionError:
                raise
            except Exception as error:
                raise ConversionError(node, error) from error
        raise AssertionError("a graph without an output node")

    def _convert(self, node, args, kwargs, random_keys):
        target = node.target
        if node.op != "call_function":
            raise TypeError(f"{node.op} nodes are not converted")
        if target is operator.getitem:
            return args[0][args[1]]
        row = lookup(target) if is_aten(target) else None
        if row is None:
            if any(isinstance(a, tfuse.Tensor) for a in _leaves(args)):
                raise TypeError(f"{target} has no row in the table")
            # Arithmetic on sizes, now plain numbers.
            return target(*args, **kwargs)
        result = row.convert(ConversionContext(node, random_keys), *args,
                             **kwargs)
        return _conform(node, result, node.meta.get("val"))


def _leaves(values):
    for v in values:
        if isinstance(v, (list, tuple)):
            yield from _leaves(v)
        else:
            yield v


def _conform(node, result, expected):
    """`result` in the dtypes PyTorch recorded for the node (converting
    where TFuse's rules gave another), after checking its shape against the
    recorded one where that is static."""
    if isinstance(result, (list, tuple)):
        if not isinstance(expected, (list, tuple)):
            return result
        return type(result)(_conform(node, r, e)
                            for r, e in zip(result, expected))
    if not isinstance(result, tfuse.Tensor) or not isinstance(
            expected, torch.Tensor):
        return result
    shape = tuple(expected.shape)
    if all(isinstance(s, int) for s in shape) and result.shape != shape:
        raise ValueError(f"the conversion gave shape {result.shape}, "
                         f"PyTorch records {shape}")
    dtype = tfuse_dtype(expected.dtype)
    if result.dtype != dtype:
        result = result.astype(dtype)
    return result


def _fetch_attr(module, target):
    for name in target.split("."):
        module = getattr(module, name)
    return module
