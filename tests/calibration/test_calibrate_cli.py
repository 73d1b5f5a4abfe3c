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

from fake_openai import fake_openai, text
from ops_eval.judging import GRADING
from ops_eval.judging.calibration import read_reports
from support import REPO


@pytest.fixture
def reports(tmp_path, ops_env):
    return isolate(tmp_path, ops_env)


@pytest.fixture
def scripted_judge(ops_env, reports):
    """scripted_judge(reply): a context manager serving the judge; yields its requests."""
    return lambda reply: serve_judge(ops_env, reply)


def always_pass(request):
    return verdict(True, "always pass")


def the_pin() -> str:
    """The configured judge's pin, however pins are spelt."""
    from ops_eval.judging.setup import configured

    return configured().pin  # type: ignore[union-attr]


def oracle_of_labels():
    """An ORACLE: a scripted judge answering from the labels themselves."""
    labels = labels_by_answer()
    return lambda request: verdict(labels[graded_item(request)["answer"]], "oracle")


def test_a_judge_that_always_passes_agrees_only_as_often_as_labels_say_pass(
    scripted_judge, reports, capsys
):
    with scripted_judge(always_pass) as received:
        code = calibrate_cli([])
        pin = the_pin()
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
    assert (
        f"gate: judge {pin} with prompt {GRADING.version} is uncalibrated from this report on: "
        "the project's target is missed"
    ) in out
    assert "judge calls 54 (no verdict cache: every item asked now), tokens 108 of a " in out
    assert "cache hits" not in out
    assert f"report appended to {reports} (line 1)" in out
    (report,) = read_reports(reports)
    assert (report.judge_pin, report.prompt_version) == (pin, GRADING.version)
    assert not report.meets_target and report.certifies
    assert report.judge.calls == 54 and report.judge.tokens == 108  # 2 per call, as served


def test_oracle_judge_that_looks_up_the_labels_meets_the_target_and_certifies(
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
    trust = data["appended_to"].pop("trust")
    assert data["appended_to"] == {"path": str(reports), "line": 1}
    assert trust.startswith(f"{reports} is not signed (OPS_LEDGER_KEY unset)")
    assert data["gate"]["counts"] is True and data["judge"]["cache_hits"] == 0
    assert data["gate"]["says"].startswith("this report certifies judge ")
    # every request carried the item's rubric and reference to the judge
    item = graded_item(received[0])
    assert set(item) == {"question", "answer", "rubric", "reference"}


def test_a_calibration_never_reads_the_verdict_cache(scripted_judge, reports, capsys):
    """A rerun asks the judge again, every item: a cached verdict -- possibly written by anyone
    -- is not a measurement. Nor does a run that scored answers with the judge (and cached its
    verdicts) make the next calibration cheaper."""
    with scripted_judge(oracle_of_labels()) as received:
        assert calibrate_cli([]) == 0
        assert calibrate_cli([]) == 0
        assert len(received) == 108  # the second run asked every item again
    out = capsys.readouterr().out
    assert out.count("judge calls 54 (no verdict cache: every item asked now), tokens 108") == 2
    for report in read_reports(reports):
        assert not any(o.cached for o in report.outcomes) and report.judge.cache_hits == 0


def test_there_is_no_no_cache_flag(capsys):
    with pytest.raises(SystemExit) as info:
        calibrate_cli(["--no-cache"])
    assert info.value.code == 2
    assert "unrecognized arguments: --no-cache" in capsys.readouterr().err


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
    # the flags are a stricter look; the gate judges by the project's target, which is met
    assert (
        "it missed only the target the flags raised; the gate judges by the project's target "
        "(agreement >= 0.85, kappa >= 0.60), which it meets"
    ) in out
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
    assert "the judge gave no valid verdict on any of the 54 items" in err
    assert "no report was appended" in err
    assert not reports.exists()


def test_an_unreachable_judge_exits_3(ops_env, reports, capsys):
    ops_env.setenv("OPS_JUDGE_MODEL", "fake")
    ops_env.setenv("OPS_JUDGE_BASE_URL", "http://127.0.0.1:9/v1")
    assert calibrate_cli([]) == 3
    err = capsys.readouterr().err
    assert (
        "error: calibration stopped at item status-inventory-correct (1 of 54): the judge could "
        "not be reached (unreachable): the judge call failed"
    ) in err
    assert not reports.exists()


def test_a_judge_lost_midway_stops_the_calibration_and_appends_nothing(
    scripted_judge, reports, capsys
):
    """The server drops the connection on the fifth item: infrastructure, not evidence. The
    first four verdicts are not reported as a calibration with a hole in it."""
    oracle = oracle_of_labels()
    fifth = shipped_items()[4]["id"]

    def lost_at_five(request):
        if len(received) == 5:
            raise ConnectionAbortedError("the server went away")  # no reply is sent
        return oracle(request)

    with scripted_judge(lost_at_five) as received:
        assert calibrate_cli([]) == 3
    assert len(received) == 5  # nothing asked after the failure
    err = capsys.readouterr().err
    assert f"error: calibration stopped at item {fifth} (5 of 54): the judge could not be " in err
    assert "reached (unreachable): the judge call failed" in err
    assert "nothing was appended and the judge's standing is unchanged" in err
    assert not reports.exists()


def test_a_budget_that_runs_out_midway_stops_the_calibration_and_appends_nothing(
    ops_env, reports, tmp_path, monkeypatch, capsys
):
    """Each call reports 20,000 tokens against a budget of 50,000: the fourth call could exceed
    it, so it is not made -- the spend policy stopped the calibration, said as budget_blocked."""
    import ops_eval.validation.gate_config as config

    policy = tmp_path / "gate.yaml"
    policy.write_text(
        (REPO / "evals" / "gate.yaml")
        .read_text()
        .replace("judge_budget_tokens: 400000", "judge_budget_tokens: 50000")
    )
    monkeypatch.setattr(config, "gate_file", lambda evals_dir=None: policy)
    fourth = shipped_items()[3]["id"]
    with fake_openai(oracle_of_labels(), usage=20_000) as (url, received):
        ops_env.setenv("OPS_JUDGE_MODEL", "fake")
        ops_env.setenv("OPS_JUDGE_BASE_URL", url)
        assert calibrate_cli([]) == 3
    assert len(received) == 3
    err = capsys.readouterr().err
    assert (
        f"error: calibration stopped at item {fourth} (4 of 54): the judge budget refused the "
        "call (budget_blocked: the spend policy stopped it): budget_blocked: this call could cost"
    ) in err
    assert "nothing was appended" in err
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
    assert (
        "gate: this set is not the project's calibration set: the report is kept, it does not "
        "certify"
    ) in out
    (report,) = read_reports(reports)
    assert not report.certifies and not report.meets_target


def test_a_large_set_of_ones_own_meets_its_target_and_still_does_not_certify(
    scripted_judge, reports, tmp_path, capsys
):
    """50 of the shipped items, a judge that agrees with all of them: the target is met, but
    it is not the project's set -- the report is kept, says so, and the exit code is 1."""
    path = write_set(tmp_path, shipped_items()[:50])
    with scripted_judge(oracle_of_labels()):
        assert calibrate_cli(["--set", str(path)]) == 1
        assert calibrate_cli(["--set", str(path), "--format", "json"]) == 1
    out = capsys.readouterr().out
    assert "target: agreement >= 0.85 and kappa >= 0.60: MET" in out
    assert (
        "gate: this set is not the project's calibration set: the report is kept, it does not "
        "certify (made on "
    ) in out
    data = json.loads(out[out.index("\n{") :])
    assert data["meets_target"] is True and data["gate"]["counts"] is False
    assert data["gate"]["says"].startswith("this set is not the project's calibration set")
    assert len(read_reports(reports)) == 2  # kept


def test_the_shipped_set_named_explicitly_certifies(scripted_judge, reports, capsys):
    with scripted_judge(oracle_of_labels()):
        assert calibrate_cli(["--set", str(SHIPPED_SET)]) == 0
        pin = the_pin()
    out = capsys.readouterr().out
    assert f"gate: this report certifies judge {pin} with prompt {GRADING.version}" in out


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
    path = write_set(tmp_path, [items[0], items[1], {**items[0], "id": "copy"}])
    with scripted_judge(always_pass) as received:
        assert calibrate_cli(["--set", str(path)]) == 2
    assert received == []
    assert (
        f"item 'copy': the same question and answer as item '{items[0]['id']}'"
        in capsys.readouterr().err
    )


def test_the_shipped_set_is_the_default(scripted_judge, reports, capsys):
    with scripted_judge(always_pass):
        calibrate_cli(["--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert data["set_path"] in {"evals/calibration/set.yaml", str(SHIPPED_SET)}
    assert len(data["outcomes"]) == 54
