"""Graph pictures and per-stage IR dumps (`ge-atc`/`ge-opt --dump-graph DIR`).

`graph_dot(module)` draws every `ge.graph` as a Graphviz digraph: one node per
op, one edge per use of a value. What matters when layouts go wrong is
visible at a glance:

- each edge (a value) is coloured by its **storage format** and labelled
  with its origin shape, dtype and `origin/storage` formats;
- each op is filled with the colour of the storage format it writes;
- `ge.transdata` is highlighted (red, bold, labelled `SRC -> DST`), `ge.cast`
  likewise in a lighter tone;
- subgraph regions of control-flow ops are nested clusters;
- a legend lists the formats the picture uses.

`dump_stage(directory, index, stage, module)` writes `NN-STAGE.mlir` and
`NN-STAGE.dot`, and renders `NN-STAGE.svg` and `NN-STAGE.png` when Graphviz's
`dot` program is installed (the `.dot` file is always written; render it later
with `dot -Tsvg FILE.dot -o FILE.svg`). `ge-atc --dump-graph DIR` dumps each
compilation stage, `ge-opt --dump-graph DIR` its input and each pass.

Pictures keep to a time budget whatever the graph's size: a module of more
than `PICTURE_OP_LIMIT` ops is not rendered (Graphviz takes minutes on a
12-layer GPT-2's 1,400 ops, for each of its 38 stages), nor is a rendering
that runs past `RENDER_TIMEOUT`; a log line says which stage was skipped and
the `dot` command that draws it.
"""

from __future__ import annotations

import logging
import shutil
import subprocess
from pathlib import Path

import graphviz
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Block, Operation, SSAValue

from ge_dialect.files import write_atomically
from ge_dialect.formats import Format
from ge_dialect.layout import layout_of, shape_of
from ge_dialect.naming import node_name
from ge_dialect.ops import CastOp, ConstOp, DataOp, GraphOp, NetOutputOp, TransDataOp
from ge_runtime.offline.om_ir import module_text

FORMAT_COLOURS: dict[Format, str] = {
    Format.ND: "#9e9e9e",
    Format.NCHW: "#1f77b4",
    Format.NHWC: "#17becf",
    Format.HWCN: "#8c564b",
    Format.CHWN: "#bcbd22",
    Format.NCDHW: "#393b79",
    Format.NDHWC: "#5254a3",
    Format.DHWCN: "#6b6ecf",
    Format.NC1HWC0: "#ff7f0e",
    Format.NDC1HWC0: "#e6550d",
    Format.FRACTAL_Z: "#2ca02c",
    Format.FRACTAL_Z_3D: "#31a354",
    Format.FRACTAL_NZ: "#9467bd",
    Format.C1HWNCoC0: "#e377c2",
    Format.NC1HWC0_C04: "#fdae6b",
    Format.FRACTAL_Z_C04: "#74c476",
}
"""Edge colour of a value by storage format (op fills use a light tint)."""

LOG = logging.getLogger(__name__)

LINE_BREAK = "\\n"
"""A line break inside a Graphviz label (DOT's escape, kept on one text line)."""

UNKNOWN_COLOUR = "#000000"
TRANSDATA_STYLE = {
    "shape": "box",
    "style": "filled,bold",
    "fillcolor": "#d62728",
    "fontcolor": "white",
    "penwidth": "3",
}
CAST_STYLE = {"shape": "box", "style": "filled,bold", "fillcolor": "#ff9896"}
DATA_STYLE = {"shape": "ellipse", "style": "filled"}
CONST_STYLE = {"shape": "note", "style": "filled", "fontsize": "9"}
OUTPUT_STYLE = {"shape": "doubleoctagon", "style": "filled", "fillcolor": "#eeeeee"}
OP_STYLE = {"shape": "box", "style": "filled,rounded"}


def format_colour(fmt: Format) -> str:
    """The colour of a storage format."""
    return FORMAT_COLOURS.get(fmt, UNKNOWN_COLOUR)


def tint(colour: str) -> str:
    """A light version of `#rrggbb` (for node fills)."""
    if not colour.startswith("#"):
        return colour
    channels = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{(c + 3 * 255) // 4:02x}" for c in channels)


def value_label(value: SSAValue) -> str:
    """`1x17x16x16xf32` and `NCHW/NC1HWC0` on two label lines."""
    tensor = value.type
    if not isinstance(tensor, TensorType):
        return str(tensor)
    dims = "x".join("?" if d == -1 else str(d) for d in shape_of(tensor))
    origin, storage = layout_of(tensor)
    formats = origin.value if origin == storage else f"{origin.value}/{storage.value}"
    return f"{dims}x{tensor.element_type}{LINE_BREAK}{formats}"


def storage_format(value: SSAValue) -> Format:
    """The storage format of a tensor value (ND for anything else)."""
    tensor = value.type
    return layout_of(tensor)[1] if isinstance(tensor, TensorType) else Format.ND


class DotWriter:
    """Draws the graphs of one module into a `graphviz.Digraph`."""

    def __init__(self, title: str):
        self.dot = graphviz.Digraph(
            name=title,
            graph_attr={"rankdir": "TB", "label": title, "labelloc": "t"},
            node_attr={"fontname": "Helvetica", "fontsize": "10"},
            edge_attr={"fontname": "Helvetica", "fontsize": "8", "penwidth": "2"},
        )
        self.ids: dict[Operation, str] = {}
        self.formats: set[Format] = set()

    def add_module(self, module: ModuleOp) -> graphviz.Digraph:
        """Draw every graph of `module`, then the legend."""
        for op in module.ops:
            if isinstance(op, GraphOp):
                with self.dot.subgraph(name=f"cluster_{op.sym_name.data}") as cluster:
                    cluster.attr(label=f"@{op.sym_name.data}", style="dashed")
                    self.add_block(cluster, op.body.block)
        self.add_legend()
        return self.dot

    def add_block(self, dot: graphviz.Digraph, block: Block) -> None:
        """Nodes for the ops of `block` (nested regions as clusters), then edges."""
        for op in block.ops:
            self.add_node(dot, op)
            for index, region in enumerate(op.regions):
                with dot.subgraph(name=f"cluster_{self.ids[op]}_{index}") as cluster:
                    owner = node_name(op) or op.name
                    cluster.attr(label=f"{owner} region {index}", style="dotted")
                    self.add_block(cluster, region.block)
        for op in block.ops:
            for operand in op.operands:
                self.add_edge(dot, operand, op)

    def add_node(self, dot: graphviz.Digraph, op: Operation) -> None:
        """One node for `op`, styled by its kind and the format it writes."""
        node = f"n{len(self.ids)}"
        self.ids[op] = node
        name = node_name(op)
        kind = op.name.removeprefix("ge.")
        label = f"{name}{LINE_BREAK}{kind}" if name else kind
        written = storage_format(op.results[0]) if op.results else Format.ND
        if op.results:
            self.formats.add(written)
        fill = {"fillcolor": tint(format_colour(written))}
        match op:
            case TransDataOp():
                src, dst = op.src_format.data.value, op.dst_format.data.value
                attrs = {
                    **TRANSDATA_STYLE,
                    "label": f"{label}{LINE_BREAK}{src} -> {dst}",
                }
            case CastOp():
                attrs = {**CAST_STYLE, "label": label}
            case DataOp():
                attrs = {**DATA_STYLE, **fill, "label": label}
            case ConstOp():
                attrs = {**CONST_STYLE, **fill, "label": name or "const"}
            case NetOutputOp():
                attrs = {**OUTPUT_STYLE, "label": label}
            case _:
                attrs = {**OP_STYLE, **fill, "label": label}
        dot.node(node, **attrs)

    def add_edge(self, dot: graphviz.Digraph, value: SSAValue, user: Operation) -> None:
        """One edge for a use of `value`, coloured by its storage format."""
        producer = value.owner
        if not isinstance(producer, Operation) or producer not in self.ids:
            return
        fmt = storage_format(value)
        self.formats.add(fmt)
        colour = format_colour(fmt)
        dot.edge(
            self.ids[producer],
            self.ids[user],
            label=value_label(value),
            color=colour,
            fontcolor=colour,
        )

    def add_legend(self) -> None:
        """A cluster with one swatch per storage format used."""
        with self.dot.subgraph(name="cluster_legend") as legend:
            legend.attr(label="storage formats", style="solid")
            for fmt in sorted(self.formats, key=lambda f: f.value):
                legend.node(
                    f"legend_{fmt.value}",
                    label=fmt.value,
                    shape="box",
                    style="filled",
                    fillcolor=tint(format_colour(fmt)),
                    color=format_colour(fmt),
                    penwidth="2",
                )


def graph_dot(module: ModuleOp, title: str = "module") -> graphviz.Digraph:
    """A Graphviz picture of every `ge.graph` in `module`."""
    return DotWriter(title).add_module(module)


PICTURE_FORMATS = ("svg", "png")
"""What `render` makes of a `.dot` file when Graphviz's `dot` is installed."""

PICTURE_OP_LIMIT = 400
"""The most ops a dumped stage is rendered with (Graphviz's layout time grows
much faster than the graph; 400 ops take a few seconds)."""

RENDER_TIMEOUT = 30.0
"""Seconds one picture may take to render before it is given up."""


def draw_command(dot_path: Path) -> str:
    """The command that renders `dot_path` as the dump would have."""
    return f"dot -Tsvg {dot_path} -o {dot_path.with_suffix('.svg')}"


def render(dot_path: Path, timeout: float = RENDER_TIMEOUT) -> list[Path]:
    """Render `dot_path` to `.svg` and `.png` next to it (none if `dot` is absent).

    A rendering that fails or takes more than `timeout` seconds is logged and
    leaves no file behind.
    """
    if shutil.which("dot") is None:
        LOG.debug("Graphviz 'dot' is not installed; not rendering %s", dot_path)
        return []
    pictures = []
    for picture_format in PICTURE_FORMATS:
        picture = dot_path.with_suffix(f".{picture_format}")
        try:
            subprocess.run(
                ["dot", f"-T{picture_format}", str(dot_path), "-o", str(picture)],
                check=True,
                capture_output=True,
                timeout=timeout,
            )
        except subprocess.CalledProcessError as error:
            message = " ".join(error.stderr.decode(errors="replace").split())
            LOG.warning("cannot render %s: %s", dot_path, message)
            picture.unlink(missing_ok=True)
            continue
        except subprocess.TimeoutExpired:
            LOG.warning(
                "%s: no picture, rendering took more than %g s (draw it with `%s`)",
                dot_path,
                timeout,
                draw_command(dot_path),
            )
            picture.unlink(missing_ok=True)
            break
        pictures.append(picture)
    return pictures


def dump_stage(
    directory: str | Path,
    index: int,
    stage: str,
    module: ModuleOp,
    picture_op_limit: int = PICTURE_OP_LIMIT,
) -> list[Path]:
    """Write the IR after a stage and its `.dot`, and render its picture when
    the module has at most `picture_op_limit` ops; returns the files written."""
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    stem = f"{index:02d}-{stage}"
    mlir = target / f"{stem}.mlir"
    dot = target / f"{stem}.dot"
    write_atomically(mlir, module_text(module))
    write_atomically(dot, graph_dot(module, f"{stem}").source)
    ops = sum(1 for _ in module.walk()) - 1  # not the module itself
    if ops > picture_op_limit:
        LOG.info(
            "%s: no picture of %d ops (more than %d); its IR and .dot are "
            "written (draw it with `%s`)",
            stem,
            ops,
            picture_op_limit,
            draw_command(dot),
        )
        return [mlir, dot]
    return [mlir, dot, *render(dot)]
