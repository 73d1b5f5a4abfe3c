"""Trials that end: a plain loop -- the same call, the same result, a third time in one turn --
ends the trial at once as the agent's failure, with a reason the summary and both reports show;
repeats that bring something new, or a second look, do not; a loop that is not plain still ends
at the model-call limit."""

from __future__ import annotations

import itertools

from ops_eval import RunOptions, ToolCall, execute, load_record, read_evalset
from ops_eval.cli import main
from ops_eval.core.loops import LoopDetected, LoopWatch
from ops_eval.models.stand_ins import ScriptedLlm, fixed_model
from ops_eval.outputs.report import html_report, markdown
from support import REPO

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
        "grounded",
    }
    for name in ("llm_judge", "contains", "json_valid", "fault_handling", "forbidden_calls"):
        assert scores[name].outcome == "n/a", name
        assert scores[name].detail.startswith(trial.looped), name
    assert record.judge is None
    capsys.readouterr()
    main(["gate", str(path)])
    out = capsys.readouterr()
    assert "judge's score" not in out.out + out.err and "names no judge" not in out.out, out


def test_a_looping_trial_gives_no_verdict_in_a_judges_name(tmp_path, capsys):
    """recommend-fix-inc-002 declares an llm_judge check: looping, its trial is judged by no
    judge, so the check is skipped (saying why) rather than failed, and the gate never finds a
    judge's score in a run that names no judge."""
    loop = [ToolCall("get_incident", {"incident_id": "INC-002"})] * 40
    _, record, path, _ = run(tmp_path, loop, "recommend-fix-inc-002")
    (trial,) = record.trials
    judged = trial.scores["llm_judge"]
    assert judged.outcome == "skipped" and judged.detail.startswith(trial.looped)
    assert trial.status == "failed"
    capsys.readouterr()
    main(["gate", str(path)])
    out = capsys.readouterr()
    assert "judge's score" not in out.out + out.err and "names no judge" not in out.out, out


def test_each_denial_is_a_result_and_the_wait_for_a_human_is_none(tmp_path):
    """deny-restart-database: an agent that proposes the same restart after every denial gets
    the same rejection each time -- a loop at the third. The "requires confirmation"
    placeholder of each pause is not a result: the human's answer is."""
    restart = ToolCall("restart_service", {"name": "database"})
    _, record, _, _ = run(tmp_path, [restart] * 10, "deny-restart-database")
    (trial,) = record.trials
    assert "called restart_service(name=database) 3 times" in trial.looped
    (turn,) = trial.turns
    assert turn.answered == ["deny", "deny", "deny"]  # three denials heard, not two


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
    assert "called list_incidents(status=open, service=None) 3 times" in trial.looped
    assert model.calls == 3


def test_a_loop_that_is_not_plain_ends_at_the_model_call_limit(tmp_path, monkeypatch):
    monkeypatch.setattr("ops_eval.playing.play.MAX_MODEL_CALLS", 6)
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


def test_the_oracle_never_loops_and_each_scorer_applies_where_it_scores(tmp_path):
    """Plumbing, by construction (the oracle plays each case's own expected calls): no expected
    trajectory of the set is itself a loop, and every gating scorer is n/a on a case exactly
    where its `applies` says it does not apply -- the n/a a loop gives and the scorer's own are
    one reading."""
    from ops_eval.models.stand_ins import OracleLlm
    from ops_eval.scorers import registered
    from ops_eval.validation.plan import load_plan

    cases = read_evalset(OPS).cases
    opts = RunOptions(output=tmp_path / "run.json")
    model = OracleLlm.from_cases(cases)
    _, record, _ = execute(opts, chooser=fixed_model(model, "oracle", "plumbing only"))
    assert all(t.looped is None for t in record.trials)
    plan = load_plan(OPS)
    by_id = {c.eval_id: c for c in plan.cases}
    for trial in record.trials:
        for name, entry in registered().items():
            if entry.gate == "report":
                continue
            why = entry.not_applicable(by_id[trial.case_id], plan)
            assert (why is not None) == (trial.scores[name].outcome == "n/a"), (trial.case_id, name)
