"""The fixed seed the ops copilot works over: services, incidents, runbooks, logs, skills.

Holds:
- `loading`: reading and cross-checking a seed folder (`load_seed`, `default_seed`, `Seed`),
  ids' normal form and the 'did you mean' match.
- `models`: the records' shapes (a service, an incident, a runbook, a log, a skill, the clock).
"""
