"""The five outcomes as every reader counts them: an `error` score (a scorer that applies but
reached no verdict) fails closed -- its trial fails, its case's gate fails, it counts in every
denominator as not passing, the gate's verdict and the reports say so -- while a `skipped`
score, like `n/a`, is left out of every denominator and decides nothing."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

from trial_records import trial as record_of

from ops_eval import Score, aggregate
from ops_eval.core.response_checks import RegexCheck
from ops_eval.deciding.gate.outcomes import tally, trial_verdict
from ops_eval.outputs.history.rows import trajectory_mean
from ops_eval.running.trials import scored_trial

ERROR = Score.error("the judge timed out")
SKIPPED = Score.skipped("no judge configured")
GATING = ["trajectory", "facts", "regex"]


def test_an_error_score_fails_the_trial_as_the_run_records_it(trial, plan):
    view = trial("open-incidents", results=True)  # it answered the reference: every check holds
    assert scored_trial(plan, view).status == "passed"
    bad = RegexCheck.model_construct(scorer="regex", pattern="(", ignore_case=False, turn=None)
    view.case = replace(view.case, meta=view.case.meta.model_copy(update={"response": [bad]}))
    record = scored_trial(plan, view)
    assert record.scores["regex"].outcome == "error"
    assert record.status == "failed"


def test_an_error_fails_the_case_gate_and_counts_against_its_scorer():
    trials = [record_of("a"), record_of("a", "failed", 2, regex=ERROR)]
    agg = aggregate([("a", "happy")], trials, repeats=2, threshold=1.0)
    assert agg.cases[0].gate is False
    regex = next(g for g in agg.scorers if g.name == "regex")
    assert (regex.rate.passed, regex.rate.n) == (0, 1)


def test_an_error_in_the_mean_gated_scorer_counts_0():
    trials = [record_of("a"), record_of("a", "failed", 2, trajectory=ERROR)]
    agg = aggregate([("a", "happy")], trials, repeats=2, threshold=0.5)
    assert agg.cases[0].means["trajectory"] == 0.5


def test_a_skipped_score_is_left_out_of_every_denominator_like_na():
    trials = [record_of("a", regex=Score.of(True)), record_of("a", repeat=2, regex=SKIPPED)]
    agg = aggregate([("a", "happy")], trials, repeats=2, threshold=1.0)
    assert agg.cases[0].gate is True
    regex = next(g for g in agg.scorers if g.name == "regex")
    assert (regex.rate.passed, regex.rate.n) == (1, 1)
    only_skipped = aggregate([("a", "happy")], [record_of("a", trajectory=SKIPPED)], 1, 1.0)
    assert only_skipped.cases[0].gate is None  # the gate metric said nothing: no verdict


def test_the_gate_reads_error_as_not_passing_and_skipped_as_not_applicable():
    assert trial_verdict(record_of("a", regex=ERROR), GATING) is False
    assert trial_verdict(record_of("a", regex=SKIPPED), GATING) is True
    silent = record_of("a", trajectory=SKIPPED, facts=Score(outcome="n/a"), regex=SKIPPED)
    assert trial_verdict(silent, GATING) is None
    counted = tally([record_of("a"), record_of("a", regex=ERROR), silent], GATING)
    assert (counted.k, counted.n, counted.silent) == (1, 2, 1)


def test_the_history_mean_leaves_skipped_trajectories_out():
    record = SimpleNamespace(
        trials=[
            record_of("a", trajectory=Score(outcome="pass", value=1.0)),
            record_of("b", trajectory=SKIPPED),
        ]
    )
    assert trajectory_mean(record) == 1.0


def test_the_reports_show_an_error_as_a_failure_with_its_detail():
    from ops_eval.outputs.report import html_report, markdown
    from ops_eval.results.synthetic import synthetic_record

    record = synthetic_record([("a", "happy", [False])])
    error = Score.error("invalid check(s), no verdict: response[0]")
    record.trials[0].scores = {**record.trials[0].scores, "regex": error}  # theirs are shared
    text = markdown(record)
    assert "- regex (error: no verdict): invalid check(s), no verdict: response[0]" in text
    page = html_report(record)
    assert "<td>regex</td><td class='gate-fail'>error</td>" in page


def test_a_flip_caused_by_an_error_names_it():
    from ops_eval.deciding.gate.flips import case_flips
    from ops_eval.results.synthetic import synthetic_record

    base = synthetic_record([("a", "happy", [True])])
    cand = synthetic_record([("a", "happy", [True])], run_id="cand")
    cand.trials[0].scores = {**cand.trials[0].scores, "regex": ERROR}
    flips, worse, _ = case_flips(base, cand, GATING)
    assert worse == 1
    assert flips[0].divergence.endswith("candidate trial #1 failed regex (error)")
