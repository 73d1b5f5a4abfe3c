"""`ops-eval readers`: the readers of answers measured against real answers labelled by hand,
through the CLI, on copies of the shipped set -- a wrong label shows up as the reader's error, a
class under 40 items is "not measured" and never a rate, a broken set is one precise error and
appends nothing; `readers collect` takes only a real model's answers, each answer once; and the
gate warns when a measurement has lapsed."""

from __future__ import annotations

import json
import shutil

import pytest
import yaml

from ops_eval.cli import main
from support import REPO

SHIPPED = REPO / "evals" / "calibration"


@pytest.fixture
def labelled(tmp_path):
    """A copy of the shipped labelled set (its trials and labels), with no measurement log."""
    folder = tmp_path / "calibration"
    folder.mkdir()
    for name in ("answers.jsonl", "answers.yaml"):
        shutil.copy(SHIPPED / name, folder / name)
    return folder


def labels_of(folder):
    return yaml.safe_load((folder / "answers.yaml").read_text())


def write_labels(folder, data):
    (folder / "answers.yaml").write_text(yaml.safe_dump(data, sort_keys=False))


def test_the_shipped_set_is_measured_verdict_first_and_appended(labelled, capsys):
    code = main(["readers", "--folder", str(labelled)])
    out = capsys.readouterr().out
    assert code in (0, 1)
    assert out.startswith("readers: ")
    assert "facts          held-out" in out and "answer_guard   tune" in out
    log = (labelled / "readers.jsonl").read_text().splitlines()
    assert len(log) == 1 and json.loads(log[0])["kind"] == "readers"


def test_a_label_flipped_shows_as_the_readers_error(labelled, capsys):
    """The measurement can fail: inverting every `complete` label turns each agreement into a
    false fail or a false pass."""
    main(["readers", "--folder", str(labelled), "--format", "json"])
    before = json.loads(capsys.readouterr().out)
    data = labels_of(labelled)
    for entry in data["labels"]:
        entry["complete"] = "fail" if entry["complete"] == "pass" else "pass"
    write_labels(labelled, data)
    main(["readers", "--folder", str(labelled), "--format", "json"])
    after = json.loads(capsys.readouterr().out)

    def errors(report):
        (complete,) = [r for r in report["readers"] if r["name"] == "complete"]
        return sum(complete[h][k]["k"] for h in ("held_out", "tune") for k in ("first", "second"))

    counted = sum(
        complete[h][k]["n"]
        for complete in [r for r in before["readers"] if r["name"] == "complete"]
        for h in ("held_out", "tune")
        for k in ("first", "second")
    )
    assert errors(after) == counted - errors(before)


def test_a_class_under_40_items_is_not_measured_never_a_rate(labelled, capsys):
    data = labels_of(labelled)
    kept = data["labels"][:10]
    trials = (labelled / "answers.jsonl").read_text().splitlines()
    ids = {e["id"] for e in kept}
    (labelled / "answers.jsonl").write_text(
        "".join(f"{t}\n" for t in trials if json.loads(t)["id"] in ids)
    )
    write_labels(labelled, {"version": 1, "labels": kept})
    assert main(["readers", "--folder", str(labelled)]) == 1
    out = capsys.readouterr().out
    assert "complete: not measured -- fewer than 40 items" in out
    assert "0 of 6 meet the target" in out


@pytest.mark.parametrize(
    ("breaking", "said"),
    [
        ("unlabelled", "has no label entry"),
        ("guard count", "guard: 2 label(s) for 1 answer(s)"),
        ("question changed", "its labels answered another question"),
        ("stray label", "names no trial"),
    ],
)
def test_a_broken_set_is_one_precise_error_and_appends_nothing(labelled, capsys, breaking, said):
    data = labels_of(labelled)
    trials = [json.loads(t) for t in (labelled / "answers.jsonl").read_text().splitlines()]
    if breaking == "unlabelled":
        data["labels"] = data["labels"][1:]
    elif breaking == "guard count":
        data["labels"][0]["guard"] = ["clean", "clean"]
    elif breaking == "stray label":
        data["labels"].append({**data["labels"][0], "id": "nobody.nothing.1"})
    else:
        trials[0]["turns"][0]["prompt"] = "What is the status of the payments service?"
        (labelled / "answers.jsonl").write_text("".join(json.dumps(t) + "\n" for t in trials))
    write_labels(labelled, data)
    assert main(["readers", "--folder", str(labelled)]) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1
    assert not (labelled / "readers.jsonl").exists()


def _scripted_record(tmp_path):
    from ops_eval import RunOptions, ToolCall, execute
    from ops_eval.models.stand_ins import ScriptedLlm, fixed_model

    model = ScriptedLlm(script=[ToolCall("get_service_status", {"name": "inventory"}), "Down."])
    options = RunOptions(cases=["service-status-inventory"], output=tmp_path / "run.json")
    execute(options, chooser=fixed_model(model, "scripted", "a test's script"))
    return tmp_path / "run.json"


def test_collect_refuses_a_stand_ins_answers(tmp_path, labelled, capsys):
    record = _scripted_record(tmp_path)
    code = main(["readers", "collect", str(record), "--tag", "t1", "--folder", str(labelled)])
    assert code == 2
    assert (
        "a scripted stand-in: only a real model's answers are labelled" in capsys.readouterr().err
    )


def test_collect_keeps_each_answer_once(tmp_path, labelled, capsys):
    """A real model's run, as a record: its trials are the shipped set's own, so collecting it
    adds nothing -- every answer is there already (temperature-0 repeats count once)."""
    from ops_eval.deciding.readers.items import read_trials
    from ops_eval.results.records import load_record, write_record

    record = load_record(_scripted_record(tmp_path))
    (first,) = read_trials(labelled / "answers.jsonl")[:1]
    real = record.model_copy(
        update={
            "model": record.model.model_copy(
                update={"name": first.source.model, "source": "OPS_AGENT_MODEL"}
            ),
            "trials": [record.trials[0].model_copy(update={"turns": first.turns})],
        }
    )
    write_record(real, tmp_path / "real.json")
    before = (labelled / "answers.jsonl").read_text()
    code = main(
        ["readers", "collect", str(tmp_path / "real.json"), "--tag", "again", "--folder",
         str(labelled)]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0 and "0 trial(s) added" in out and "1 repeat an answer already there" in out
    assert (labelled / "answers.jsonl").read_text() == before


def test_the_gate_warns_when_a_measurement_has_lapsed(labelled, capsys):
    from ops_eval.deciding.gate.reader_check import reader_warnings
    from ops_eval.deciding.readers.reports import report_log
    from ops_eval.results.records import load_record
    from ops_eval.validation.gate_config import read_gate_config

    main(["readers", "--folder", str(labelled), "--format", "json"])
    capsys.readouterr()
    (report,) = report_log(labelled).entries()
    changed = [r.model_copy(update={"digest": "0" * 64}) for r in report.readers]
    (labelled / "readers.jsonl").unlink()
    report_log(labelled).append(report.model_copy(update={"readers": changed}))
    record = load_record(_scripted_record(labelled.parent))
    config, _ = read_gate_config(REPO / "evals" / "gate.yaml")
    warnings = reader_warnings(record, config, labelled)
    assert warnings and all("lapsed" in w for w in warnings)
    assert any(w.startswith("complete: ") for w in warnings)
