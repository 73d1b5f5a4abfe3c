"""Where a state store's SQLite connection comes from: a fresh database built from the seed, a
file written atomically, a file reopened, or one opened read-only to be checked -- and which files
are refused: not a store, made by an older version (no hash chain), made from another seed.

A file from before the hash chain is refused rather than upgraded: its rows carry no hashes, so
nothing could vouch for them, and the store is scenario state that is cheap to recreate.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

from ops_copilot.seed.loading import Seed
from ops_copilot.store.audit_chain import genesis, head_key
from ops_copilot.store.schema import LEDGERS, SCHEMA, SCHEMA_VERSION
from opskit.textfiles import resolved


class StoreError(RuntimeError):
    """The state file cannot be used (other seed, older version, not a store, unreadable)."""


def connect(path: str) -> sqlite3.Connection:
    conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


def build(seed: Seed) -> sqlite3.Connection:
    """An in-memory store holding the seed's initial state, empty ledgers chained from genesis."""
    conn = connect(":memory:")
    conn.executescript(SCHEMA)
    conn.execute("BEGIN")
    conn.executemany(
        "INSERT INTO meta VALUES (?, ?)",
        [
            ("schema_version", SCHEMA_VERSION),
            ("seed_digest", seed.digest),
            ("clock", seed.world.now),
            *((head_key(t), f"0:{genesis(t, seed.digest)}") for t in LEDGERS),
        ],
    )
    conn.executemany(
        "INSERT INTO services (name, status) VALUES (?, ?)",
        [(s.name, s.status) for s in seed.services.values()],
    )
    conn.executemany(
        "INSERT INTO incidents (id, status) VALUES (?, ?)",
        [(i.id, i.status) for i in seed.incidents.values()],
    )
    conn.execute("COMMIT")
    return conn


def save_new(conn: sqlite3.Connection, path: str) -> None:
    """Copy `conn` to `path` through a temp file and a rename: a crash never leaves half a store."""
    tmp = Path(path).with_name(Path(path).name + ".tmp")
    target = sqlite3.connect(tmp)
    conn.backup(target)
    target.close()
    tmp.replace(path)


def _regular(path: str) -> None:
    """Refuse a path that is not a regular file before anything opens it: opening a FIFO to
    read blocks until a writer comes, and a device is no store."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise StoreError(f"{path}: no such file") from None
    except OSError as exc:
        raise StoreError(f"{path}: cannot read ({exc.strerror})") from None
    if stat.S_ISDIR(mode):
        raise StoreError(f"{path}: is a folder, not a state store")
    if not stat.S_ISREG(mode):
        raise StoreError(f"{path}: is not a regular file, not a state store")


def reopen(path: str, seed: Seed) -> sqlite3.Connection:
    """A read-write connection to an existing store made from `seed`."""
    _regular(path)
    try:
        conn = connect(path)
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot open ({exc})") from None
    return check(conn, seed, path)


def open_read_only(path: str, seed: Seed) -> sqlite3.Connection:
    """A read-only connection to an existing store made from `seed`; never creates a file."""
    file = Path(path)
    _regular(path)
    try:
        file.open("rb").close()
        uri = f"{resolved(file).as_uri()}?mode=ro"
        conn = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)
    except OSError as exc:
        raise StoreError(f"{path}: cannot read ({exc.strerror})") from None
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot read ({exc})") from None
    return check(conn, seed, path)


def check(conn: sqlite3.Connection, seed: Seed, path: str) -> sqlite3.Connection:
    """`conn`, if it holds a store of this schema version made from `seed`; else closed, and a
    StoreError that says what to do."""
    try:
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise StoreError(f"{path}: not a state store ({exc})") from None
    version = meta.get("schema_version")
    problem = None
    if version is None:
        problem = (
            "made by an older version of ops-copilot, without the tamper-evident audit log;"
            " delete it to start a fresh store"
        )
    elif version != SCHEMA_VERSION:
        problem = (
            f"a store of schema {version}, this version reads {SCHEMA_VERSION};"
            " delete it to start a fresh store"
        )
    elif meta.get("seed_digest") != seed.digest:
        problem = "state file was made from another seed; delete it to reset"
    if problem:
        conn.close()
        raise StoreError(f"{path}: {problem}")
    return conn
