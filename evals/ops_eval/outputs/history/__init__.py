"""`ops-eval history`'s rows and formats: one row per run record, with each rate's
denominator and interval (`rows`), as a terminal table (`table`, the default), CSV, JSON or HTML
with a trend (`formats`), filtered and written (`export`; the mutation ledger's scores are the
`mutation` package's). The command is `commands.history`.

May import: the layers below `outputs`, and `outputs.report` (the HTML trend).
"""

from __future__ import annotations

from ...base.exports import lazy_getattr

# Its public names, each loaded on first use: importing the package costs nothing.
_EXPORTS = {
    "export_history": "export",
    "FORMATS": "formats",
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_getattr(__name__, _EXPORTS)
