"""The domain: what an eval case is and what a trial did, with no I/O beyond reading a file.

Tool calls and turns (`calls`), a trial as scorers read it (`trial`), eval set files and cases
(`evalset`, read as strict JSON: `strict_json`), each case's content hash (`case_version`) and
the set's lock of case versions (`case_lock`), a conversation scenario's own part of a case's
meta (`scenario`), response checks (`response_checks`, `case_checks`, `answer_numbers`) and the
answer models a `pydantic` check may name (`answer_models`), contracts (`contracts`) and
criteria (`criteria`), call matching and policy (`matching`, `call_policy`), loops (`loops`),
whether an answer only echoes a tool's result (`echo`), direct tool calls on a workspace
(`direct`), the deliberate negatives (`negatives`), the markers a model call carries
(`model_call`), what the layers below the judge know of it (`judge_port`: its error, why there
is none, what it did), and the `Plan` a run plays (`plan`).

May import: `base`.
"""
