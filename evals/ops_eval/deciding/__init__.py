"""Deciding from run records: the regression gate (`gate`), two runs compared pair by pair
(`ab`), the judge measured against labelled answers (`calibration`), and the append-only,
hash-chained ledger the gate and calibration keep their decisions in (`ledger`).

May import: every layer below `outputs` (`base` to `running`).
"""
