"""Where each runtime TransData sits and why it could not move.

The format passes record **refusals** as they decide: an op that could not
run in a layout says so, with the pass and the reason
(`select-storage-format`: its op information lists no FRACTAL_NZ
combination, or the combination's dtypes, broadcast or alignment condition
failed, or the spread never reached it; `sink-trans-ops`: the op is not
layout-agnostic, or moving its region would not remove a relayout;
`fuse-confusion-transpose`: the head split does not start at a FRACTAL_NZ
TransData, or would not move whole fractals). Recording costs nothing unless
a ledger is active:

```python
with recording_refusals() as ledger:
    compile_module(...)           # fills ledger.sites
for site in ledger.sites:
    print(site.text())
```
```
ND->FRACTAL_NZ node_transpose_1 -> node_scaled_dot_product_attention
  node_transpose_1 (ge.transpose) refused FRACTAL_NZ
    select-storage-format: its op information lists no FRACTAL_NZ combination
  node_scaled_dot_product_attention (ge.batch_matmul) refused origin
    select-storage-format: a heavy op runs in its preferred combination
```

A TransData from layout A to layout B has a **producer** that refused to
write B and **consumers** that refused to read A; the report lists those
refusals (an origin layout is keyed as "origin": ND, NCHW, ...). The
optimisation passes run to a fixed point, so the refusals of the last round
are the ones that hold for the TransData that remain: `FormatPipelinePass`
forgets the earlier rounds' and keeps each remaining TransData's reasons
(`settle`); `ge_xdsl.atc.compile_module` lists the compiled graph's sites
with them (`ledger.sites`, neighbours named as after UB fusion).
`ge-atc --report-transdata` prints them; bench/bench_models.py records the
same sites under a ledger of its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue

from ge_dialect.formats import INTERNAL_FORMATS, Format
from ge_dialect.layout import layout_attr
from ge_dialect.naming import node_label
from ge_dialect.ops import ConstOp, TransDataOp

ORIGIN = "origin"
"""The key of a value's origin layout (ND, NCHW, ...) among the refused formats."""


def format_key(value: SSAValue) -> str:
    """The storage format `value` is written in, or ORIGIN for an origin layout."""
    storage = layout_attr(value.type).storage_format
    return storage.name if storage in INTERNAL_FORMATS else ORIGIN


def layout_key(storage: Format | None) -> str:
    """The key of a storage format (None or an origin format: ORIGIN)."""
    return storage.name if storage in INTERNAL_FORMATS else ORIGIN


@dataclass
class TransDataLedger:
    """Refusals recorded by the format passes, and the final sites."""

    refusals: dict[tuple[Operation, str, str], str] = field(default_factory=dict)
    """(op, refused format key, pass name) -> why (the last word wins)."""
    decided: dict[Operation, tuple[str, ...]] = field(default_factory=dict)
    """Each runtime TransData at the end of the format pipeline -> its reasons
    (the later stages keep the op and rename its neighbours)."""
    sites: list[TransDataSite] = field(default_factory=list)
    """The runtime TransData of the compiled graph (`ge_xdsl.atc` fills it)."""

    def settle(self, module: ModuleOp) -> None:
        """Keep the reasons of every runtime TransData of `module` as they are
        now (the format pipeline's end)."""
        self.decided = {
            op: tuple(site_reasons(op, self))
            for op in module.walk()
            if isinstance(op, TransDataOp) and is_runtime_transdata(op)
        }

    def forget(self, pass_names: set[str]) -> None:
        """Drop what `pass_names` recorded (a new optimisation round decides again)."""
        self.refusals = {
            k: v for k, v in self.refusals.items() if k[2] not in pass_names
        }

    def reasons(self, op: Operation, key: str) -> list[str]:
        """`PASS: why` for each refusal of `op` to take format `key`."""
        return [
            f"{name}: {why}"
            for (refuser, refused, name), why in self.refusals.items()
            if refuser is op and refused == key
        ]


REFUSALS: ContextVar[TransDataLedger | None] = ContextVar("REFUSALS", default=None)
"""The active ledger (None: nothing is recorded)."""


def refuse(
    op: Operation, storage: Format | str | None, pass_name: str, why: str
) -> None:
    """Record that `op` did not take `storage` (None: its origin layout)."""
    ledger = REFUSALS.get()
    if ledger is None:
        return
    key = storage if isinstance(storage, str) else layout_key(storage)
    ledger.refusals[(op, key, pass_name)] = why


def recording() -> bool:
    """Whether a ledger is active (a pass may skip working out its reasons)."""
    return REFUSALS.get() is not None


@contextmanager
def recording_refusals() -> Iterator[TransDataLedger]:
    """Activate a fresh ledger for the passes run inside the block."""
    ledger = TransDataLedger()
    token = REFUSALS.set(ledger)
    try:
        yield ledger
    finally:
        REFUSALS.reset(token)


@dataclass(frozen=True)
class TransDataSite:
    """One runtime TransData: its formats, neighbours, and why it stayed."""

    formats: str
    producer: str
    consumers: tuple[str, ...]
    reasons: tuple[str, ...] = ()

    def line(self) -> str:
        """`SRC->DST producer -> consumers` (bench/ lists these)."""
        return f"{self.formats} {self.producer} -> {', '.join(self.consumers)}"

    def text(self) -> str:
        """The line, then one indented line per refusal."""
        return "\n".join([self.line(), *(f"  {reason}" for reason in self.reasons)])


def describe(op: Operation) -> str:
    """`label (op name)`."""
    return f"{node_label(op)} ({op.name})"


def value_source(value: SSAValue) -> str:
    """The label of the op defining `value` ("input" for a block argument)."""
    owner = value.owner
    return node_label(owner) if isinstance(owner, Operation) else "input"


def is_runtime_transdata(op: Operation) -> bool:
    """A `ge.transdata` that runs at run time (its operand is not a constant)."""
    return isinstance(op, TransDataOp) and not isinstance(op.x.owner, ConstOp)


def site_reasons(op: TransDataOp, ledger: TransDataLedger) -> list[str]:
    """The producer's refusals of the result layout, then each consumer's of
    the input's: an `OP refused FORMAT` line, then one `PASS: why` line each."""
    wanted, have = format_key(op.y), format_key(op.x)
    refusers: list[tuple[Operation, str]] = []
    if isinstance(op.x.owner, Operation):
        refusers.append((op.x.owner, wanted))
    users = dict.fromkeys(use.operation for use in op.y.uses)
    refusers += [(user, have) for user in users]
    lines = []
    for refuser, key in refusers:
        if reasons := ledger.reasons(refuser, key):
            lines.append(f"{describe(refuser)} refused {key}")
            lines += [f"  {why}" for why in reasons]
    return lines or ["no refusal recorded"]


def transdata_sites(
    module: ModuleOp, ledger: TransDataLedger | None = None
) -> list[TransDataSite]:
    """Every runtime TransData of `module` (with `ledger`: and its reasons)."""
    sites = []
    for op in module.walk():
        if not is_runtime_transdata(op):
            continue
        assert isinstance(op, TransDataOp)
        source = value_source(op.x)
        users = tuple(sorted({node_label(use.operation) for use in op.y.uses}))
        formats = f"{op.src_format.data.name}->{op.dst_format.data.name}"
        reasons: tuple[str, ...] = ()
        if ledger is not None:
            reasons = ledger.decided.get(op) or tuple(site_reasons(op, ledger))
        sites.append(TransDataSite(formats, source, users, reasons))
    return sites
