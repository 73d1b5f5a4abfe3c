"""The schema objects a state store of this version is made of, and the first difference of a
store's own from them -- one definition that `audit verify` (`audit_chain`) reports and that
every write checks before it touches anything (`store`): a trigger added to a store runs on
each write, so a store `audit verify` calls tampered is never written.

Objects are sqlite_master's rows -- tables, indexes, triggers, views, with their SQL, whitespace
collapsed -- as `SCHEMA` creates them, SQLite's own included (`sqlite_sequence`, the automatic
indexes of keys). SQLite's statistics tables (`ANALYZE`) are not a difference: exactly the
tables `sqlite_stat1`-`sqlite_stat4`, each with the schema SQLite gives it. Anything else the
store did not create is, whatever its name (SQLite's `LIKE` ignores case, so a name pattern
would also pass a trigger called `SQLITE_STATX`).
"""

from __future__ import annotations

import sqlite3
from functools import cache

from ops_copilot.store.audit_verdict import Break
from ops_copilot.store.schema import SCHEMA

Object = tuple[str, str, str, str]
"""(name, type, table, SQL with whitespace collapsed)."""

# SQLite's statistics tables as `ANALYZE` creates them (sqlite3.c, `openStatTable` and the
# legacy STAT2/STAT3 formats): the only objects in a store that it did not create itself.
_STATISTICS = {
    "sqlite_stat1": "CREATE TABLE sqlite_stat1(tbl,idx,stat)",
    "sqlite_stat2": "CREATE TABLE sqlite_stat2(tbl,idx,sampleno,sample)",
    "sqlite_stat3": "CREATE TABLE sqlite_stat3(tbl,idx,neq,nlt,ndlt,sample)",
    "sqlite_stat4": "CREATE TABLE sqlite_stat4(tbl,idx,neq,nlt,ndlt,sample)",
}


@cache
def expected() -> tuple[Object, ...]:
    """The objects `SCHEMA` creates, read back from a database it was just run in."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(SCHEMA)
        return tuple(objects(conn))
    finally:
        conn.close()


def _text(sql: object) -> str:
    """An object's SQL as text; anything else (a blob written with `writable_schema`) as its
    repr, which no expected SQL equals."""
    return sql if isinstance(sql, str) else "" if sql is None else repr(sql)


def objects(conn: sqlite3.Connection) -> list[Object]:
    """Every table, trigger, index and view of `conn`'s database, in schema order, but SQLite's
    own statistics tables: `ANALYZE` adds them, and they hold no data of the store. Only a table
    of exactly such a name and schema is left out."""
    rows = conn.execute("SELECT name, type, tbl_name, sql FROM sqlite_master ORDER BY rowid")
    found = [(r[0], r[1], r[2], " ".join(_text(r[3]).split())) for r in rows]
    return [o for o in found if o[1:] != ("table", o[0], _STATISTICS.get(o[0]))]


def first_difference(conn: sqlite3.Connection) -> Break | None:
    """The first object of `conn`'s database added, dropped or changed against `expected`, as
    a `schema` break naming it; None when they are the same."""
    wanted = {name: rest for name, *rest in expected()}
    actual: dict[str, list[str]] = {}
    for name, kind, table, sql in objects(conn):
        if name in actual or name not in wanted:  # a second object of one name is added too
            return Break(kind="schema", table=str(table), target=str(name), detail=f"{kind} added")
        actual[name] = [kind, table, sql]
    for name, (kind, table, sql) in wanted.items():
        if name not in actual:
            return Break(kind="schema", table=table, target=name, detail=f"{kind} dropped")
        if actual[name] != [kind, table, sql]:
            return Break(kind="schema", table=table, target=name, detail=f"{kind} changed")
    return None
