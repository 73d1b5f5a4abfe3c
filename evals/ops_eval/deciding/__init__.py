"""Deciding from run records: the regression gate (`gate`), two runs compared pair by pair
(`ab`), the judge measured against labelled answers (`calibration`), the readers of answers
(the scorers that read words, the answer guard) measured the same way (`readers`), and the
append-only, hash-chained ledger the gate and calibration keep their decisions in (`ledger`);
beside them, whether a state store file's own hash-chained audit trail is intact
(`store_audit`).

May import: every layer below `outputs` (`base` to `running`).
"""
