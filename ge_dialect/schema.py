"""Declarative checks of JSON documents read from files (manifests, options).

A schema is built from a few node kinds and checks a parsed JSON value,
raising `SchemaError` naming the first offending field by its path:

```python
ENTRY = Object({"index": Integer(0), "name": String()}, optional={"name"})
ListOf(ENTRY).check(data, "inputs")
# SchemaError: inputs[1].index: expected an integer >= 0, got -1
```

`Object` rejects unknown keys, so a misspelt or forged field is an error
rather than silently ignored; booleans are never integers.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from ge_dialect.diagnostics import GEError


class SchemaError(ValueError):
    """A JSON value that does not match its schema (the message has the path)."""


def check_document(schema: Node, data: Any, label: str, what: str) -> None:
    """GEError `label: error: invalid WHAT: PATH: ...` unless `schema` accepts
    the parsed JSON `data`."""
    try:
        schema.check(data, "")
    except SchemaError as error:
        raise GEError(f"{label}: error: invalid {what}: {error}") from None


class Node:
    """A schema node: `check(value, path)` raises SchemaError or returns."""

    what: str = "a value"

    def check(self, value: Any, path: str) -> None:
        raise NotImplementedError

    def fail(self, value: Any, path: str) -> SchemaError:
        shown = repr(value) if len(repr(value)) <= 40 else f"{type(value).__name__}"
        return SchemaError(
            f"{path or 'the document'}: expected {self.what}, got {shown}"
        )


@dataclass(frozen=True)
class String(Node):
    """A string, optionally one of `choices` (or accepted by `valid`)."""

    choices: Collection[str] | None = None
    valid: Callable[[str], bool] | None = None
    label: str = ""

    @property
    def what(self) -> str:  # type: ignore[override]
        if self.label:
            return self.label
        if self.choices is not None:
            return "one of " + ", ".join(sorted(self.choices))
        return "a string"

    def check(self, value: Any, path: str) -> None:
        if not isinstance(value, str):
            raise self.fail(value, path)
        if self.choices is not None and value not in self.choices:
            raise self.fail(value, path)
        if self.valid is not None and not self.valid(value):
            raise self.fail(value, path)


@dataclass(frozen=True)
class Integer(Node):
    """An integer (not a boolean) in [minimum, maximum]."""

    minimum: int | None = None
    maximum: int | None = None

    @property
    def what(self) -> str:  # type: ignore[override]
        if self.minimum is not None and self.maximum is not None:
            return f"an integer in [{self.minimum}, {self.maximum}]"
        if self.minimum is not None:
            return f"an integer >= {self.minimum}"
        return "an integer"

    def check(self, value: Any, path: str) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(value, path)
        if self.minimum is not None and value < self.minimum:
            raise self.fail(value, path)
        if self.maximum is not None and value > self.maximum:
            raise self.fail(value, path)


@dataclass(frozen=True)
class Number(Node):
    """A finite or infinite JSON number (int or float, not a boolean)."""

    what: str = "a number"

    def check(self, value: Any, path: str) -> None:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(value, path)


@dataclass(frozen=True)
class Boolean(Node):
    """`true` or `false`."""

    what: str = "true or false"

    def check(self, value: Any, path: str) -> None:
        if not isinstance(value, bool):
            raise self.fail(value, path)


@dataclass(frozen=True)
class Nullable(Node):
    """`null` or what `inner` accepts."""

    inner: Node

    @property
    def what(self) -> str:  # type: ignore[override]
        return f"null or {self.inner.what}"

    def check(self, value: Any, path: str) -> None:
        if value is not None:
            self.inner.check(value, path)


@dataclass(frozen=True)
class ListOf(Node):
    """A list whose items `item` accepts (at most `max_length` of them)."""

    item: Node
    max_length: int | None = None

    @property
    def what(self) -> str:  # type: ignore[override]
        return f"a list (of {self.item.what})"

    def check(self, value: Any, path: str) -> None:
        if not isinstance(value, list):
            raise self.fail(value, path)
        if self.max_length is not None and len(value) > self.max_length:
            raise SchemaError(
                f"{path}: at most {self.max_length} items, got {len(value)}"
            )
        for index, item in enumerate(value):
            self.item.check(item, f"{path}[{index}]")


@dataclass(frozen=True)
class MapOf(Node):
    """An object with any string keys whose values `value` accepts."""

    value: Node

    @property
    def what(self) -> str:  # type: ignore[override]
        return f"an object (of {self.value.what})"

    def check(self, value: Any, path: str) -> None:
        if not isinstance(value, dict):
            raise self.fail(value, path)
        for key, item in value.items():
            self.value.check(item, f"{path}.{key}")


@dataclass(frozen=True)
class Object(Node):
    """An object with exactly the `fields` (those in `optional` may be absent)."""

    fields: Mapping[str, Node]
    optional: Collection[str] = field(default_factory=frozenset)
    what: str = "an object"

    def check(self, value: Any, path: str) -> None:
        if not isinstance(value, dict):
            raise self.fail(value, path)
        prefix = f"{path}." if path else ""
        if unknown := sorted(set(value) - set(self.fields)):
            raise SchemaError(f"{prefix}{unknown[0]}: unknown field")
        for key, node in self.fields.items():
            if key in value:
                node.check(value[key], f"{prefix}{key}")
            elif key not in self.optional:
                raise SchemaError(f"{prefix}{key}: missing field")


@dataclass(frozen=True)
class Anything(Node):
    """Any JSON value (a field whose content is checked elsewhere)."""

    def check(self, value: Any, path: str) -> None:
        return
