"""Trials that end: a plain loop -- the same call, the same result, a third time in one turn --
ends the trial at once as the agent's failure, with a reason the summary and both reports show;
repeats that bring something new, or a second look, do not; a loop that is not plain still ends
at the model-call limit."""

from __future__ import annotations

import itertools

from conftest import REPO
from ops_eval import RunOptions, ToolCall, execute, load_record, read_evalset
from ops_eval.cli import main
from ops_eval.loops import LoopDetected, LoopWatch
from ops_eval.report import html_report, markdown
from ops_eval.testing import ScriptedLlm, fixed_model

OPS = REPO / "evals" / "ops.evalset.json"
STATUS = ToolCall("get_service_status", {"name": "inventory"})
SERVICES = ToolCall("list_services")


def run(tmp_path, script, case, **options):
    model = ScriptedLlm(script=script)
    opts = RunOptions(cases=[case], output=tmp_path / "run.json", **options)
    code, record, path = execute(opts, chooser=fixed_model(model, "scripted", "a test's script"))
    assert load_record(path) == record
    return code, record, path, model


def test_a_plain_loop_ends_the_trial_at_the_third_identical_call(tmp_path, capsys):
    code, record, path, model = run(tmp_path, [STATUS] * 40, "service-status-inventory")
    (trial,) = record.trials
    assert code == 1 and trial.status == "failed" and trial.error is None
    reason = (
        "turn 1: the agent called get_service_status(name=inventory) 3 times in one turn and got "
        "the same result each time (no new information)"
    )
    assert trial.looped == reason
    (turn,) = trial.turns
    assert len(turn.calls) == 3 and model.calls == 3  # not the 40 the limit allows
    assert all(c.result == turn.calls[0].result for c in turn.calls)
    # shown wherever the trial is: the run's trial line, the Markdown and HTML reports
    assert f"service-status-inventory #1 failed (looped: {reason})" in capsys.readouterr().err
    assert f"ended as a loop: {reason}" in markdown(record)
    assert f"ended as a loop: {reason}" in html_report(record)


def test_a_looping_trial_fails_only_the_scorers_its_case_declares(tmp_path, capsys):
    """A loop is no reason for a judge: the case declares no `llm_judge` check, so that scorer
    is n/a and the gate never asks which judge gave a score (a looping run used to fail every
    scorer, and the gate then said a judge had scored it)."""
    _, record, path, _ = run(tmp_path, [STATUS] * 40, "service-status-inventory")
    (trial,) = record.trials
    scores = trial.scores
    assert {n for n, s in scores.items() if s.outcome == "fail"} == {
        "trajectory",
        "complete",
        "end_state",
        "tool_policy",
        "budget",  # the set budgets every case (evals/contracts.yaml)
        "facts",
    }
    for name in ("llm_judge", "contains", "json_valid", "fault_handling", "forbidden_calls"):
        assert scores[name].outcome == "n/a", name
        assert scores[name].detail.startswith(trial.looped), name
    assert record.judge is None
    capsys.readouterr()
    main(["gate", str(path)])
    out = capsys.readouterr()
    assert "judge's score" not in out.out + out.err and "names no judge" not in out.out, out


def test_a_cycle_of_calls_is_a_loop_too(tmp_path):
    cycle = list(itertools.islice(itertools.cycle([STATUS, SERVICES]), 40))
    _, record, _, model = run(tmp_path, cycle, "service-status-inventory")
    (trial,) = record.trials
    assert "called get_service_status(name=inventory) 3 times" in trial.looped
    assert [c.name for c in trial.turns[0].calls] == [STATUS.name, SERVICES.name] * 2 + [
        STATUS.name
    ]


def test_a_second_look_is_not_a_loop(tmp_path):
    _, record, _, _ = run(
        tmp_path, [STATUS, STATUS, "Inventory is down."], "service-status-inventory"
    )
    (trial,) = record.trials
    assert trial.looped is None and len(trial.turns[0].calls) == 2


def test_the_same_call_spelt_with_its_default_is_the_same_call(tmp_path):
    """`list_incidents(service=None, status="open")` is `list_incidents(status="open")`."""
    spelt = [
        ToolCall("list_incidents", {"status": "open"}),
        ToolCall("list_incidents", {"service": None, "status": "open"}),
        ToolCall("list_incidents", {"status": "open", "service": None}),
    ]
    _, record, _, model = run(tmp_path, [*spelt, *spelt], "open-incidents")
    (trial,) = record.trials
    assert "called list_incidents(status=open) 3 times" in trial.looped and model.calls == 3


def test_a_loop_that_is_not_plain_ends_at_the_model_call_limit(tmp_path, monkeypatch):
    monkeypatch.setattr("ops_eval.play.MAX_MODEL_CALLS", 6)
    names = ["inventory", "checkout", "payments", "search", "database", "api-gateway", "auth"]
    script = [ToolCall("get_service_status", {"name": n}) for n in names * 3]
    _, record, _, model = run(tmp_path, script, "service-status-inventory")
    (trial,) = record.trials
    assert trial.looped == "the agent looped past 6 model calls" and model.calls == 6


def test_a_watch_counts_pairs_of_call_and_result_within_one_turn():
    watch = LoopWatch()
    watch.saw(STATUS, {"status": "down"})
    watch.saw(STATUS, {"status": "up"})  # the state changed: something new
    watch.saw(STATUS, {"status": "up"})
    watch.saw(STATUS, {"status": "down"})
    try:
        watch.saw(STATUS, {"status": "up"})
    except LoopDetected as exc:
        assert exc.times == 3 and exc.call == STATUS
    else:
        raise AssertionError("the third identical pair did not end the turn")
    fresh = LoopWatch()  # a new user turn is a new question
    for _ in range(2):
        fresh.saw(STATUS, {"status": "up"})


def test_every_case_of_the_ops_set_runs_in_a_loop_free_oracle(tmp_path):
    """No expected trajectory of the set is itself a loop: the oracle passes every case."""
    from ops_eval.testing import OracleLlm

    cases = read_evalset(OPS).cases
    opts = RunOptions(output=tmp_path / "run.json")
    model = OracleLlm.from_cases(cases)
    _, record, _ = execute(opts, chooser=fixed_model(model, "oracle", "plumbing only"))
    assert all(t.looped is None for t in record.trials)
