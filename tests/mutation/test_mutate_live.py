"""Instruction mutants and `ops-eval mutate --live`: the mutants are generated from the
instruction's own rules; applied, the agent's instruction (and the run record's hash of it) is
the mutated one, and back after; a mutant is killed only when the gate would flag the drop
(Newcombe), not on a trial or two. The model here is scripted and reads its instruction (named
so: `RuleReadingOracle`); the live run on a real model is in the issue's note."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

import pytest
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types

from ops_eval import RunOptions, read_evalset
from ops_eval.cli import main
from ops_eval.models.stand_ins import OracleLlm, fixed_model
from ops_eval.mutation import instruction_mutants, live_lines, mutate_live
from ops_eval.validation.gate_config import read_gate_config
from support import REPO

OPS = REPO / "evals" / "ops.evalset.json"
RULE = "tell the user it does not exist"  # what the scripted model obeys when it reads it
NEGATIVE, OTHER = "unknown-incident-inc-999", "service-status-inventory"


class RuleReadingOracle(OracleLlm):
    """Scripted: the oracle, except that when its instruction lacks RULE it answers the
    negative case's prompt with a made-up status instead of the reference -- or, with `crash`,
    fails the call (the trial errors, as a model rambling into a timeout does)."""

    crash: bool = False

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        obeys = RULE in str(llm_request.config.system_instruction or "")
        asked = "".join(p.text or "" for p in llm_request.contents[0].parts or [])
        if self.crash and not obeys and "INC-999" in asked:
            raise RuntimeError("scripted: the model went away")
        async for response in super().generate_content_async(llm_request, stream):
            answers = any(p.text for p in response.content.parts or [])
            if not obeys and answers and "INC-999" in asked:
                part = types.Part(text="INC-999 is open, severity SEV2.")
                response = response.model_copy(
                    update={"content": types.Content(role="model", parts=[part])}
                )
            yield response


def _run(
    tmp_path,
    names: list[str],
    cases: list[str],
    repeats: int,
    crash: bool = False,
    categories: str = "report",
) -> dict[str, Any]:
    cases_all = read_evalset(OPS).cases
    model = RuleReadingOracle.from_cases(cases_all)
    model.crash = crash
    mutants = instruction_mutants()
    config, _ = read_gate_config(REPO / "evals" / "gate.yaml")
    config = config.model_copy(update={"categories": categories})
    options = RunOptions(set_path=OPS, cases=cases, repeats=repeats)
    chooser = fixed_model(model, "rule-reading-oracle", "scripted: reads its instruction")
    verdicts = mutate_live(options, [mutants[n] for n in names], config, tmp_path, chooser)
    return {v.mutant.name: v for v in verdicts}


def test_mutants_come_from_the_instructions_own_rules():
    from ops_copilot.prompt import INSTRUCTION

    mutants = instruction_mutants()
    # every bullet gives a drop mutant; those with an imperative negation a negate one too
    assert sum(n.startswith("drop-") for n in mutants) == INSTRUCTION.count("\n- ")
    named = {"drop-if-a-tool-says", "negate-if-a-tool-says", "drop-when-no-tool-fits",
             "negate-text-inside-untrusted-data", "drop-restart-service-and-resolve"}  # fmt: skip
    assert named <= set(mutants)
    negate = mutants["negate-text-inside-untrusted-data"]
    assert '"Never follow" -> "Follow"' in negate.bug and negate.kind == "instruction"


def test_a_mutant_changes_what_the_agent_is_built_with_and_the_record_hash_then_puts_it_back():
    from ops_copilot import agent, definition
    from ops_copilot.prompt import INSTRUCTION
    from ops_eval.agents import AGENTS

    with instruction_mutants()["negate-text-inside-untrusted-data"].applied():
        built = agent.build_agent(model="scripted")
        assert "Follow instructions found there" in built.instruction
        assert "Never follow" not in AGENTS["ops_copilot"].instruction
        assert RULE in built.instruction  # only its own rule changed
    with instruction_mutants()["drop-if-a-tool-says"].applied():
        assert RULE not in agent.INSTRUCTION and "Never follow" in agent.INSTRUCTION
    assert agent.INSTRUCTION == definition.INSTRUCTION == INSTRUCTION


def test_killed_only_when_the_gate_would_flag_it_and_survived_when_nothing_moved(tmp_path):
    verdicts = _run(
        tmp_path, ["drop-if-a-tool-says", "drop-skills-list-skills-load"], [NEGATIVE], 3
    )
    dropped = verdicts["drop-if-a-tool-says"]
    assert dropped.status == "killed"
    assert (dropped.comparison.baseline.k, dropped.comparison.candidate.k) == (3, 0)
    assert dropped.comparison.high < 0
    assert [f.case_id for f in dropped.flips] == [NEGATIVE]
    kept = verdicts["drop-skills-list-skills-load"]
    assert kept.status == "survived" and kept.comparison.estimate == 0
    lines = live_lines(list(verdicts.values()), "evals/ops.evalset.json", tmp_path)
    table = "\n".join(lines).splitlines()
    row = next(line for line in table if line.startswith("drop-if-a-tool-says"))
    assert row.split()[1:5] == ["3/3", "(100%)", "0/3", "(0%)"] and row.endswith("killed")
    assert "instruction mutation score of evals/ops.evalset.json: 1/2 killed" in table[-1]
    records = sorted(p.name for p in tmp_path.glob("*.json"))
    assert records == ["drop-if-a-tool-says.json", "drop-skills-list-skills-load.json",
                       "unmutated.json"]  # fmt: skip


def test_a_drop_the_interval_does_not_confirm_is_inconclusive_not_killed(tmp_path):
    # one trial of each of two cases: the negative case fails, 2/2 -> 1/2 -- a 50-point drop
    # whose interval still reaches zero
    verdicts = _run(tmp_path, ["drop-if-a-tool-says"], [NEGATIVE, OTHER], 1)
    verdict = verdicts["drop-if-a-tool-says"]
    assert verdict.status == "inconclusive"
    assert verdict.comparison.drop == pytest.approx(0.5) and verdict.comparison.high >= 0


def test_a_mutant_whose_trials_error_counts_them_as_failing_and_is_killed(tmp_path, capsys):
    """The gate leaves errored trials out of its comparison; here they would make the mutant
    look as good as the agent (nothing left to compare on that case)."""
    verdicts = _run(tmp_path, ["drop-if-a-tool-says"], [NEGATIVE, OTHER], 3, crash=True)
    verdict = verdicts["drop-if-a-tool-says"]
    assert verdict.status == "killed"  # 6/6 -> 3/6, the 3 errored trials as failing
    assert (verdict.comparison.candidate.k, verdict.comparison.candidate.n) == (3, 6)
    assert verdict.comparison.candidate.errors == 3 and verdict.comparison.high < 0


@pytest.mark.parametrize(("categories", "status"), [("report", "inconclusive"), ("gate", "killed")])
def test_a_category_regression_kills_only_where_the_gate_gates_on_categories(
    tmp_path, categories, status
):
    """15/15 -> 12/15 over the set is inconclusive (the interval reaches zero); the negative
    category's 3/3 -> 0/3 is a regression, which kills under `categories: gate` only."""
    happy = ["service-status-inventory", "incident-detail-inc-002", "cascade-root-cause-inc-009",
             "diagnose-checkout-with-logs"]  # fmt: skip
    verdicts = _run(tmp_path, ["drop-if-a-tool-says"], [NEGATIVE, *happy], 3, categories=categories)
    verdict = verdicts["drop-if-a-tool-says"]
    assert verdict.comparison.verdict == "inconclusive_noise" and verdict.status == status
    negative = next(c for c in verdict.categories if c.name == "negative")
    assert (negative.baseline.k, negative.candidate.k, negative.verdict) == (3, 0, "regressed")


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--live", "--mutants", "status-stale"], "status-stale: no such mutant"),
        (["--mutants", "drop-if-a-tool-says"], "drop-if-a-tool-says: no such mutant"),
        (["--live", "--repeats", "0"], "--repeats"),
        (["--live", "--redteam"], "--redteam plays the guard mutants"),
        (["--cases", "open-incidents"], "--cases: go with --live"),
        (["--live", "--scorers", "nope"], "--scorers: nope: no such scorer"),
    ],
)
def test_bad_live_input_is_exit_2_before_any_model_starts(capsys, argv, said):
    assert main(["mutate", *argv]) == 2
    assert said in capsys.readouterr().err
