"""`ops-eval distill RUN CASE[#REPEAT] [--output SET] [--id ID]`: one trial of a run -- a scripted
case or a scenario -- as a draft eval case, printed, or added to an eval set file (created when
missing). `ops-eval validate` refuses the draft until a person has set its expectations
(`results.distill`). Written whole or not at all; a set that cannot be read, or that already
has the id, is refused (exit 2) and left as it was.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..base.exits import EXIT_OK


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "distill", help="turn a trial of a run into a draft eval case, for review"
    )
    p.add_argument("run", help="run record path or run id")
    p.add_argument("trial", metavar="CASE[#REPEAT]", help="the trial (repeat 1 by default)")
    p.add_argument("--output", metavar="SET", help="eval set file to add the draft to")
    p.add_argument("--id", help="the draft's eval id (default: CASE-draft-rREPEAT)")
    p.set_defaults(handler=run_distill)


def run_distill(args: argparse.Namespace) -> int:
    from ..base.inputs import bad_input, output_file
    from ..base.settings import current
    from ..results.distill import draft_case, pick
    from ..results.runs import load, resolve_run
    from ..validation.case_rules import id_problem

    path = resolve_run(args.run, current().runs_dir)
    record = load(path)
    from ..results.minimal import refuse_minimal

    refuse_minimal(record, str(path), "a draft case is made of the trial's prompts and answers")
    trial = pick(record, args.trial)
    eval_id = args.id or f"{trial.case_id}-draft-r{trial.repeat}"
    if wrong := id_problem(eval_id):
        raise bad_input(f"--id {wrong}")
    case = draft_case(record, trial, path.name, eval_id)
    if args.output is None:
        json.dump(case, sys.stdout, indent=2)
        print()
        return EXIT_OK
    target = output_file("--output", Path(args.output))
    data = _set_to_extend(target, eval_id)
    data["eval_cases"].append(case)
    _write(target, json.dumps(data, indent=2) + "\n")
    print(
        f"draft {eval_id} added to {target}: review it; `ops-eval validate` refuses it until then"
    )
    return EXIT_OK


def _set_to_extend(target: Path, eval_id: str) -> dict[str, Any]:
    from ..base.inputs import bad_input
    from ..core.evalset import MalformedInput, read_json

    if not target.exists():
        name = target.name.removesuffix(".json").removesuffix(".evalset")
        return {"eval_set_id": name, "name": name, "eval_cases": []}
    try:
        _, data = read_json(target)
    except MalformedInput as exc:
        raise bad_input(str(exc)) from None
    if not isinstance(data, dict) or not isinstance(data.get("eval_cases"), list):
        raise bad_input(f"{target}: not an eval set (no 'eval_cases' list); nothing was added")
    if any(isinstance(c, dict) and c.get("eval_id") == eval_id for c in data["eval_cases"]):
        raise bad_input(f"{target}: already has a case {eval_id}; give another --id")
    return data


def _write(target: Path, text: str) -> None:
    import os
    import tempfile

    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
