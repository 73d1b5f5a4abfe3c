"""The ops copilot's state: what it can change, each change approved, audited and chained.

Holds:
- `state`: the per-session SQLite state store (`StateStore`); `file`: where its connection
  comes from; `records`: notes, audit rows and snapshots as read.
- `schema`: its tables and the rules that make its ledgers tamper-evident; `schema_objects`:
  the objects a store of this version is made of.
- `audit_chain`: the hash chain over the ledgers and `verify`; `audit_statuses`: statuses
  replayed from the audit rows; `audit_verdict`: what `verify` reports.
- `workspace`: which seed and store a tool call works on, per ADK session.
- `writes`: the write policy (when a note waits, what a write gets before anyone is asked).
"""
