"""The hash chain over the store's ledgers (audit log and notes), and `verify`, which says whether
a store still tells the truth -- and, if not, the first thing that gives it away.

Each ledger row's `row_hash` is sha256 over a canonical JSON of the ledger's name, the row's
columns and `prev_hash`, the previous row's hash (the first row's is a genesis value derived from
the seed digest). `meta` records each ledger's head (`<id>:<hash>`), moved in the write's own
transaction. `verify` reports the first break of one of these kinds:

- `schema`: a trigger or table dropped, changed or added (the triggers are what refuse edits),
  or a file SQLite's own integrity check finds inconsistent (an index swapped for another);
- `deleted`: a row missing from a ledger (an id gap, or rows after the last one remaining that
  the head says were written, or fewer rows than the clock counted writes);
- `inserted`: a row written outside the store (past the recorded head, or stamped with a time the
  store's clock never gave, as a forger with a plausible hash still does);
- `altered`: a row whose content no longer matches its hash, or a re-hashed last row;
- `relinked`: a self-consistent row that does not chain to its predecessor (rows reordered, or
  a chain re-linked around a removal);
- `unexplained_status`: a service or incident status (or change time) that the seed and the
  audit rows, replayed in order, do not produce -- a status changed with no audit row;
- `rewound`: the ledgers no longer extend the head kept outside the file (`expect`).

Every value read is type-checked first (SQLite keeps a blob in any column, whatever its declared
type): a wrong type, a missing or unknown `meta` key, is `altered`, `deleted` or `inserted` at
that row or key, never a crash. Which schema objects a store is made of is defined once, in
`schema_objects` (SQLite's statistics tables are not tampering); every write checks the same.

From the file alone, a truncation of the newest rows that moves head, clock and statuses back
together -- or a forger who re-implements the store -- cannot be told from a store that never
made those writes. `Verdict.head` is the anchor to keep outside the file: both ledgers' row
counts and a hash over their heads; `verify(expect=...)` then checks that the ledgers still
extend it (later writes are fine, a rewind or a rewrite is not).
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from datetime import UTC, datetime, timedelta
from typing import Any

from ops_copilot.seed.loading import Seed
from ops_copilot.seed.models import CLOCK_FORMAT
from ops_copilot.store.audit_statuses import statuses
from ops_copilot.store.audit_verdict import Break, Kind, Verdict, kind_of
from ops_copilot.store.schema import LEDGERS, META_KEYS, TIME_COLUMN, head_key
from ops_copilot.store.schema_objects import first_difference

__all__ = [
    "Break",
    "Kind",
    "Verdict",
    "genesis",
    "head_key",
    "parse_anchor",
    "row_hash",
    "tick",
    "verify",
]

_HEAD = re.compile(r"(\d{1,18}):([0-9a-f]{64})")
_ANCHOR = re.compile(r"(\d{1,18})-(\d{1,18})-([0-9a-f]{64})")


def genesis(table: str, seed_digest: str) -> str:
    """The `prev_hash` of a ledger's first row: bound to the seed the store was made from."""
    return hashlib.sha256(f"ops-copilot {table} genesis {seed_digest}".encode()).hexdigest()


def row_hash(table: str, row: dict[str, Any]) -> str:
    """The hash a ledger row must carry: its columns and its `prev_hash`, in a fixed order."""
    values = [table, *(row[c] for c in LEDGERS[table]), row["prev_hash"]]
    canonical = json.dumps(values, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def verify(conn: sqlite3.Connection, seed: Seed, expect: str | None = None) -> Verdict:
    """Check a store made from `seed`: schema, meta, both chains, the clock, every status -- and,
    given the anchor a past `verify` returned as `head`, that the ledgers still extend it.
    `expect` must be well-formed (`parse_anchor`)."""
    counts = {"audit_rows": _count(conn, "audit_log"), "notes": _count(conn, "notes")}
    broken = _schema(conn)
    if broken is not None:  # a table may be gone: read nothing that relies on the schema
        return Verdict(**counts, first=broken)
    ledgers = {t: _dicts(conn, f"SELECT * FROM {t} ORDER BY id") for t in LEDGERS}
    meta, broken = _meta(conn)
    first = (
        broken
        or _chains(ledgers, meta, seed.digest)
        or _clock(ledgers, meta["clock"], seed.world.now)
        or statuses(conn, ledgers["audit_log"], seed)
    )
    if first is not None:
        return Verdict(**counts, first=first)
    head = _anchor(ledgers, seed.digest, {t: len(rows) for t, rows in ledgers.items()})
    if expect is not None:
        first = _extends(ledgers, seed.digest, head, expect)
    return Verdict(**counts, head=head, first=first)


def parse_anchor(text: str) -> tuple[int, int, str]:
    """(audit rows, notes, hash) of an anchor `verify` printed; ValueError saying the form."""
    found = _ANCHOR.fullmatch(text.strip().lower())
    if found is None:
        raise ValueError(
            f"{text!r} is not a head as `audit verify` prints it (<audit rows>-<notes>-<64 hex>)"
        )
    return int(found[1]), int(found[2]), found[3]


def _anchor(ledgers: dict[str, list[dict]], digest: str, upto: dict[str, int]) -> str:
    """The anchor of the ledgers cut at `upto` rows each: the counts and a hash over the two
    rows' hashes there, each of which chains everything before it."""
    heads = [
        f"{t}:{upto[t]}:{ledgers[t][upto[t] - 1]['row_hash'] if upto[t] else genesis(t, digest)}"
        for t in LEDGERS
    ]
    joined = hashlib.sha256(" ".join(["ops-copilot head", *heads]).encode()).hexdigest()
    return "-".join([*(str(upto[t]) for t in LEDGERS), joined])


def _extends(ledgers: dict[str, list[dict]], digest: str, head: str, expect: str) -> Break | None:
    """None when the ledgers, cut where the kept anchor was taken, give that anchor again."""
    audit_rows, notes, digest_kept = parse_anchor(expect)
    kept = f"{audit_rows}-{notes}-{digest_kept}"
    upto = {"audit_log": audit_rows, "notes": notes}
    if (
        all(n <= len(ledgers[t]) for t, n in upto.items())
        and _anchor(ledgers, digest, upto) == kept
    ):
        return None
    detail = f"truncated or rewound: head is {head}, expected {kept} or a head that extends it"
    return Break(kind="rewound", table="audit_log/notes", detail=detail)


def _count(conn: sqlite3.Connection, table: str) -> int:
    try:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def _dicts(conn: sqlite3.Connection, sql: str) -> list[dict[str, Any]]:
    cursor = conn.execute(sql)
    columns = [d[0] for d in cursor.description]
    return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]


def _meta(conn: sqlite3.Connection) -> tuple[dict[str, str], Break | None]:
    """`meta` as text, or the first key that is unknown, missing or not of the store's form."""
    rows = conn.execute("SELECT key, value FROM meta ORDER BY rowid").fetchall()
    meta: dict[str, str] = {}
    for key, value in rows:
        if key not in META_KEYS:
            name = key if isinstance(key, str) else f"({kind_of(key)})"
            detail = "not a key the store writes"
            return meta, Break(kind="inserted", table="meta", target=name, detail=detail)
        if not isinstance(value, str):
            detail = f"{kind_of(value)}, not text"
            return meta, Break(kind="altered", table="meta", target=key, detail=detail)
        meta[key] = value
    for key in META_KEYS:
        if key not in meta:
            detail = "the key is missing"
            return meta, Break(kind="deleted", table="meta", target=key, detail=detail)
        if key.startswith("head:") and not _HEAD.fullmatch(meta[key]):
            detail = f"{meta[key][:40]!r} is not '<row id>:<hash>'"
            return meta, Break(kind="altered", table="meta", target=key, detail=detail)
    try:
        tick(meta["clock"], 0)
    except ValueError:
        detail = f"{meta['clock'][:40]!r} is not a time of the scenario clock"
        return meta, Break(kind="altered", table="meta", target="clock", detail=detail)
    return meta, None


def _wrong_type(table: str, row: dict[str, Any]) -> str | None:
    """Which column of a ledger row holds a value of the wrong type, and what it holds."""
    for column, value in row.items():
        if not isinstance(value, int if column == "id" else str):
            return f"{column} is {kind_of(value)}, not {'an integer' if column == 'id' else 'text'}"
    return None


def _schema(conn: sqlite3.Connection) -> Break | None:
    """The first object added, dropped or changed -- or, with every object as expected, a file
    SQLite itself finds inconsistent: an index pointed at another b-tree through
    `writable_schema` answers lookups with rows the table does not hold."""
    broken = first_difference(conn)
    if broken is not None:
        return broken
    found = conn.execute("PRAGMA integrity_check(1)").fetchone()
    if found is None or found[0] != "ok":
        said = " ".join(str(found and found[0]).split())  # its report spans lines
        detail = f"SQLite's integrity check fails: {said[:200]}"
        return Break(kind="schema", table="sqlite_master", detail=detail)
    return None


def _chains(ledgers: dict[str, list[dict]], meta: dict[str, str], digest: str) -> Break | None:
    for table, rows in ledgers.items():
        head_id, _, head_hash = meta[head_key(table)].partition(":")
        head_id = int(head_id)
        prev_id, prev_hash = 0, genesis(table, digest)
        for row in rows:
            rid = row["id"]
            wrong = _wrong_type(table, row)
            if wrong is not None:
                row_id = rid if isinstance(rid, int) else prev_id + 1
                return Break(kind="altered", table=table, row=row_id, detail=wrong)
            if rid > head_id:
                detail = f"written after the last row the store wrote ({head_id})"
                return Break(kind="inserted", table=table, row=rid, detail=detail)
            if rid != prev_id + 1:
                return Break(kind="deleted", table=table, row=prev_id + 1, detail="row missing")
            if row_hash(table, row) != row["row_hash"]:
                detail = "its content does not match its hash"
                return Break(kind="altered", table=table, row=rid, detail=detail)
            if row["prev_hash"] != prev_hash:
                detail = f"it does not chain to row {prev_id}" if prev_id else "not the first row"
                return Break(kind="relinked", table=table, row=rid, detail=detail)
            prev_id, prev_hash = rid, row["row_hash"]
        if prev_id < head_id:
            detail = f"the store wrote rows up to {head_id}"
            return Break(kind="deleted", table=table, row=prev_id + 1, detail=detail)
        if prev_hash != head_hash:
            detail = "re-hashed: not the hash the store recorded for it"
            return Break(kind="altered", table=table, row=prev_id, detail=detail)
    return None


def tick(start: str, n: int = 1) -> str:
    """The scenario clock `n` seconds after `start` (ISO 8601, UTC, 'Z'): each write takes one.
    ValueError when `start` is not such a time (or the result would pass year 9999)."""
    moment = datetime.strptime(start, CLOCK_FORMAT).replace(tzinfo=UTC)
    try:
        return (moment + timedelta(seconds=n)).strftime(CLOCK_FORMAT)
    except OverflowError:
        raise ValueError(f"{start} + {n}s is past the last time the clock can give") from None


def _clock(ledgers: dict[str, list[dict]], clock: str, now: str) -> Break | None:
    """Every write takes the next second of the scenario clock: the rows' times, across both
    ledgers, must be exactly the ticks after the seed's `now`, and the clock must stop at the
    last of them."""
    stamped = sorted(
        (row[TIME_COLUMN[table]], table, row["id"])
        for table, rows in ledgers.items()
        for row in rows
    )
    for n, (at, table, rid) in enumerate(stamped, start=1):
        expected = tick(now, n)
        if at < expected:
            detail = f"stamped {at}, a time the store's clock already gave"
            return Break(kind="inserted", table=table, row=rid, detail=detail)
        if at > expected:
            detail = f"a write at {expected} is missing before this row"
            return Break(kind="deleted", table=table, row=rid, detail=detail)
    last = tick(now, len(stamped))
    if stamped and clock < last:
        at, table, rid = stamped[-1]
        detail = f"stamped {at}, after the store's clock ({clock})"
        return Break(kind="inserted", table=table, row=rid, detail=detail)
    if clock > last:
        detail = f"the clock counted writes up to {clock}; the last row left is at {last}"
        return Break(kind="deleted", table="audit_log/notes", detail=detail)
    return None
