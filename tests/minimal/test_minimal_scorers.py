"""Under `--data minimal`, no scorer's detail keeps the trial's text, in any form: values planted
in the prompts, the answers, the call arguments and the tool results -- whole, cut, escaped (tab,
newline, quotes) and case-changed -- reach neither the record, nor the console, nor the report,
while every registered scorer had its say on the run; `audit-run` finds nothing in it, and finds
such a copy, with no planted value named, when one is put back.

Runs of the ops set (with one case more, answered in JSON), the scenarios and the triage set
with a scripted oracle whose calls and answers carry the planted values, against a seed copy
whose checkout log carries them too."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ops_eval import RunOptions, ToolCall, execute, read_evalset, run_summary
from ops_eval.cli import main
from ops_eval.models.stand_ins import OracleLlm, fixed_model
from ops_eval.scorers import registered
from support import REPO

KEY = "team-key-0123456789abcdef"
CODE, NAME, PHONE = "ZEBRAQUASAR", "Marguerite Okonkwo", "415-555-0199"
FORMS = [
    CODE, NAME, PHONE,  # whole
    CODE[:7], NAME[:13], PHONE[:9],  # cut
    "Marguerite\tOkonkwo", 'ZEBRA"QUASAR', "Okonkwo\nMarguerite", "415\t555\t0199",  # escaped
    CODE.lower(), NAME.upper(), "zEbRaQuAsAr",  # case-changed
]  # fmt: skip
SAID = " / ".join(FORMS)
CORES = ["zebraquasar", "margueriteokonkwo", "okonkwomarguerite", "4155550199"]
"""The planted values as letters and digits only, lower case: no window of them may be kept."""
WINDOW = 6
JSON_CASE = "planted-json-answer"
NOT_RUN = {"llm_judge": "needs a judge; offline it is skipped, its detail the harness's own"}


def kept_fragments(text: str) -> list[str]:
    """Every window of `WINDOW` characters of a planted value found in `text`, once the keyed
    hashes (`hmac:...`, `#` tokens) are taken out and only letters and digits kept."""
    text = re.sub(r"hmac:[0-9a-f]{32}|#[0-9a-f]{8}", " ", text).lower()
    text = re.sub(r"\\[tn]", "", text)  # a JSON escape's letter would join the words it parts
    flat = "".join(c for c in text if c.isalnum())
    return sorted(
        {core[i : i + WINDOW] for core in CORES for i in range(len(core) - WINDOW + 1)}
        & {flat[i : i + WINDOW] for i in range(len(flat) - WINDOW + 1)}
    )


def planted_set(folder: Path, name: str) -> Path:
    """`name` with the planted values added to every prompt (and, for the ops set, one case
    whose answer is JSON, for the JSON checks)."""
    data = json.loads((REPO / "evals" / name).read_text())
    for case in data["eval_cases"]:
        for turn in case.get("conversation") or []:
            turn["user_content"]["parts"][0]["text"] += f" Contact: {SAID}."
        if case.get("conversation_scenario"):
            case["conversation_scenario"]["starting_prompt"] += f" Contact: {SAID}."
            case["meta"]["scenario"]["reference"][0]["user"] += f" Contact: {SAID}."
    if name == "ops.evalset.json":
        extra = json.loads(json.dumps(next(c for c in data["eval_cases"]
                                           if c["eval_id"] == "relevance-no-tool")))  # fmt: skip
        extra["eval_id"] = JSON_CASE
        extra["conversation"][0]["final_response"]["parts"][0]["text"] = '{"errors": 3}'
        extra["meta"]["response"] = [
            {"scorer": "exact", "text": '{"errors": 3}'},
            {"scorer": "regex", "pattern": '"errors": 3'},
            {"scorer": "not_contains", "text": "marguerite", "ignore_case": True},
            {"scorer": "json_valid"},
            {"scorer": "json_equal", "value": {"errors": 3}},
            {"scorer": "numeric_range", "range": "0..5", "path": "/errors"},
        ]
        data["eval_cases"].append(extra)
    path = folder / name
    path.write_text(json.dumps(data, indent=1))
    return path


def planted_oracle(set_path: Path) -> OracleLlm:
    """The oracle, but every answer says the planted values (the JSON case's in JSON), and
    every call's first text argument is the planted values."""
    oracle = OracleLlm.from_cases(read_evalset(set_path).cases)
    for prompt, (calls, reference) in list(oracle.turns.items()):
        planted = []
        for n, call in enumerate(calls):
            args = dict(call.args)
            text = next((k for k, v in args.items() if isinstance(v, str)), None)
            if n == 0 and text is not None:
                args[text] = f"{args[text]} {SAID}"
            planted.append(ToolCall(call.name, args))
        if reference == '{"errors": 3}':  # not JSON at all
            answer = '{"errors": ' + SAID + "}"
        elif reference.startswith("{"):  # JSON, but not the answer model's
            answer = json.dumps({"summary": SAID})
        else:
            answer = f"{reference} Also: {SAID}"
        oracle.turns[prompt] = (planted, answer)
    return oracle


@pytest.fixture
def planted(tmp_path, seed_copy, ops_env):
    with (seed_copy / "logs" / "checkout.log").open("a") as log:
        log.write(f"2026-11-29T10:07:00Z ERROR checkout paged {NAME} ({PHONE}) code {CODE}\n")
    ops_env.setenv("OPS_SEED_DIR", str(seed_copy))
    ops_env.setenv("OPS_EVAL_DATA_KEY", KEY)
    ops_env.setenv("OPS_RUNS_DIR", str(tmp_path / "runs"))
    return tmp_path


def minimal_run(tmp_path: Path, name: str, capsys) -> tuple[Path, str]:
    set_path = planted_set(tmp_path, name)
    out = tmp_path / f"{name}.run.json"
    model = fixed_model(planted_oracle(set_path), "oracle", "deterministic test model")
    capsys.readouterr()
    options = RunOptions(set_path=set_path, output=out, data="minimal")
    execute(options, chooser=model, summary=run_summary)  # says what `ops-eval run` says
    printed = capsys.readouterr()
    return out, printed.out + printed.err


def test_the_planted_values_are_outside_the_vocabulary_a_label_is_built_from():
    from ops_eval.results.vocabulary import Vocabulary

    words = Vocabulary.of().words
    assert not {"zebraquasar", "marguerite", "okonkwo", "zebra", "quasar"} & words


def test_no_scorer_keeps_the_trials_text_under_minimal_data(planted, capsys):
    sets = ("ops.evalset.json", "scenarios.evalset.json", "triage-report.evalset.json")
    runs = [minimal_run(planted, name, capsys) for name in sets]
    said: dict[str, list[str]] = {}
    for path, console in runs:
        record = json.loads(path.read_text())
        for trial in record["trials"]:
            for scorer, score in trial["scores"].items():
                if score["outcome"] not in ("n/a", "skipped") and score["detail"]:
                    said.setdefault(scorer, []).append(score["detail"])
        report = path.with_suffix(".md")
        assert main(["report", str(path), "--markdown", str(report)]) == 0
        for where, text in [("record", path.read_text()), ("console", console),
                            ("report", report.read_text())]:  # fmt: skip
            assert kept_fragments(text) == [], f"{path.name}: {where}"
        capsys.readouterr()
        assert main(["audit-run", str(path)]) == 0, capsys.readouterr().out
    # every scorer had its say, and the planted values were there to be quoted
    assert set(registered()) - set(said) == set(NOT_RUN)
    details = " ".join(d for ds in said.values() for d in ds)
    assert details.count("#") > 50, "the planted values were hashed where the details quoted them"


def test_audit_run_finds_a_cut_copy_of_an_answer_with_no_planted_value_named(planted, capsys):
    path, _ = minimal_run(planted, "ops.evalset.json", capsys)
    data = json.loads(path.read_text())
    data["trials"][0]["scores"]["trajectory"]["detail"] = f"got answer 'Also: {NAME[:13]}'"
    path.write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["audit-run", str(path)]) == 1
    said = capsys.readouterr().out
    assert "trials[0].scores.trajectory.detail: 1 run(s) of 10+ characters outside" in said
    assert "Margu" not in said


def test_a_replay_miss_under_minimal_data_keeps_nothing_of_the_recorded_conversation(
    planted, capsys
):
    """A `replay:` model's miss quotes the *recorded* conversation, which is not the trial's
    text: under minimal, the error keeps what went wrong and none of the recording's words."""
    from ops_eval.models.stand_ins import ReplayLlm

    recorded_set = planted_set(planted, "ops.evalset.json")  # every prompt names the planted values
    recording = planted / "rec.jsonl"
    oracle = fixed_model(planted_oracle(recorded_set), "oracle", "deterministic test model")
    options = RunOptions(set_path=recorded_set, cases=["open-incidents"], record=recording)
    execute(options, chooser=oracle)  # a full run, recorded
    out = planted / "replayed.json"
    replay = ReplayLlm.from_file(recording)
    capsys.readouterr()
    code, record, _ = execute(
        RunOptions(cases=["open-incidents"], output=out, data="minimal"),  # the plain prompts
        chooser=fixed_model(replay, "replay", "deterministic test model"),
    )
    printed = capsys.readouterr()
    assert code == 3
    error = record.trials[0].error
    assert error.startswith(
        "model: ReplayMiss: replay miss for case open-incidents, turn 1: the history"
    )
    for where, text in [("record", out.read_text()), ("console", printed.out + printed.err)]:
        assert kept_fragments(text) == [], where
