"""`ops-eval calibrate` end to end through the real judge route: OPS_JUDGE_* name a scripted
judge served over HTTP (tests/fake_openai.py), reached through LiteLLM like any OpenAI-compatible
server, its replies validated as a real judge's are. Scripted judges prove the plumbing and the
arithmetic, not any model's quality; the oracle below is named as such."""

from __future__ import annotations

import json

import pytest
from calibration_helpers import (
    SHIPPED_SET,
    calibrate_cli,
    graded_item,
    isolate,
    labels_by_answer,
    serve_judge,
    shipped_items,
    verdict,
    write_set,
)

from fake_openai import text
from ops_eval.calibration import read_reports
from ops_eval.judge import GRADING


@pytest.fixture
def reports(tmp_path, ops_env):
    return isolate(tmp_path, ops_env)


@pytest.fixture
def scripted_judge(ops_env, reports):
    """scripted_judge(reply): a context manager serving the judge; yields its requests."""
    return lambda reply: serve_judge(ops_env, reply)


def always_pass(request):
    return verdict(True, "always pass")


def test_a_judge_that_always_passes_agrees_only_as_often_as_labels_say_pass(
    scripted_judge, reports, capsys
):
    with scripted_judge(always_pass) as received:
        code = calibrate_cli([])
    out = capsys.readouterr().out
    assert code == 1
    assert len(received) == 54  # one call per item, through the HTTP route
    assert received[0]["model"] == "fake" and received[0]["temperature"] == 0
    # agreement = the share of pass labels (28 of 54); kappa 0; every fail passed
    assert "agreement 28/54 = 0.52 (95% CI 0.39–0.65)" in out
    assert "kappa 0.00" in out
    assert "sensitivity 28/28 = 1.00" in out and "specificity 0/26 = 0.00" in out
    assert "r(answer length, judge pass) = undefined" in out  # the judge is constant
    assert "target: agreement >= 0.85 and kappa >= 0.60: MISSED" in out
    assert "  MISSED: agreement 28/54 = 0.52 is below 0.85" in out
    assert "  MISSED: kappa 0.00 is below 0.60" in out
    assert f"report appended to {reports} (line 1)" in out
    (report,) = read_reports(reports)
    assert (report.judge_pin, report.prompt_version) == ("fake", GRADING.version)
    assert not report.meets_target and report.certifies
    assert report.judge.calls == 54 and report.judge.tokens == 108  # 2 per call, as served


def test_oracle_judge_that_looks_up_the_human_labels_meets_the_target(
    scripted_judge, reports, capsys
):
    """An ORACLE: the scripted judge answers from the labels themselves. It proves the plumbing
    (request, reply, metrics, report, exit 0) -- nothing about any real judge."""
    labels = labels_by_answer()

    def oracle(request):
        return verdict(labels[graded_item(request)["answer"]], "oracle")

    with scripted_judge(oracle) as received:
        code = calibrate_cli(["--format", "json"])
    assert code == 0 and len(received) == 54
    data = json.loads(capsys.readouterr().out)
    assert data["meets_target"] is True and data["missed"] == []
    assert data["metrics"]["agreement"]["k"] == 54 and data["metrics"]["kappa"] == 1.0
    assert data["appended_to"] == {"path": str(reports), "line": 1}
    # every request carried the item's rubric and reference to the judge
    item = graded_item(received[0])
    assert set(item) == {"question", "answer", "rubric", "reference"}


def test_a_rerun_is_answered_from_the_cache_and_says_so(scripted_judge, reports, capsys):
    labels = labels_by_answer()

    def oracle(request):
        return verdict(labels[graded_item(request)["answer"]], "oracle")

    with scripted_judge(oracle) as received:
        assert calibrate_cli([]) == 0
        assert calibrate_cli([]) == 0
        assert len(received) == 54  # the second run asked nothing
        assert calibrate_cli(["--no-cache"]) == 0
        assert len(received) == 108
    first, second, third = read_reports(reports)
    assert not any(o.cached for o in first.outcomes)
    assert all(o.cached for o in second.outcomes) and second.judge.cache_hits == 54
    assert not any(o.cached for o in third.outcomes)
    assert "judge calls 0, cache hits 54, tokens 0" in capsys.readouterr().out


@pytest.mark.parametrize("label", ["pass", "fail"])
def test_a_set_of_one_class_is_refused_before_any_judge_call(
    label, scripted_judge, reports, tmp_path, capsys
):
    kind = "correct" if label == "pass" else "wrong"
    items = [i for i in shipped_items() if i["label"] == label][:3]
    path = write_set(tmp_path, [{**i, "kind": kind} for i in items])
    with scripted_judge(always_pass) as received:
        code = calibrate_cli(["--set", str(path)])
    assert code == 2 and received == []
    err = capsys.readouterr().err
    assert f"every one of its 3 items is labelled {label}" in err
    assert "certifies nothing" in err and "no judge was asked" in err
    assert not reports.exists()


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--min-agreement", "0.8"], "--min-agreement 0.8: may only raise the target 0.85"),
        (["--min-kappa", "0.59"], "--min-kappa 0.59: may only raise the target 0.6"),
    ],
)
def test_flags_may_not_lower_the_target(flags, said, scripted_judge, reports, capsys):
    with scripted_judge(always_pass) as received:
        assert calibrate_cli(flags) == 2
    assert said in capsys.readouterr().err
    assert received == [] and not reports.exists()


def test_flags_raise_the_target_and_the_report_keeps_it(scripted_judge, reports, capsys):
    labels = labels_by_answer()
    wrong = {next(a for a, p in labels.items() if p)}  # one pass judged fail: 53/54 = 0.981

    def nearly(request):
        answer = graded_item(request)["answer"]
        return verdict(labels[answer] and answer not in wrong, "nearly an oracle")

    with scripted_judge(nearly):
        assert calibrate_cli([]) == 0  # 0.98 meets 0.85
        assert calibrate_cli(["--min-agreement", "0.99", "--min-kappa", "0.7"]) == 1
    out = capsys.readouterr().out
    assert "target: agreement >= 0.99 and kappa >= 0.70: MISSED" in out
    assert "MISSED: agreement 53/54 = 0.98 is below 0.99" in out
    met, missed = read_reports(reports)
    assert (missed.target.agreement, missed.target.kappa) == (0.99, 0.7)
    assert met.meets_target and not missed.meets_target


def test_malformed_replies_are_errors_that_count_against_the_judge(scripted_judge, reports, capsys):
    labels = labels_by_answer()
    first = shipped_items()[0]["answer"].strip()

    def flaky(request):
        answer = graded_item(request)["answer"]
        if answer == first:
            return text('{"passed": "yes"}')  # no analysis, not a boolean: no verdict
        return verdict(labels[answer], "oracle otherwise")

    with scripted_judge(flaky):
        assert calibrate_cli([]) == 1
    out = capsys.readouterr().out
    assert "agreement 53/54" in out and "errors: 1 of 54" in out
    assert "MISSED: 1 of 54 items got no verdict (judge errors)" in out
    assert "status-inventory-correct: labelled pass, judge error: the judge's reply is not" in out
    (report,) = read_reports(reports)
    (errored,) = [o for o in report.outcomes if o.error]
    assert errored.id == "status-inventory-correct" and errored.verdict is None


def test_a_judge_that_answers_nothing_valid_exits_3_and_appends_nothing(
    scripted_judge, reports, capsys
):
    with scripted_judge(lambda request: text("I think it is fine.")) as received:
        assert calibrate_cli([]) == 3
    assert len(received) == 54
    err = capsys.readouterr().err
    assert "the judge gave no verdict on any of the 54 items" in err
    assert "no report was appended" in err
    assert not reports.exists()


def test_an_unreachable_judge_exits_3(ops_env, reports, capsys):
    ops_env.setenv("OPS_JUDGE_MODEL", "fake")
    ops_env.setenv("OPS_JUDGE_BASE_URL", "http://127.0.0.1:9/v1")
    assert calibrate_cli([]) == 3
    assert "the judge call failed" in capsys.readouterr().err
    assert not reports.exists()


def test_no_judge_configured_is_bad_configuration(ops_env, reports, capsys):
    ops_env.delenv("OPS_JUDGE_MODEL")
    ops_env.delenv("OPS_JUDGE_BASE_URL")
    assert calibrate_cli([]) == 2
    err = capsys.readouterr().err
    assert "no judge configured (OPS_JUDGE_MODEL is unset)" in err
    assert "there is no judge to calibrate" in err
    assert not reports.exists()


def test_a_small_set_runs_but_certifies_nothing(scripted_judge, reports, tmp_path, capsys):
    labels = labels_by_answer()
    items = shipped_items()[:6]
    assert {i["label"] for i in items} == {"pass", "fail"}
    path = write_set(tmp_path, items)

    def oracle(request):
        return verdict(labels[graded_item(request)["answer"]], "oracle")

    with scripted_judge(oracle):
        assert calibrate_cli(["--set", str(path)]) == 1
    out = capsys.readouterr().out
    assert "agreement 6/6 = 1.00" in out  # perfect, and still not enough
    assert "CERTIFIES NOTHING: 6 items, fewer than the 40 a calibration needs" in out
    assert "MISSED: the set certifies nothing" in out
    (report,) = read_reports(reports)
    assert not report.certifies and not report.meets_target


def test_a_broken_report_log_is_refused_before_any_judge_call(scripted_judge, reports, capsys):
    reports.parent.mkdir(parents=True)
    reports.write_text('{"not": "a chained line"}\n')
    with scripted_judge(always_pass) as received:
        assert calibrate_cli([]) == 2
    assert received == []
    assert f"{reports}: line 1: has no hash or prev" in capsys.readouterr().err
    assert reports.read_text() == '{"not": "a chained line"}\n'


def test_a_bad_set_is_refused_before_any_judge_call(scripted_judge, reports, tmp_path, capsys):
    items = shipped_items()[:2]
    path = write_set(tmp_path, [items[0], items[0], items[1]])
    with scripted_judge(always_pass) as received:
        assert calibrate_cli(["--set", str(path)]) == 2
    assert received == []
    assert "id used twice" in capsys.readouterr().err


def test_the_shipped_set_is_the_default(scripted_judge, reports, capsys):
    with scripted_judge(always_pass):
        calibrate_cli(["--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert data["set_path"] in {"evals/calibration/set.yaml", str(SHIPPED_SET)}
    assert len(data["outcomes"]) == 54
