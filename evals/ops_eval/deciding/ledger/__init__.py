"""The append-only, hash-chained log of decisions (`chain`), what its lines hold -- a gate
verdict, a pin, an override -- and the rules between them (`entries`), and the HMAC signature a
line carries when OPS_LEDGER_KEY is set (`signing`). The gate ledger and the calibration report
log are both kept this way.

May import: `base` (and nothing else of the deciding layer: the gate and calibration import it).
"""

from __future__ import annotations

from ...base.exports import lazy_getattr

# Its public names, each loaded on first use: importing the package costs nothing.
_EXPORTS = {
    "default_ledger": "chain",
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_getattr(__name__, _EXPORTS)
