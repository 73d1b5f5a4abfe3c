"""Deciding from run records: the regression gate (`gate`), the readers of answers (the scorers
that read words, the answer guard) measured against labelled answers (`readers`), and the
append-only, hash-chained ledger the gate and the judge's calibration keep their decisions in
(`ledger`); beside them, whether a state store file's own hash-chained audit trail is intact
(`store_audit`). The judge -- its calibration, A/B by it, and the gate's judge check -- is the
`judging` layer above.

May import: every layer below `deciding` (`base` to `running`).
"""

from __future__ import annotations

from ..base.exports import lazy_getattr

# Its public names, each loaded on first use: importing the package costs nothing.
_EXPORTS = {
    "verify_store": "store_audit",
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_getattr(__name__, _EXPORTS)
