"""The gate's ledger: an append-only, hash-chained JSONL log of verdicts, pins and overrides.

Why a chain: the ledger is evidence. An override says a human accepted a failed gate, a pin says
which run every later run is measured against; a line quietly edited, dropped or moved would
change what the gate decides next without anyone having decided it. Each line therefore carries
`prev`, the previous line's `hash`, and `hash`, the sha256 of its own canonical JSON (sorted keys,
compact separators, ASCII) without `hash`. Reading verifies every line: an edited line no longer
matches its hash, a removed, inserted or reordered one breaks the next line's `prev`, and a cut
short one does not parse or lacks its newline. Any of those is a LedgerError naming the line --
the gate never decides on a ledger it cannot trust. (Removing the *last* lines is the one change a
chain cannot see; a copy of the file, kept elsewhere, can.)

A chain has no secret, though: whoever can write the file can recompute it. `signing.py` holds
the key (`OPS_LEDGER_KEY`) that signs every line, and what an unsigned file lets a forger do.

Why a lock: two gate runs at once (two CI jobs on one runner) would each read the same last hash
and append a line pointing at it -- a forked chain that the next read refuses. An append holds an
exclusive `flock` from verifying the chain to the fsync of its one `write`, so appends are
serialised; a read holds a shared lock, so it never sees half a line.

What a line holds, and the rules between lines that every read checks (an override only where
`gate override` would have appended it), are in `entries.py`; overrides (who accepted a failed
verdict) in `overrides.py`.
The chain itself knows nothing of the gate: a `Ledger` reads its lines through the pydantic
adapter it is given, so another append-only record (the judge's calibration reports,
`calibration/reports.py`) is the same file format, locks and checks with its own line model.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import hmac
import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from ...base.exits import EXIT_BAD_INPUT, EXIT_INFRA, OpsEvalError, first_error, os_exit_code
from .entries import ENTRY_ADAPTER, AnyEntry, broken_rule
from .signing import KEY_VAR, signature, signing_key, trust

M = TypeVar("M", bound=BaseModel)
Rules = Callable[[list[Any]], "tuple[int, str] | None"]
"""Checks the entries of a file together: (index, why) of the first that breaks a rule."""

LEDGER_FILE = "gate-ledger.jsonl"
GENESIS = "0" * 64
# The ledger grows by a line (about half a kilobyte) per gate run and is never pruned: a cap far
# above any real ledger, so a wrong path (a disk image) is refused instead of read into memory.
MAX_BYTES = 512_000_000


def _append_only(what: str) -> str:
    return f"(the {what} is append-only; restore it from a copy)"


class LedgerError(OpsEvalError):
    """The ledger cannot be read or trusted: which file, which line, why. Exit 2; exit 3 when
    the machine failed (disk full, I/O error, read-only file system)."""

    def __init__(self, message: str, code: int = EXIT_BAD_INPUT) -> None:
        super().__init__(code, message)


_OPEN_ATTEMPTS = 5  # a ledger unlinked under a waiting appender: open it again, a few times


def canonical(data: dict[str, object]) -> bytes:
    """The bytes a hash is taken of: sorted keys, no spaces, ASCII only (so no two spellings of
    one text, and a line never depends on the file's encoding)."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def entry_hash(fields: dict[str, object]) -> str:
    """sha256 of the canonical JSON of a line without its `hash` and `sig` (with its `prev`)."""
    kept = {k: v for k, v in fields.items() if k not in ("hash", "sig")}
    return hashlib.sha256(canonical(kept)).hexdigest()


def _line(entry: BaseModel, prev: str, key: bytes | None) -> bytes:
    fields: dict[str, object] = {**entry.model_dump(mode="json"), "prev": prev}
    fields["hash"] = entry_hash(fields)
    if key is not None:
        fields["sig"] = signature(key, str(fields["hash"]))
    return canonical(fields) + b"\n"


def _problem(exc: ValidationError) -> str:
    return first_error(exc)[:300]


def verify(
    data: bytes,
    path: Path,
    adapter: TypeAdapter[Any] = ENTRY_ADAPTER,
    what: str = "ledger",
    key: bytes | None = None,
    rules: Rules | None = broken_rule,
) -> tuple[list[Any], str]:
    """(the entries, the last line's hash) of a ledger file's bytes, every line checked and read
    through `adapter`; the first line that breaks the chain is a LedgerError naming it. `what`
    names the file in messages. With `key`, every line must carry its signature; `rules`
    (the gate's by default) names the first entry that breaks a rule between entries."""

    def broken(number: int, why: str) -> LedgerError:
        return LedgerError(f"{path}: line {number}: {why} {_append_only(what)}")

    if b"\x00" in data:
        raise LedgerError(f"{path}: binary file (a NUL byte at offset {data.index(0)})")
    entries: list[AnyEntry] = []
    prev = GENESIS
    lines = data.split(b"\n")
    last = len(lines) - 1  # the text after the last newline: empty unless a write was cut short
    for index, raw in enumerate(lines):
        number = index + 1
        if index == last:
            if raw:
                raise broken(number, "incomplete (no newline at its end: a write was cut short)")
            break
        try:
            fields = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError:
            raise broken(number, "not UTF-8 text") from None
        except (ValueError, RecursionError):
            raise broken(number, "not a JSON object (cut short or edited)") from None
        if not isinstance(fields, dict):
            raise broken(number, "not a JSON object")
        stated, linked = fields.get("hash"), fields.get("prev")
        if not isinstance(stated, str) or not isinstance(linked, str):
            raise broken(number, "has no hash or prev")
        try:
            digest = entry_hash(fields)  # re-encodes the line: a deep nesting recurses
        except RecursionError:
            raise broken(number, f"nested too deeply to be a {what} entry") from None
        if digest != stated:
            raise broken(number, "does not match its hash (the line was edited)")
        if linked != prev:
            where = "the start of the ledger" if index == 0 else f"line {number - 1}"
            raise broken(
                number,
                f"its prev does not match {where} (a line was removed, inserted or reordered)",
            )
        if key is not None:
            sig = fields.get("sig")
            if sig is None:
                raise LedgerError(
                    f"{path}: line {number}: not signed, and {KEY_VAR} is set: it was not "
                    f"written with the key (a {what} begun without the key is refused under "
                    "one; start a new file)"
                )
            if not isinstance(sig, str) or not hmac.compare_digest(sig, signature(key, stated)):
                raise broken(number, f"its signature is not the {KEY_VAR} key's (forged or edited)")
        body = {k: v for k, v in fields.items() if k not in ("hash", "prev", "sig")}
        try:
            entries.append(adapter.validate_python(body, strict=True))
        except ValidationError as exc:
            raise broken(number, f"not a {what} entry ({_problem(exc)})") from None
        except RecursionError:
            raise broken(number, f"nested too deeply to be a {what} entry") from None
        prev = stated
    found = rules(entries) if rules is not None else None
    if found is not None:
        raise broken(found[0] + 1, found[1])
    return entries, prev


def _check_regular(info: os.stat_result, path: Path, what: str = "ledger") -> None:
    if stat.S_ISDIR(info.st_mode):
        raise LedgerError(f"{path}: is a folder, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise LedgerError(f"{path}: is not a regular file")
    if info.st_size > MAX_BYTES:
        raise LedgerError(f"{path}: larger than {MAX_BYTES:,} bytes; not a {what}")


def _read_all(fd: int, path: Path, what: str = "ledger") -> bytes:
    _check_regular(os.fstat(fd), path, what)
    chunks: list[bytes] = []
    offset = 0
    while chunk := os.pread(fd, 1 << 20, offset):
        chunks.append(chunk)
        offset += len(chunk)
        if offset > MAX_BYTES:
            raise LedgerError(f"{path}: larger than {MAX_BYTES:,} bytes; not a {what}")
    return b"".join(chunks)


def _cannot(path: Path, exc: OSError) -> LedgerError:
    if exc.errno == errno.EISDIR:
        return LedgerError(f"{path}: is a folder, not a file")
    if exc.errno == errno.ELOOP:
        return LedgerError(f"{path}: is a symbolic link; the ledger is a plain file")
    return LedgerError(f"{path}: cannot read or write ({exc.strerror or exc})", os_exit_code(exc))


class Ledger:
    """The ledger at `path`. A missing file is an empty ledger; every read verifies the whole
    chain (nothing is remembered between reads: a ledger is small, and a check skipped on a
    remembered copy would be a check not made), every append verifies it again under the lock."""

    def __init__(
        self,
        path: Path,
        adapter: TypeAdapter[Any] = ENTRY_ADAPTER,
        what: str = "ledger",
        rules: Rules | None = broken_rule,
    ) -> None:
        """`adapter` reads a line's fields and `rules` checks the entries together (the gate's
        by default); `what` names the file in messages."""
        self.path = Path(path)
        self.adapter = adapter
        self.what = what
        self.rules = rules

    def __repr__(self) -> str:
        return f"Ledger({str(self.path)!r})"

    @property
    def folder(self) -> Path:
        """Where pinned copies go (`baselines/`), and what a pin's path is relative to."""
        return self.path.parent

    def entries(self) -> list[Any]:
        """Every entry (as `adapter` reads it: the gate's `AnyEntry` by default), oldest first,
        the chain verified; LedgerError when it cannot be."""
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW)
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise _cannot(self.path, exc) from None
        try:
            _check_regular(os.fstat(fd), self.path, self.what)
            fcntl.flock(fd, fcntl.LOCK_SH)  # an append in progress finishes first
            data = _read_all(fd, self.path, self.what)
        except OSError as exc:
            raise _cannot(self.path, exc) from None
        finally:
            os.close(fd)
        return verify(data, self.path, self.adapter, self.what, signing_key(), self.rules)[0]

    def trust(self) -> str:
        """What a reader of this file can rely on (`trust`), for a command to print."""
        return trust(self.path, signing_key())

    def append(self, entry: M) -> M:
        """Append one entry after verifying the chain; returns it."""
        return self.append_with(lambda _: entry)

    def append_with(self, make: Callable[[list[Any]], M]) -> M:
        """Append the entry `make` builds from the verified entries, all under the exclusive
        lock: a check that `make` makes (is this override the first?) cannot be raced. `make`
        may raise to append nothing."""
        key = signing_key()
        for _ in range(_OPEN_ATTEMPTS):
            fd, created = self._open_locked()
            if fd is not None:
                break
        else:
            raise LedgerError(f"{self.path}: kept being replaced while opened", EXIT_INFRA)
        written = 0
        try:
            data = _read_all(fd, self.path, self.what)
            entries, prev = verify(data, self.path, self.adapter, self.what, key, self.rules)
            entry = make(entries)
            line = _line(entry, prev, key)
            written = os.write(fd, line)  # O_APPEND: at the end, in one write
            if written != len(line):
                os.ftruncate(fd, os.fstat(fd).st_size - written)  # never leave half a line
                written = 0
                raise LedgerError(
                    f"{self.path}: could not write a whole line (disk full?)", EXIT_INFRA
                )
            os.fsync(fd)
        except OSError as exc:
            raise _cannot(self.path, exc) from None
        finally:
            if created and not written and os.fstat(fd).st_size == 0:
                # Refused or failed: leave no empty ledger. Under the lock, so an appender
                # waiting on this file sees it unlinked (`_open_locked`) and opens it anew.
                self.path.unlink(missing_ok=True)
            os.close(fd)
        if created:
            _fsync_folder(self.folder)
        return entry

    def _open_locked(self) -> tuple[int | None, bool]:
        """(the ledger open for appending, under the exclusive lock; whether this call created
        it) -- or (None, _) when the file was unlinked or replaced while the lock was awaited,
        for the caller to open it again: appending to an unlinked file would lose the line."""
        flags = os.O_RDWR | os.O_APPEND | os.O_CLOEXEC | os.O_NOFOLLOW
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            try:  # O_EXCL: exactly one appender knows it made the file (and may remove it)
                fd, created = os.open(self.path, flags | os.O_CREAT | os.O_EXCL, 0o644), True
            except FileExistsError:
                fd, created = os.open(self.path, flags), False
        except FileNotFoundError:  # made and removed again between the two opens
            return None, False
        except OSError as exc:
            raise _cannot(self.path, exc) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            held, named = os.fstat(fd), os.stat(self.path, follow_symlinks=False)
        except FileNotFoundError:
            os.close(fd)
            return None, created
        except OSError as exc:
            os.close(fd)
            raise _cannot(self.path, exc) from None
        if (held.st_dev, held.st_ino) != (named.st_dev, named.st_ino):
            os.close(fd)
            return None, created
        return fd, created


def _fsync_folder(folder: Path) -> None:
    """The new file's name is durable too, not only its content."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def default_ledger() -> Ledger:
    """The ledger beside the run records: `runs/gate-ledger.jsonl` (OPS_RUNS_DIR moves both)."""
    from ...base.settings import current

    return Ledger(current().runs_dir / LEDGER_FILE)
