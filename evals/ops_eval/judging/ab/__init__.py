"""`ops-eval ab`: two runs of one eval set compared pair by pair, by a judge asked in both
orders (a winner only when both agree) or, with no judge, by the deterministic gating verdicts
(every scorer that uses a judge left out, and named).

- `pairs`: which runs, which trials make pairs, and what the judge is shown of each;
- `decide`: one pair's outcome, from the judge's two answers or the gating verdicts;
- `report`: the comparison as a pydantic model, as text or JSON;
- `compare`: two runs resolved, paired and compared, by a judge or by the verdicts (its
  docstring lists the exit codes).

The command, `ops-eval ab`, is `commands.ab`.
May import: the layers below `judging` (`deciding.gate`: the gating verdicts, the changes), and
the rest of `judging` (the client, budget, setup and `run.gate_budget`).
"""
