"""The domain: what an eval case is and what a trial did, with no I/O beyond reading a file.

Tool calls and turns (`calls`), a trial as scorers read it (`trial`), eval set files and cases
(`evalset`, read as strict JSON: `strict_json`), response checks (`response_checks`,
`case_checks`, `answer_numbers`), contracts and criteria, call matching and policy (`matching`,
`call_policy`), loops, the agents a case may target, direct tool calls on a workspace
(`direct`), claims read from text (`claims`), the deliberate negatives, the markers a model call
carries (`model_call`), and the `Plan` a run plays.

May import: `base`.
"""
