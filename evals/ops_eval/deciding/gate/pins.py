"""Pinned baselines: `ops-eval baseline pin RUN --name NAME` copies a run's record byte for
byte to `<ledger folder>/baselines/<run id>.json` and records the pin, with the copy's sha256,
in the ledger. A pin keeps meaning the same run when `runs/` is cleaned, and a copy changed
since is refused rather than silently compared with."""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from pathlib import Path

from ...base.exits import OpsEvalError
from ...base.inputs import bad_input
from ...results.runs import BASELINES, file_sha256, load, partial, resolve_run
from ..ledger.chain import Ledger
from ..ledger.entries import PIN_NAME, AnyEntry, PinEntry, pins
from .overrides import checked_name

NAME = re.compile(PIN_NAME)
# A run id becomes a file name under baselines/: nothing that could leave the folder.
_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


def _check_pin_name(name: str) -> str:
    if not NAME.fullmatch(name):
        raise bad_input(
            f"--name {name[:80]!r}: a pin name is 1 to 64 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit"
        )
    return name


def _copy(data: bytes, target: Path) -> None:
    """Write `target` whole or not at all: a temporary file beside it, fsynced, renamed."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    mask = os.umask(0)
    os.umask(mask)
    try:
        os.fchmod(fd, 0o666 & ~mask)  # as any record is written, not mkstemp's owner-only 0600
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def pin(
    ledger: Ledger, spec: str, name: str, by: str | None, *, runs_dir: Path | None = None
) -> PinEntry:
    """`ops-eval baseline pin RUN --name NAME`: copy the run's record byte for byte to
    `<ledger folder>/baselines/<run id>.json` and record the pin. Re-pinning a name appends a
    new pin; the latest wins. A run where every trial errored is refused: there is nothing to
    compare with (and the gate refuses a pin it cannot judge when it is used). `runs_dir`
    (default: the settings') is where RUN is looked up."""
    from opskit.textfiles import TextFileError, read_bytes

    from ...base.settings import current

    _check_pin_name(name)
    who = checked_name("--by", by) if by is not None else None
    path = resolve_run(spec, runs_dir or current().runs_dir)
    try:
        data = read_bytes(path)
    except TextFileError as exc:
        raise bad_input(f"run record {path}: {exc}") from None
    record = load(path, "run record")
    if hashlib.sha256(data).hexdigest() != file_sha256(path):
        raise bad_input(f"run record {path}: changed while it was being pinned; pin it again")
    if not any(t.status != "error" for t in record.trials):
        raise bad_input(
            f"run {record.run_id}: every trial errored; with no verdict it cannot be a baseline"
        )
    if why := partial(record):
        raise bad_input(f"run {record.run_id}: {why}; it cannot be a baseline")
    if not _SAFE_ID.fullmatch(record.run_id):
        raise bad_input(
            f"run record {path}: run id {record.run_id[:80]!r} cannot name a file; not pinned"
        )
    relative = f"{BASELINES}/{record.run_id}.json"
    digest = hashlib.sha256(data).hexdigest()

    def make(entries: list[AnyEntry]) -> PinEntry:
        target = ledger.folder / relative
        if target.exists() or target.is_symlink():
            try:
                same = (
                    target.is_file() and not target.is_symlink() and file_sha256(target) == digest
                )
            except OpsEvalError:
                same = False
            if not same:
                raise bad_input(
                    f"{target} already exists with other bytes than {path}; a pinned copy is "
                    "never overwritten (move it away if it is not pinned)"
                )
        else:
            _copy(data, target)
        return PinEntry(name=name, run=record.run_id, sha256=digest, path=relative, by=who)

    return ledger.append_with(make)


def resolve_pin(ledger: Ledger, name: str) -> tuple[Path, PinEntry]:
    """The pinned copy of the latest pin called `name`, checked against its sha256."""
    known = pins(ledger.entries())
    entry = known.get(name)
    if entry is None:
        listed = (
            f"pinned names: {', '.join(sorted(known))}"
            if known
            else "no baseline is pinned yet (`ops-eval baseline pin RUN --name NAME`)"
        )
        raise bad_input(f"no baseline is pinned as {name!r}; {listed}")
    path = ledger.folder / entry.path
    from opskit.textfiles import TextFileError, read_bytes

    try:
        intact = path.is_file() and hashlib.sha256(read_bytes(path)).hexdigest() == entry.sha256
    except (TextFileError, OSError):
        intact = False
    if not intact:
        raise bad_input(
            f"pinned baseline {name}: {path} was changed or removed since it was pinned "
            f"(at {entry.at}, sha256 {entry.sha256[:12]}…)"
        )
    return path, entry


def pin_lines(ledger: Ledger) -> list[str]:
    """The pinned baselines, the latest pin of each name, one line each (`ops-eval baseline
    list`)."""
    from ..ledger.entries import PinEntry

    latest = {e.name: e for e in ledger.entries() if isinstance(e, PinEntry)}
    if not latest:
        return ["no pinned baseline"]
    return [
        f"{p.name}: run {p.run} ({p.path}), pinned{f' by {p.by}' if p.by else ''} at {p.at}"
        for p in latest.values()
    ]
