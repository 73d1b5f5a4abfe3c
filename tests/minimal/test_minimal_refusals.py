"""Under `--data minimal` every writer that would store text refuses, in one line, exit 2 --
the spans file, the `--record` recording, the judge's verdict cache, a live MLflow evaluation,
the libraries' log lines (written as labels instead) -- and so does every command that needs a
run's text (ab, distill, calibrate, MLflow's judge). A run without a key, or asking `--data
full` of a set the policy keeps minimal, never starts. Merge keeps a minimal run minimal."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from ops_eval import RunOptions, execute, read_evalset
from ops_eval.base.data_policy import TextRefused, holding
from ops_eval.base.exits import OpsEvalError
from ops_eval.cli import main
from ops_eval.models.stand_ins import OracleLlm, fixed_model
from support import REPO

KEY = "team-key-0123456789abcdef"
OPS = REPO / "evals" / "ops.evalset.json"
CASES = ["service-status-inventory", "restart-needs-approval", "unknown-incident-inc-999"]


def _oracle():
    return fixed_model(OracleLlm.from_cases(read_evalset(OPS).cases), "oracle", "test model")


@pytest.fixture
def keyed(ops_env, tmp_path):
    ops_env.setenv("OPS_EVAL_DATA_KEY", KEY)
    ops_env.setenv("OPS_RUNS_DIR", str(tmp_path / "runs"))
    return tmp_path


def _minimal_run(folder: Path, name: str = "min.json", **options) -> Path:
    out = folder / name
    execute(RunOptions(set_path=OPS, cases=CASES, output=out, data="minimal", **options),
            chooser=_oracle())  # fmt: skip
    return out


def _one_line_exit_2(argv: list[str], capsys, *needles: str) -> str:
    capsys.readouterr()  # what came before
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err, err
    for needle in needles:
        assert needle in err, err
    return err


def test_the_spans_writer_refuses_text_under_minimal(tmp_path):
    from ops_eval.playing.spans import spans_path, write_spans

    with holding("minimal"), pytest.raises(TextRefused) as refused:
        write_spans(tmp_path / "r.json", "run1", {("case", 1): [{"name": "a prompt"}]})
    assert str(refused.value).startswith("spans file: refused under --data minimal")
    assert refused.value.code == 2
    assert not spans_path(tmp_path / "r.json").exists()
    write_spans(tmp_path / "r.json", "run1", {})  # outside a minimal run it writes, as before
    assert spans_path(tmp_path / "r.json").exists()


def test_the_recording_writer_refuses_text_under_minimal(tmp_path):
    from ops_eval.models.stand_ins.replay import RecordingLlm

    inner = OracleLlm(turns={})
    with holding("minimal"), pytest.raises(TextRefused, match=r"^--record: refused under"):
        RecordingLlm.to_file(inner, tmp_path / "rec.jsonl")
    assert not (tmp_path / "rec.jsonl").exists()


def test_the_judge_cache_refuses_a_verdict_under_minimal(tmp_path):
    from ops_eval.judging.cache import VerdictCache

    cache = VerdictCache(tmp_path / "verdicts.sqlite")
    with holding("minimal"), pytest.raises(TextRefused, match=r"^judge cache: refused under"):
        cache.put("k", "pin", "v1", {"passed": True, "rationale": "the answer says X"}, 10)
    assert len(cache) == 0
    cache.put("k", "pin", "v1", {"passed": True, "rationale": "the answer says X"}, 10)
    assert len(cache) == 1


def test_library_log_lines_are_written_as_labels_under_minimal(capsys):
    from ops_eval.base.model_logs import model_logs

    with model_logs(labels=60):
        logging.getLogger("google_adk.x").warning(
            "removed link https://u:hunter2@x.example/y for %s", "bob@corp.example"
        )
    err = capsys.readouterr().err
    assert "removed link [url] for [email]" in err
    assert "hunter2" not in err and "bob@" not in err


def test_a_minimal_run_without_a_key_or_with_a_short_one_never_starts(ops_env, tmp_path, capsys):
    ops_env.delenv("OPS_EVAL_DATA_KEY")
    out = tmp_path / "r.json"
    argv = ["run", "--data", "minimal", "--output", str(out), "--model", "nowhere/x"]
    _one_line_exit_2(argv, capsys, "--data minimal needs a key of your own in OPS_EVAL_DATA_KEY")
    ops_env.setenv("OPS_EVAL_DATA_KEY", "short")
    _one_line_exit_2(argv, capsys, "OPS_EVAL_DATA_KEY: 5 character(s)")
    assert not out.exists()


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--record", "REC"], "--record: refused under minimal data"),
        (["--verbose"], "--verbose: refused under minimal data"),
    ],
)
def test_a_minimal_run_refuses_the_options_that_keep_text(keyed, capsys, extra, needle):
    rec = keyed / "rec.jsonl"
    extra = [str(rec) if e == "REC" else e for e in extra]
    argv = ["run", "--data", "minimal", "--output", str(keyed / "r.json"), *extra]
    _one_line_exit_2(argv, capsys, needle)
    assert not rec.exists() and not (keyed / "r.json").exists()


def test_the_policy_keeps_a_listed_set_minimal_and_no_flag_loosens_it(evals, keyed, capsys):
    gate = evals / "gate.yaml"
    gate.write_text(
        gate.read_text().replace("minimal_data: []", "minimal_data: [ops.evalset.json]")
    )
    set_path = evals / "ops.evalset.json"
    _one_line_exit_2(
        ["run", "--set", str(set_path), "--data", "full", "--output", str(keyed / "r.json")],
        capsys,
        "--data full:",
        "keeps minimal data for ops.evalset.json",
    )
    out = keyed / "by-policy.json"
    code, record, _ = execute(RunOptions(set_path=set_path, cases=CASES, output=out),
                              chooser=_oracle())  # fmt: skip
    assert code == 0 and record.data is not None and record.data.label_chars == 160
    assert not out.with_name("by-policy.spans.jsonl").exists()


def test_validate_refuses_a_minimal_data_entry_that_names_no_set(evals, capsys):
    gate = evals / "gate.yaml"
    gate.write_text(
        gate.read_text().replace("minimal_data: []", "minimal_data: [opps.evalset.json]")
    )
    assert main(["validate", str(evals / "ops.evalset.json")]) == 1
    out = capsys.readouterr()
    said = out.out + out.err
    assert "minimal_data[0]" in said and "did you mean 'ops.evalset.json'?" in said


def test_ab_distill_and_calibrate_refuse_a_minimal_record_saying_why(keyed, capsys):
    one, two = _minimal_run(keyed, "a.json"), _minimal_run(keyed, "b.json")
    why = "ab compares the two runs' answers by their text"
    _one_line_exit_2(["ab", str(one), str(two)], capsys, "minimal-data run", why)
    why = "made of the trial's prompts and answers"
    _one_line_exit_2(["distill", str(one), "service-status-inventory"], capsys, why)
    why = "calibration grades the text"
    _one_line_exit_2(["calibrate", "--set", str(one)], capsys, "minimal-data run record", why)


@pytest.mark.usefixtures("mlflow_installed")
def test_mlflow_refuses_a_live_minimal_run_and_its_judge_on_a_minimal_record(
    store, mlflow_cli, ops_env, tmp_path
):
    ops_env.setenv("OPS_EVAL_DATA_KEY", KEY)
    code, out, err = mlflow_cli(["--data", "minimal", "--output", str(tmp_path / "r.json")])
    assert code == 2
    assert "ops-eval mlflow (live): refused under --data minimal" in err
    assert "`ops-eval mlflow --from-run RUN`" in err and not (tmp_path / "r.json").exists()
    record = _minimal_run(tmp_path)
    for name, value in (("MLFLOW_JUDGE_MODEL", "m"), ("MLFLOW_JUDGE_BASE_URL", "http://127.0.0.1:9"),
                        ("MLFLOW_JUDGE_API_KEY", "k")):  # fmt: skip
        ops_env.setenv(name, value)
    code, out, err = mlflow_cli(["--from-run", str(record)])
    assert code == 2 and "MLflow's judge grades the answers' text" in err


def test_minimal_shards_merge_into_a_minimal_record_and_two_keys_do_not_merge(
    keyed, capsys, ops_env
):
    from ops_eval.results.merge import merge_runs
    from ops_eval.results.records import load_record

    one = _minimal_run(keyed, "s1.json", shard=(1, 2), run_group="g")
    two = _minimal_run(keyed, "s2.json", shard=(2, 2), run_group="g")
    record, path = merge_runs([str(one), str(two)], keyed / "merged.json")
    assert record.data == load_record(one).data and load_record(path).minimal
    assert not path.with_name("merged.spans.jsonl").exists()
    ops_env.setenv("OPS_EVAL_DATA_KEY", "another-key-0123456789")
    other = _minimal_run(keyed, "s2b.json", shard=(2, 2), run_group="g")
    with pytest.raises(OpsEvalError, match=r"differs from .* in data kept"):
        merge_runs([str(one), str(other)], keyed / "merged2.json")
    assert json.loads(one.read_text())["data"]["policy"] == "minimal"


def test_a_label_never_quotes_what_the_trial_said():
    """A scorer's detail may quote the agent's call (forbidden_calls, tool_policy do); its
    label shows each value the trial said as `#` and the first 8 hex digits of its hash."""
    from ops_eval.core.calls import ToolCall, Turn
    from ops_eval.results.minimal import DataKey, Minimal
    from ops_eval.results.record_parts import TrialRecord
    from ops_eval.scorers.base import Score

    note = ToolCall("save_incident_note", {"incident_id": "INC-999", "note": "Sam Jones ok"})
    detail = (
        "turn 1, call 1: save_incident_note(incident_id=INC-999, note=Sam Jones ok) is forbidden"
    )
    trial = TrialRecord(
        case_id="c", category="negative", repeat=1, status="failed",
        turns=[Turn(index=1, prompt="Note that Sam Jones called", calls=[note],
                    response="Saved: Sam Jones ok")],
        scores={"forbidden_calls": Score.of(False, detail)},
        error=None,
    )  # fmt: skip
    minimal = Minimal(DataKey(KEY))
    kept = minimal.trial(trial)
    label = kept.scores["forbidden_calls"].detail
    assert "Sam" not in label and "INC-999" not in label
    arg = kept.turns[0].calls[0].args["note"]
    assert f"note=#{arg.removeprefix('hmac:')[:8]}) is forbidden" in label


def test_a_tests_environment_is_put_back_and_read_again_when_it_ends(tmp_path):
    """A module fixture of the next test reads the settings before that test's own fixtures
    run: the seed (or key) one test set must not be what the next one's fixture plays on. (The
    minimal-data tests' planted seed reached test_shards' module fixture before the fix.)"""
    from ops_eval.base.settings import current
    from support import TestEnv

    default = current().seed_path
    env = TestEnv()
    env.setenv("OPS_SEED_DIR", str(tmp_path))
    assert current().seed_path == tmp_path
    env.close()
    assert current().seed_path == default
