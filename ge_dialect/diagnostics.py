"""The one-line diagnostics every tool and pass reports (no xDSL, no IR).

Every user-facing error in the project is a `GEError` whose message is a
single line `FILE:LINE:COL: error: ...`. The tools print it and exit 1.
Locating an error at an op is `ge_dialect.locations`; parsing and verifying
IR with such errors is `ge_dialect.parsing` and `ge_dialect.verification`.
"""

from __future__ import annotations


class GEError(Exception):
    """A user-facing error whose `str` is one complete diagnostic line."""


def printable(text: str) -> str:
    """`text` with control characters escaped (`\\x00`), safe to print."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
