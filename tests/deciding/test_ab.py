"""`ops-eval ab`: two runs compared pair by pair, through the command's own parser and
`run_ab`, on hand-built run records in a runs folder of their own. The judge is reached the real
way -- OPS_JUDGE_* through LiteLLM's HTTP route -- at a scripted OpenAI-compatible server
(`fake_openai`), with its verdict cache in the test's folder."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path
from typing import Any

import pytest

from fake_openai import fake_openai, text
from ops_eval.commands.ab import add_parser, run_ab
from ops_eval.core.calls import Turn
from ops_eval.judging.ab.pairs import NO_OWN_ANSWER, NO_REFERENCE
from ops_eval.judging.budget import Budget, call_bound
from ops_eval.judging.run import gate_budget
from ops_eval.results.records import RunRecord, write_record
from ops_eval.results.synthetic import synthetic_record
from support import REPO, refigured

SET = "evals/ops.evalset.json"
GOOD = "GOOD: inventory is down, INC-002 is open."
MEH = "MEH!: inventory might be fine, not sure."  # as long as GOOD: every call costs the same
REFERENCE = "inventory is down; INC-002 (SEV1) is open"

Spec = dict[str, list[tuple[bool | None, str]]]
"""case id -> per repeat (trial verdict: True pass, False fail, None errored; its answer)."""


def _record(run_id: str, spec: Spec, hour: int = 1, **kw: Any) -> RunRecord:
    """A run whose trials pass or fail as `spec` says and answer its text, with a reference."""
    outcomes = [(case, "lookup", [v for v, _ in reps]) for case, reps in spec.items()]
    record = synthetic_record(
        outcomes,
        run_id=run_id,
        started_at=f"2026-11-30T{hour:02d}:00:00+00:00",
        eval_set=kw.pop("eval_set", SET),
        **kw,
    )
    answers = {
        (case, r + 1): said for case, reps in spec.items() for r, (_, said) in enumerate(reps)
    }
    for i, trial in enumerate(record.trials):
        if trial.status == "error":
            continue
        turn = trial.turns[0].model_copy(
            update={"response": answers[(trial.case_id, trial.repeat)], "reference": REFERENCE}
        )
        record.trials[i] = trial.model_copy(update={"turns": [turn]})
    return record


def _write(runs: Path, run_id: str, spec: Spec, hour: int = 1, **kw: Any) -> Path:
    path = runs / f"{run_id}.json"
    write_record(_record(run_id, spec, hour, **kw), path)
    return path


CASES = ["case-00", "case-01", "case-02", "case-03"]
A_GOOD: Spec = {c: [(True, GOOD)] for c in CASES}
B_MEH: Spec = {c: [(True, MEH)] for c in CASES}


def ab(*argv: str, budget: Budget | None = None) -> tuple[int, str, str]:
    """`ops-eval ab ARGV` through the command's parser; (exit code, stdout, stderr)."""
    parser = argparse.ArgumentParser(prog="ops-eval")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["ab", *argv])
    out, err = io.StringIO(), io.StringIO()
    code = run_ab(args, out, err, budget=budget)
    return code, out.getvalue(), err.getvalue()


def ab_json(*argv: str, budget: Budget | None = None) -> tuple[int, dict[str, Any], str]:
    code, out, err = ab(*argv, "--format", "json", budget=budget)
    return code, json.loads(out), err


@pytest.fixture
def runs(tmp_path, ops_env):
    ops_env.setenv("OPS_RUNS_DIR", str(tmp_path / "runs"))
    ops_env.setenv("OPS_EVAL_CACHE", str(tmp_path / "cache"))  # this test's verdicts only
    for name in ("OPS_JUDGE_MODEL", "OPS_JUDGE_BASE_URL", "OPS_JUDGE_PIN", "OPS_JUDGE_SCHEMA"):
        ops_env.delenv(name)
    (tmp_path / "runs").mkdir()
    return tmp_path / "runs"


def shown(request: dict[str, Any]) -> dict[str, Any]:
    """The document the judge was shown: the JSON inside the untrusted-data fence."""
    user = request["messages"][-1]["content"]
    body = user.split("<untrusted_data>\n", 1)[1].rsplit("\n</untrusted_data>", 1)[0]
    return json.loads(body)


def reply(preferred: str, rationale: str = "decided by the script") -> dict[str, Any]:
    body = {"analysis": "compared claim by claim", "preferred": preferred, "rationale": rationale}
    return text(json.dumps(body))


def always_first(request: dict[str, Any]) -> dict[str, Any]:
    return reply("first", "the first answer is shown first")


def prefers_good(request: dict[str, Any]) -> dict[str, Any]:
    """Prefers the answer holding GOOD wherever it is shown; neither or both: a tie."""
    data = shown(request)
    first, second = ("GOOD" in " ".join(data[k]) for k in ("first", "second"))
    return reply("first" if first and not second else "second" if second and not first else "tie")


@pytest.fixture
def judge_at(ops_env):
    """A scripted judge served over HTTP and named by OPS_JUDGE_*: (base URL, requests)."""

    def serve(script):
        server = fake_openai(script)
        url, received = server.__enter__()
        ops_env.setenv("OPS_JUDGE_MODEL", "fake")
        ops_env.setenv("OPS_JUDGE_BASE_URL", url)
        opened.append(server)
        return received

    opened: list[Any] = []
    yield serve
    for server in opened:
        server.__exit__(None, None, None)


BIG = Budget(limit=10_000_000, source="test")


# -- the judge, both orders ---------------------------------------------------------------------


def test_a_judge_that_always_prefers_the_first_position_wins_nothing(runs, judge_at):
    _write(runs, "runa0001", A_GOOD)
    _write(runs, "runb0001", B_MEH, 2)
    received = judge_at(always_first)
    code, out, err = ab("runa0001", "runb0001", budget=BIG)
    assert code == 0, err
    assert "wins 0, ties 4 (4 position-inconsistent), losses 0" in out
    assert "position-inconsistent: 4 of 4 judged pair(s), counted as ties" in out
    assert "position consistency: 0/4 0% (95% CI 0%–49%)" in out
    assert out.count("tie (position-inconsistent) -- order 1 (A first): first (A); order 2 "
                     "(B first): first (B)") == 4  # fmt: skip
    from ops_eval.judging.setup import configured

    pin = configured().pin  # type: ignore[union-attr]  # however pins are spelt
    assert f"judge: {pin}, prompt pair-" in out and "comparison: done" in out
    # Each pair was asked twice, the answers swapped between the two asks.
    assert len(received) == 8
    firsts = [shown(r)["first"] for r in received]
    assert firsts == [[GOOD], [MEH]] * 4


def test_the_always_first_judge_in_json(runs, judge_at):
    _write(runs, "runa0001", A_GOOD)
    _write(runs, "runb0001", B_MEH, 2)
    judge_at(always_first)
    code, report, _ = ab_json("runa0001", "runb0001", budget=BIG)
    assert code == 0
    assert (report["wins"], report["ties"], report["losses"]) == (0, 4, 0)
    assert report["inconsistent"] == 4 and report["no_verdict"] == 0
    consistency = report["consistency"]
    assert (consistency["k"], consistency["n"], consistency["rate"]) == (0, 4, 0.0)
    assert consistency["low"] == 0.0 and consistency["high"] == pytest.approx(0.4899, abs=1e-4)
    assert report["judge"]["calls"] == 8 and report["judge"]["cache_hits"] == 0
    assert report["prompt_version"].startswith("pair-")
    assert {(p["order1"], p["order2"], p["outcome"]) for p in report["pairs"]} == {
        ("first", "first", "inconsistent")
    }


def test_a_judge_that_prefers_the_better_answer_in_either_position_decides(runs, judge_at):
    _write(runs, "runa0001", A_GOOD)
    _write(runs, "runb0001", B_MEH, 2)
    received = judge_at(prefers_good)
    code, out, _ = ab("runa0001", "runb0001", budget=BIG)
    assert code == 0
    assert "wins 4, ties 0 (0 position-inconsistent), losses 0" in out
    assert "position consistency: 4/4 100% (95% CI 51%–100%)" in out
    assert "A wins -- order 1 (A first): first (A); order 2 (B first): second (A)" in out
    # The judge was shown the question, both answers and the reference.
    data = shown(received[0])
    assert data == {
        "questions": ["status of case-00?"],
        "first": [GOOD],
        "second": [MEH],
        "reference": [REFERENCE],
    }
    code, out, _ = ab("runb0001", "runa0001", budget=BIG)  # swapped: the same pairs, lost
    assert code == 0
    assert "wins 0, ties 0 (0 position-inconsistent), losses 4" in out


def test_two_runs_the_judge_cannot_tell_apart_tie_consistently(runs, judge_at):
    _write(runs, "runa0001", A_GOOD)
    _write(runs, "runb0001", A_GOOD, 2)
    judge_at(prefers_good)
    code, report, _ = ab_json("runa0001", "runb0001", budget=BIG)
    assert code == 0
    assert (report["wins"], report["ties"], report["losses"], report["inconsistent"]) == (
        0,
        4,
        0,
        0,
    )
    assert report["consistency"]["k"] == 4 and report["consistency"]["n"] == 4


def test_an_answer_the_harness_wrote_at_an_approval_pause_is_not_shown_as_the_agents(
    runs, judge_at
):
    record = _record("runa0001", {"case-00": [(True, GOOD)]})
    pause = Turn(
        index=1,
        prompt="restart it",
        response="waiting for approval; no state change",
        response_synthesized=True,
    )
    record.trials[0] = record.trials[0].model_copy(
        update={"turns": [*record.trials[0].turns, pause]}
    )
    write_record(record, runs / "runa0001.json")
    _write(runs, "runb0001", {"case-00": [(True, MEH)]}, 2)  # B never reached turn 1
    received = judge_at(prefers_good)
    assert ab("runa0001", "runb0001", budget=BIG)[0] == 0
    data = shown(received[0])
    assert data["questions"] == ["status of case-00?", "restart it"]
    assert data["first"] == [GOOD, NO_OWN_ANSWER]
    assert data["second"][0] == MEH and data["second"][1].startswith("(no answer")
    assert data["reference"] == [REFERENCE, NO_REFERENCE]
    assert "no state change" not in json.dumps(data)  # the harness's words are not the agent's


# -- errors, the cache and the budget ---------------------------------------------------------


def test_a_judge_error_leaves_its_pair_without_a_verdict_and_the_run_incomplete(
    runs, judge_at, capsys
):
    _write(runs, "runa0001", A_GOOD)
    _write(runs, "runb0001", B_MEH, 2)

    def script(request: dict[str, Any]) -> dict[str, Any]:
        data = shown(request)
        if data["questions"] == ["status of case-01?"] and data["first"] == [MEH]:
            raise ConnectionError("the judge fell over")  # order 2 only: no HTTP reply
        if data["questions"] == ["status of case-02?"]:
            return text("I think the first one is better.")
        return prefers_good(request)

    judge_at(script)
    code, out, _ = ab("runa0001", "runb0001", budget=BIG)
    assert code == 3
    assert "wins 2, ties 0 (0 position-inconsistent), losses 0; 2 pair(s) with no verdict" in out
    assert "no verdict: case-01 #1 [judge_error]: order 2 (B first): the judge call failed:" in out
    assert "no verdict: case-02 #1 [judge_error]: order 1 (A first): the judge's reply is not a " \
        "valid PairVerdict" in out  # fmt: skip
    assert "position consistency: 2/2 100%" in out  # errors are not in its denominator
    assert "comparison: INCOMPLETE -- 2 pair(s) had no verdict because a judge call failed" in out
    code, report, _ = ab_json("runa0001", "runb0001", budget=BIG)
    assert code == 3 and report["judge_errors"] == 2 and report["complete"] is False
    pair = next(p for p in report["pairs"] if p["case_id"] == "case-01")
    assert (pair["order1"], pair["order2"], pair["outcome"]) == ("first", None, "no_verdict")
    assert capsys.readouterr().out == ""  # LiteLLM's help banner kept off the process's stdout


def test_a_second_run_is_answered_from_the_cache_without_calling_the_judge(runs, judge_at):
    _write(runs, "runa0001", A_GOOD)
    _write(runs, "runb0001", B_MEH, 2)
    received = judge_at(prefers_good)
    code, first, _ = ab_json("runa0001", "runb0001", budget=BIG)
    assert code == 0 and len(received) == 8 and first["judge"]["cache_hits"] == 0
    code, out, _ = ab("runa0001", "runb0001", budget=BIG)
    assert code == 0 and len(received) == 8  # no HTTP call
    assert "judge calls: 0 made, 8 cache hit(s), 0 error(s), 0 tokens" in out
    assert "wins 4, ties 0 (0 position-inconsistent), losses 0" in out
    assert out.count("[2 cached]") == 4


def test_only_the_calls_that_failed_are_asked_again(runs, judge_at):
    _write(runs, "runa0001", A_GOOD)
    _write(runs, "runb0001", B_MEH, 2)
    failing = {"on": True}

    def script(request: dict[str, Any]) -> dict[str, Any]:
        data = shown(request)
        if failing["on"] and data["questions"] == ["status of case-01?"] and data["first"] == [MEH]:
            return text("{not json")
        return prefers_good(request)

    received = judge_at(script)
    assert ab("runa0001", "runb0001", budget=BIG)[0] == 3
    assert len(received) == 8
    failing["on"] = False
    code, report, _ = ab_json("runa0001", "runb0001", budget=BIG)
    assert code == 0 and report["wins"] == 4
    assert len(received) == 9  # case-01 order 2, the one call that had no verdict
    assert report["judge"]["cache_hits"] == 7 and report["judge"]["calls"] == 1


def _gate_yaml(tmp_path: Path, budget_line: str) -> Path:
    shipped = (REPO / "evals" / "gate.yaml").read_text()
    assert "judge_budget_tokens: 400000" in shipped
    path = tmp_path / "gate.yaml"
    path.write_text(shipped.replace("judge_budget_tokens: 400000", budget_line))
    return path


def test_a_budget_too_small_for_one_call_makes_no_call(runs, judge_at, tmp_path):
    _write(runs, "runa0001", A_GOOD)
    _write(runs, "runb0001", B_MEH, 2)
    received = judge_at(always_first)
    budget = gate_budget(_gate_yaml(tmp_path, "judge_budget_tokens: 100"))
    code, out, _ = ab("runa0001", "runb0001", budget=budget)
    assert code == 3 and received == []
    assert out.count("[judge_error]: order 1 (A first): budget_blocked: this call could cost") == 4
    assert "0 made" in out and "4 blocked by the budget; budget 100 tokens" in out
    assert "comparison: INCOMPLETE" in out


def test_no_judge_call_is_made_beyond_the_budget(runs, judge_at, tmp_path, ops_env):
    _write(runs, "runa0001", A_GOOD)
    _write(runs, "runb0001", B_MEH, 2)
    received = judge_at(always_first)
    assert ab("runa0001", "runb0001", budget=BIG)[0] == 0
    bounds = {call_bound(r["messages"], 512) for r in received}
    assert len(bounds) == 1  # every call costs the same at most: the pairs are alike
    # The fake server reports 2 tokens a call: with the limit at bound + 5, a call is made while
    # at most 4 are spent -- three calls: pair 1 in both orders, pair 2 in order 1 only.
    ops_env.setenv("OPS_EVAL_CACHE", str(tmp_path / "cache2"))  # nothing answered from a cache
    budget = gate_budget(_gate_yaml(tmp_path, f"judge_budget_tokens: {bounds.pop() + 5}"))
    code, report, _ = ab_json("runa0001", "runb0001", budget=budget)
    assert code == 3
    assert len(received) == 8 + 3
    outcomes = [(p["case_id"], p["outcome"], p["no_verdict"]) for p in report["pairs"]]
    assert outcomes == [
        ("case-00", "inconsistent", None),
        ("case-01", "no_verdict", "judge_error"),
        ("case-02", "no_verdict", "judge_error"),
        ("case-03", "no_verdict", "judge_error"),
    ]
    assert report["judge"]["budget_blocked"] == 3 and report["judge"]["calls"] == 3
    blocked = report["pairs"][1]
    assert blocked["order1"] == "first" and blocked["reason"].startswith(
        "order 2 (B first): budget_blocked: this call could cost"
    )


def test_a_policy_without_a_judge_budget_is_refused_before_any_call(runs, judge_at, tmp_path):
    _write(runs, "runa0001", A_GOOD)
    _write(runs, "runb0001", B_MEH, 2)
    received = judge_at(always_first)
    budget = gate_budget(_gate_yaml(tmp_path, ""))
    code, out, err = ab("runa0001", "runb0001", budget=budget)
    assert (code, out, received) == (2, "", [])
    assert err == (
        f"error: judge budget: {tmp_path / 'gate.yaml'} declares no judge_budget_tokens; no "
        "judge call could be made\n"
    )


# -- without a judge --------------------------------------------------------------------------


def test_without_a_judge_the_gating_verdicts_decide_and_it_says_so(runs):
    a = {"case-00": [True, True], "case-01": [False, False], "case-02": [True] * 2,
         "case-03": [None, None]}  # fmt: skip
    b = {"case-00": [False, True], "case-01": [True, True], "case-02": [True] * 2,
         "case-03": [True, True]}  # fmt: skip
    _write(runs, "runa0001", {c: [(v, GOOD) for v in vs] for c, vs in a.items()})
    _write(runs, "runb0001", {c: [(v, MEH) for v in vs] for c, vs in b.items()}, 2)
    code, out, err = ab("runa0001", "runb0001")
    assert code == 0
    assert "warning: no judge configured (OPS_JUDGE_MODEL is unset)" in err
    assert "NO JUDGE: no judge configured (OPS_JUDGE_MODEL is unset): compared by the " \
        "deterministic gating verdicts (scorers: trajectory, " in out  # fmt: skip
    assert "; left out, as they use a judge: llm_judge); a passing trial beats" in out
    assert "wins 1, ties 3 (0 position-inconsistent), losses 2; 2 pair(s) with no verdict" in out
    assert "position consistency: not applicable" in out and "95% CI" not in out
    assert "case-00 #1: A wins -- A pass, B fail" in out
    assert "case-01 #2: B wins -- A fail, B pass" in out
    assert "no verdict: case-03 #1 [trial_error]: run A's trial errored (model error)" in out
    assert "comparison: done" in out
    code, report, _ = ab_json("runa0001", "runb0001")
    assert report["method"] == "deterministic" and report["consistency"] is None
    assert report["judge"] is None and report["no_judge"].startswith("no judge configured")


def _judged(record: RunRecord, outcomes: list[str]) -> RunRecord:
    """`record` with each trial's llm_judge score set to the outcome given (a judge's verdict)."""
    from ops_eval.scorers.base import Score

    for i, (trial, outcome) in enumerate(zip(record.trials, outcomes, strict=True)):
        scores = {**trial.scores, "llm_judge": Score(outcome=outcome, detail="a judge said so")}
        record.trials[i] = trial.model_copy(update={"scores": scores})
    return refigured(record)


def test_without_a_judge_no_scorer_that_uses_a_judge_decides(runs):
    """Runs scored with a judge, compared without one: their `llm_judge` scores are a judge's
    verdicts, so they are left out -- on every deterministic scorer the two runs are equal."""
    from ops_eval.scorers import registered

    judge_scorers = sorted(n for n, s in registered().items() if s.uses_judge)
    assert judge_scorers == ["llm_judge"]
    write_record(_judged(_record("runa0001", A_GOOD), ["fail"] * 4), runs / "runa0001.json")
    write_record(_judged(_record("runb0001", B_MEH, 2), ["pass"] * 4), runs / "runb0001.json")
    code, out, err = ab("runa0001", "runb0001")
    assert code == 0, err
    assert "wins 0, ties 4 (0 position-inconsistent), losses 0; 0 pair(s) with no verdict" in out
    assert out.count("tie -- A pass, B pass") == 4
    assert "left out, as they use a judge: llm_judge" in out
    assert "left out, as they use a judge: llm_judge)" in err  # the warning says it too
    _, report, _ = ab_json("runa0001", "runb0001")
    assert report["judge_scorers_left_out"] == ["llm_judge"]
    assert "llm_judge" not in report["gating_scorers"]
    assert {"trajectory", "facts", "exact"} <= set(report["gating_scorers"])


def test_without_a_judge_a_pair_with_no_gating_verdict_has_none(runs):
    record = _record("runa0001", {"case-00": [(True, GOOD)], "case-01": [(True, GOOD)]})
    trial = record.trials[0]
    silent = {name: s.model_copy(update={"outcome": "n/a"}) for name, s in trial.scores.items()}
    record.trials[0] = trial.model_copy(update={"scores": silent})
    write_record(refigured(record), runs / "runa0001.json")
    _write(runs, "runb0001", {"case-00": [(False, MEH)], "case-01": [(False, MEH)]}, 2)
    code, out, _ = ab("runa0001", "runb0001")
    assert code == 0
    assert "wins 1, ties 0 (0 position-inconsistent), losses 0; 1 pair(s) with no verdict" in out
    assert "no verdict: case-00 #1 [no_gating_verdict]: no gating scorer applied to run A's" in out


def test_without_a_judge_a_run_lacking_a_gating_scorer_is_refused(runs):
    _write(runs, "runa0001", A_GOOD)
    record = _record("runb0001", B_MEH, 2)
    for i, trial in enumerate(record.trials):
        scores = {k: v for k, v in trial.scores.items() if k != "facts"}
        record.trials[i] = trial.model_copy(update={"scores": scores})
    write_record(refigured(record), runs / "runb0001.json")
    code, out, err = ab("runa0001", "runb0001")
    assert (code, out) == (2, "")
    assert "error: run B runb0001: no trial carries the gating scorer(s) facts" in err


def test_when_every_pair_lacks_a_verdict_the_comparison_exits_3(runs):
    _write(runs, "runa0001", {"case-00": [(None, "")], "case-01": [(True, GOOD)]})
    _write(runs, "runb0001", {"case-00": [(True, MEH)], "case-01": [(None, "")]}, 2)
    code, out, _ = ab("runa0001", "runb0001")
    assert code == 3
    assert "comparison: INCOMPLETE -- no pair could be compared (exit 3)" in out
    assert "run B's trial errored" in out


# -- what is paired, and what is refused ------------------------------------------------------


def test_trials_only_one_run_holds_are_counted_and_named(runs):
    _write(runs, "runa0001", {"case-00": [(True, GOOD)] * 2, "case-01": [(True, GOOD)] * 2})
    _write(runs, "runb0001", {"case-01": [(False, MEH)], "case-02": [(True, MEH)]}, 2)
    code, out, _ = ab(str(runs / "runa0001.json"), "runb00")  # a path, and an id prefix
    assert code == 0, out
    assert (
        "pairs: 1 trials (case x repeat) both runs hold; left out: 3 of run A's trials (case-00 "
        "#1, case-00 #2, case-01 #2) that B lacks; 1 of run B's trials (case-02 #1) that A lacks"
    ) in out
    assert "wins 1, ties 0" in out


def test_what_else_differs_is_shown(runs):
    _write(runs, "runa0001", A_GOOD)
    _write(runs, "runb0001", B_MEH, 2, model="other/model")
    code, out, _ = ab("runa0001", "runb0001")
    assert code == 0
    assert "what differs: model: synthetic/model -> other/model" in out


@pytest.mark.parametrize(
    ("b_kw", "message"),
    [
        # Records without case hashes (version 5): the whole set must be the same, as before.
        ({"eval_set_sha256": "f" * 64, "schema_version": 5},
         "different eval sets: run runa0001 ran evals/ops.evalset.json (sha256 eeeeeeeeeeee), "
         "run runb0001 ran evals/ops.evalset.json "
         "(sha256 ffffffffffff)"),
        ({"eval_set": "evals/holdout.evalset.json"}, "different eval sets: run runa0001 ran "
         "evals/ops.evalset.json (sha256 eeeeeeeeeeee), run runb0001 ran "
         "evals/holdout.evalset.json"),
    ],
)  # fmt: skip
def test_runs_of_different_eval_sets_are_refused(runs, judge_at, b_kw, message):
    _write(runs, "runa0001", A_GOOD, schema_version=b_kw.get("schema_version", 6))
    _write(runs, "runb0001", B_MEH, 2, **b_kw)
    received = judge_at(always_first)
    code, out, err = ab("runa0001", "runb0001", budget=BIG)
    assert (code, out, received) == (2, "", [])
    assert err.startswith(f"error: {message}") and err.count("\n") == 1


def test_a_case_changed_between_the_runs_is_left_out_and_named(runs):
    """Run B played the set grown by a case and with case-01 corrected: its sha256 differs, and
    the pairs are the cases both played at one version."""
    from ops_eval.results.synthetic import case_hash

    a = {c: [(True, GOOD)] for c in ("case-00", "case-01")}
    b = {**{c: [(False, MEH)] for c in ("case-00", "case-01")}, "case-02": [(True, MEH)]}
    _write(runs, "runa0001", a)
    edited = {"case-01": (2, case_hash("case-01", edit=1))}
    _write(runs, "runb0001", b, 2, eval_set_sha256="f" * 64, versions=edited)
    code, out, _ = ab("runa0001", "runb0001")
    assert code == 0
    assert "pairs: 1 trials (case x repeat) both runs hold" in out
    assert "1 of run B's trials (case-02 #1) that A lacks" in out
    assert "changed since A, left out: case-01 v1 -> v2" in out
    assert "case-00 #1: A wins" in out and "case-01 #1" not in out
    assert "wins 1, ties 0 (0 position-inconsistent), losses 0" in out
    code, report, _ = ab_json("runa0001", "runb0001")
    assert report["changed"] == ["case-01 v1 -> v2"]
    assert [p["case_id"] for p in report["pairs"]] == ["case-00"]


def test_runs_with_no_shared_case_are_refused(runs):
    _write(runs, "runa0001", {"case-00": [(True, GOOD)]})
    _write(runs, "runb0001", {"case-01": [(True, MEH)]}, 2)
    code, out, err = ab("runa0001", "runb0001")
    assert (code, out) == (2, "")
    assert err == "error: no shared case: run runa0001 holds case-00; run runb0001 holds case-01\n"


@pytest.mark.parametrize("other", ["runa0001", "runa00", "{runs}/runa0001.json"])
def test_the_same_run_twice_is_refused(runs, other):
    _write(runs, "runa0001", A_GOOD)
    code, out, err = ab("runa0001", other.format(runs=runs))
    assert (code, out) == (2, "")
    assert "error: RUN_A and RUN_B are both run runa0001" in err
    assert "compare two different runs" in err


def test_a_pinned_copy_of_a_run_is_the_same_run(runs):
    path = _write(runs, "runa0001", A_GOOD)
    (runs / "baselines").mkdir()
    copy = runs / "baselines" / "runa0001.json"
    copy.write_bytes(path.read_bytes())
    code, _, err = ab(str(path), str(copy))
    assert code == 2
    assert f"both run runa0001 ({path} and {copy})" in err


def test_an_unknown_run_is_refused(runs):
    _write(runs, "runa0001", A_GOOD)
    code, out, err = ab("runa0001", "nosuchrun")
    assert (code, out) == (2, "")
    assert err.startswith("error: no run record nosuchrun: not a file, and no run under")
