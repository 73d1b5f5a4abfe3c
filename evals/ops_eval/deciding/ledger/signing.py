"""The secret that signs the hash-chained logs (the gate ledger, the calibration reports), and
what a reader of an unsigned one can rely on.

A chain alone has no secret: anyone who can write the file can edit a line and recompute every
hash after it. With `OPS_LEDGER_KEY` set, each line carries `sig`, an HMAC-SHA256 of its hash
(which covers its content and, through `prev`, every line before it); `ledger.verify` refuses a
line without the key's signature. Without it, `trust` says in words what a local forger can do.
"""

from __future__ import annotations

import hashlib
import hmac
from pathlib import Path

from ...base.exits import EXIT_BAD_INPUT, OpsEvalError

KEY_VAR = "OPS_LEDGER_KEY"
MIN_KEY_CHARS = 16


def signing_key() -> bytes | None:
    """The key that signs the ledgers (`OPS_LEDGER_KEY`), or None when unset; LedgerError
    (exit 2) when it is too short to be a secret."""
    from ...base.settings import current

    secret = current().ledger_key
    if secret is None:
        return None
    key = secret.get_secret_value()
    if len(key) < MIN_KEY_CHARS:
        raise OpsEvalError(
            EXIT_BAD_INPUT,
            f"{KEY_VAR}: {len(key)} characters; a signing key has at least {MIN_KEY_CHARS}",
        )
    return key.encode()


def signature(key: bytes, line_hash: str) -> str:
    """A line's `sig`: HMAC-SHA256 of its hash (which covers its content and, through `prev`,
    every line before it) under `key`."""
    return hmac.new(key, line_hash.encode(), hashlib.sha256).hexdigest()


def trust(path: Path, key: bytes | None) -> str:
    """What the file's reader can rely on, in words, for the commands to print."""
    if key is not None:
        return (
            f"{path} is signed ({KEY_VAR}): a line without its key's signature is refused; only "
            "cutting lines off its end goes unseen"
        )
    return (
        f"{path} is not signed ({KEY_VAR} unset): an edited line is refused, but anyone who can "
        "write the file can rewrite a line and recompute the chain after it (a verdict, pin, "
        f"override or calibration report then counts); set {KEY_VAR} to sign it"
    )
