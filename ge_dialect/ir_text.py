"""IR text as `mlir-opt` writes it: elided and resource-blob constants.

Two printing options for large dense constants, with MLIR's spelling:

- eliding (`--mlir-elide-elementsattrs-if-larger=N`): a non-splat constant of
  more than N elements prints as `dense_resource<__elided__> : tensor<...>`;
  the text is for reading, it cannot be read back;
- resources (`--mlir-print-elementsattrs-as-resources-if-larger=N`): a non-splat
  constant of more than N elements prints as `dense_resource<KEY>` and its bytes
  go to the file's resource section, which MLIR tools (`iree-opt`) read:

      %w = ge.const {value = dense_resource<conv1.weight> : tensor<4x3xf32>} ...
      {-#
        dialect_resources: {
          builtin: {
            conv1.weight: "0x04000000<the little-endian bytes, hex>"
          }
        }
      #-}

  A blob is MLIR's: the alignment as a little-endian uint32, then the data.
  `ResourceReadingParser` reads such a file back into ordinary dense constants.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable
from typing import IO

from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface
from xdsl.dialects.builtin import (
    BytesAttr,
    DenseIntOrFPElementsAttr,
    StringAttr,
    TensorType,
    VectorType,
)
from xdsl.ir import Attribute, Dialect, Operation
from xdsl.parser import Parser
from xdsl.parser.generic_parser import ParserState
from xdsl.printer import Printer
from xdsl.utils.lexer import Input
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

ELIDED = "__elided__"
"""The resource key MLIR prints for an elided constant."""

_KEY_CHARACTERS = re.compile(r"[^A-Za-z0-9_.]")
_ESCAPED_BYTES = re.compile(rb"[^\x20-\x21\x23-\x5B\x5D-\x7E]+")
"""Bytes a string literal escapes: outside printable ASCII, `"` and `\\`."""


def blob_text(attr: DenseIntOrFPElementsAttr) -> str:
    """MLIR's resource blob of `attr`: `0x`, alignment (uint32 LE), the bytes."""
    alignment = attr.get_element_type().compile_time_size
    return "0x" + (alignment.to_bytes(4, "little") + attr.data.data).hex().upper()


def blob_data(blob: str) -> bytes:
    """The data of a resource blob (without its alignment word)."""
    return bytes.fromhex(blob[2:])[4:]


class IRPrinter(Printer):
    """xDSL's printer with `mlir-opt`'s options for large dense constants.

    `elide_elements_if_larger` and `resources_if_larger` are element counts
    (None: off); splats are never elided or moved (they are one element).
    """

    def __init__(
        self,
        stream: IO[str] | None = None,
        *,
        elide_elements_if_larger: int | None = None,
        resources_if_larger: int | None = None,
        **options: bool,
    ) -> None:
        super().__init__(stream, **options)
        self.elide_elements_if_larger = elide_elements_if_larger
        self.resources_if_larger = resources_if_larger
        self._blobs: dict[str, str] = {}
        self._key_of_blob: dict[str, str] = {}
        self._ops: list[Operation] = []

    def print_op(self, op: Operation) -> None:
        self._ops.append(op)
        try:
            super().print_op(op)
        finally:
            self._ops.pop()

    def print_bytes_literal(self, bytestring: bytes) -> None:
        """xDSL's escaping (`\\\\`, `\\XX` outside printable ASCII and for
        `"`), done per run of such bytes, not per byte (a 64 MiB string took
        minutes)."""
        text = _ESCAPED_BYTES.sub(
            lambda m: "".join(
                "\\\\" if b == 0x5C else f"\\{b:02X}" for b in m.group()
            ).encode(),
            bytestring,
        )
        self.print_string(f'"{text.decode("ascii")}"')

    def print_attribute(self, attribute: Attribute) -> None:
        if isinstance(attribute, DenseIntOrFPElementsAttr) and (
            key := self._resource_key(attribute)
        ):
            self.print_string(f"dense_resource<{key}> : ")
            self.print_attribute(attribute.get_type())
            return
        super().print_attribute(attribute)

    def _resource_key(self, attr: DenseIntOrFPElementsAttr) -> str | None:
        """The key `attr` prints under, or None to print it inline."""
        elide, move = self.elide_elements_if_larger, self.resources_if_larger
        count = len(attr)
        if not any(limit is not None and count > limit for limit in (elide, move)):
            return None
        if attr.is_splat():
            return None
        if elide is not None and count > elide:
            return ELIDED
        blob = blob_text(attr)
        if blob not in self._key_of_blob:
            key = self._fresh_key()
            self._blobs[key] = blob
            self._key_of_blob[blob] = key
        return self._key_of_blob[blob]

    def _fresh_key(self) -> str:
        """A key from the printed op's `name` or symbol (else `cst`), unique."""
        op = self._ops[-1] if self._ops else None
        name = None
        if op is not None:
            name = op.attributes.get("name") or op.properties.get("sym_name")
        stem = (
            _KEY_CHARACTERS.sub("_", name.data) if isinstance(name, StringAttr) else ""
        )
        if not stem or stem[0].isdigit() or stem == ELIDED:
            stem = f"cst{stem}"
        key, counter = stem, 0
        while key in self._blobs:
            key, counter = f"{stem}_{counter}", counter + 1
        return key

    def print_metadata(self, dialects: Iterable[Dialect]) -> None:
        """The file's resource section: blobs printed here and ones parsed earlier."""
        resources: dict[str, dict[str, str]] = {}
        for dialect in dialects:
            interface = dialect.get_interface(OpAsmDialectInterface)
            keys = self._dialect_resources.get(dialect.name)
            if interface is not None and keys:
                resources[dialect.name] = interface.build_resources(keys)
        if self._blobs:
            resources.setdefault("builtin", {}).update(self._blobs)
        resources = {name: blobs for name, blobs in resources.items() if blobs}
        if not resources:
            return
        lines = ["", "", "{-#", "  dialect_resources: {"]
        for position, (dialect_name, blobs) in enumerate(resources.items()):
            lines.append(f"    {dialect_name}: {{")
            entries = [f'      {key}: "{blob}"' for key, blob in sorted(blobs.items())]
            lines.append(",\n".join(entries))
            lines.append("    }" + ("," if position < len(resources) - 1 else ""))
        lines += ["  }", "#-}"]
        self.print_string("\n".join(lines))


def print_module(
    module: Operation,
    dialects: Iterable[Dialect] = (),
    *,
    elide_elements_if_larger: int | None = None,
    resources_if_larger: int | None = None,
    **options: bool,
) -> str:
    """The text of `module` and its resource section, with a final newline.

    `dialects` are the ones whose parsed resources may be referenced; `options`
    are xDSL `Printer` flags (`print_generic_format=True`, ...).
    """
    stream = io.StringIO()
    printer = IRPrinter(
        stream,
        elide_elements_if_larger=elide_elements_if_larger,
        resources_if_larger=resources_if_larger,
        **options,
    )
    printer.print_op(module)
    printer.print_metadata(dialects)
    stream.write("\n")
    return stream.getvalue()


class LinearStringLexer(MLIRLexer):
    """xDSL's lexer with a string-literal pattern that takes linear time and
    constant memory: its own nests a `+` inside a `*`, so a long string left
    open on its line backtracks exponentially (a hang on hostile input), and a
    backtracking `*` keeps state per character (a 64 MiB string took 3 GB).
    The possessive quantifiers never backtrack."""

    _unescaped_characters_regex = re.compile(
        r'"(?:[^"\\\n\v\f]++|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"'
    )


class LinearParser(Parser):
    """xDSL's parser reading `text` with `LinearStringLexer`."""

    def __init__(self, ctx, text: str, name: str = "<unknown>") -> None:  # noqa: ANN001
        super().__init__(ctx, "", name)  # its own lexer never sees `text`
        self._parser_state = ParserState(LinearStringLexer(Input(text, name)))


class ResourceReadingParser(LinearParser):
    """A parser that reads `dense_resource<KEY>` of a builtin blob as the dense
    constant it holds (the blob section is read first, wherever it is)."""

    def __init__(self, ctx, text: str, name: str = "<unknown>") -> None:  # noqa: ANN001
        super().__init__(ctx, text, name)
        self._builtin_blobs = _builtin_blobs(ctx, text, name)

    def parse_dense_int_or_fp_elements_attr(
        self,
        type: TensorType | VectorType | None,  # noqa: A002 - xDSL's name
    ) -> DenseIntOrFPElementsAttr:
        """xDSL's, with running out of memory (a splat within the budget but
        beyond what the process can get) located at the literal."""
        start = self._current_token.span.start
        try:
            return super().parse_dense_int_or_fp_elements_attr(type)
        except MemoryError:
            what = "dense literal" if type is None else f"dense literal of {type}"
            self.raise_error(
                f"{what}: out of memory (within the memory budget, but more "
                "than this process can allocate)",
                start,
                self.pos,
            )

    def _parse_builtin_dense_resource_attr(self) -> Attribute:
        start = self._current_token.span.start
        self.parse_characters("<", " in dense_resource attribute")
        key = self.parse_identifier(context_msg=" for resource handle")
        self.parse_characters(">", " in dense_resource attribute")
        self.parse_characters(":", " in dense_resource attribute")
        tensor = self.parse_type()
        if key == ELIDED:
            self.raise_error(
                "an elided constant (dense_resource<__elided__>) cannot be read "
                "back; print without --mlir-elide-elementsattrs-if-larger",
                start,
                self.pos,
            )
        blob = self._builtin_blobs.get(key)
        if blob is None or not isinstance(tensor, TensorType | VectorType):
            self._resume_from(start)
            return super()._parse_builtin_dense_resource_attr()
        data = blob_data(blob)
        element_size = tensor.element_type.compile_time_size  # type: ignore[attr-defined]
        count = tensor.element_count()
        if len(data) != count * element_size:
            self.raise_error(
                f"resource '{key}' holds {len(data)} bytes, {tensor} needs "
                f"{count * element_size}",
                start,
                self.pos,
            )
        return DenseIntOrFPElementsAttr(tensor, BytesAttr(data))

    def _parse_resource(self, dialect_name: str, interface: OpAsmDialectInterface):
        if dialect_name != "builtin":
            return super()._parse_resource(dialect_name, interface)
        # Read in `__init__`; storing it in xDSL's process-wide table would rename
        # the key when another file uses it too.
        self.parse_identifier(context_msg=" for resource handle")
        self._parse_token(MLIRTokenKind.COLON, "expected `:`")
        self.parse_str_literal()


class _BlobReader(LinearParser):
    """Reads a file's resource section only, into `blobs` (builtin's)."""

    def __init__(self, ctx, text: str, name: str) -> None:  # noqa: ANN001
        super().__init__(ctx, text, name)
        self.blobs: dict[str, str] = {}

    def _parse_resource(self, dialect_name: str, interface: OpAsmDialectInterface):
        key = self.parse_identifier(context_msg=" for resource handle")
        self._parse_token(MLIRTokenKind.COLON, "expected `:`")
        value = self.parse_str_literal()
        if dialect_name == "builtin":
            if not value.startswith("0x"):
                self.raise_error(f"resource '{key}' is not a hex blob")
            self.blobs[key] = value


def _builtin_blobs(ctx, text: str, name: str) -> dict[str, str]:  # noqa: ANN001
    """The builtin resource blobs of `text`'s `{-# ... #-}` section (by key)."""
    start = _metadata_start(text)
    if start is None:
        return {}
    reader = _BlobReader(ctx, text, name)
    reader._resume_from(start)
    reader._parse_file_metadata_dictionary()
    return reader.blobs


def _metadata_start(text: str) -> int | None:
    """Where the file's `{-#` section starts: the last `{-#` outside a comment."""
    start = len(text)
    while (start := text.rfind("{-#", 0, start)) >= 0:
        line = text[text.rfind("\n", 0, start) + 1 : start]
        if "//" not in line and '"' not in line:
            return start
    return None
