"""Playing a case on the real agent: the ADK session (`session`), one trial turn by turn
(`play`), tool faults made real at the tool boundary (`faults`), ADK's spans kept per trial
(`spans`), and ADK's own `adk run` / `adk web` with a chosen model (`interactive`).

May import: `base`, `core`, `models`.
"""
