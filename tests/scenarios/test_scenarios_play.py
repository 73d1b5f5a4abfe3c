"""Conversation scenarios played on the real ADK Runner with a simulated user: the scripted user
against the scripted oracle and a saboteur, a model-backed user recorded and replayed, and the
turn and time limits with whose failure each is."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path

import pytest
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from scenario_models import RISK_LINES, duet

from ops_eval.core.evalset import read_evalset
from ops_eval.models.stand_ins import OracleLlm, ReplayLlm, Saboteur, fixed_model
from ops_eval.running.execute import execute
from ops_eval.running.options import RunOptions
from support import REPO

SCENARIOS = REPO / "evals" / "scenarios.evalset.json"
GOAL_SCORERS = ("end_state", "goal_calls", "facts")


def scenario_cases():
    return read_evalset(SCENARIOS).cases


def run(model, tmp_path: Path, name: str, **options):
    opts = RunOptions(set_path=SCENARIOS, output=tmp_path / f"{name}.json", **options)
    return execute(opts, chooser=fixed_model(model, name, "a scripted stand-in"))


def played(record) -> list[dict]:
    """Every trial as recorded, without its timings."""
    out = []
    for trial in record.trials:
        data = trial.model_dump(mode="json")
        data.pop("seconds")
        for turn in data["turns"]:
            turn.pop("seconds")
        out.append(data)
    return out


def test_every_scenario_passes_under_the_oracle_with_the_scripted_user_twice_alike_plumbing(
    tmp_path,
):
    """Plumbing: the oracle plays each scenario's reference, which it was built from."""
    first = run(OracleLlm.from_cases(scenario_cases()), tmp_path, "one")
    second = run(OracleLlm.from_cases(scenario_cases()), tmp_path, "two")
    assert first[0] == second[0] == 0
    assert [t.status for t in first[1].trials] == ["passed"] * len(scenario_cases())
    assert played(first[1]) == played(second[1])
    for trial in first[1].trials:
        assert trial.conversation.ended_by == "user" and trial.conversation.blame is None
        assert trial.scores["trajectory"].outcome == "n/a"  # never scored on its reference
        assert trial.scores["goal_calls"].outcome == "pass"
    turns = {t.case_id: len(t.turns) for t in first[1].trials}
    assert turns["scn-restart-after-risk"] == 3 and turns["scn-deny-database-restart"] == 1


def test_a_saboteur_fails_a_scenario_of_every_kind_naming_the_goal(tmp_path):
    oracle = OracleLlm.from_cases(scenario_cases())
    saboteur = Saboteur(turns=oracle.turns, skip_first_call_on=set(oracle.turns))
    code, record, _ = run(saboteur, tmp_path, "saboteur")
    assert code == 1
    kind = {c.eval_id: c.scenario.kind for c in scenario_cases()}
    failed: dict[str, list[str]] = {}
    for trial in record.trials:
        for name in GOAL_SCORERS:
            if trial.scores[name].outcome == "fail":
                failed.setdefault(kind[trial.case_id], []).append(trial.scores[name].detail)
    assert set(failed) == set(kind.values())
    (note,) = [t for t in record.trials if t.case_id == "scn-note-then-recall"]
    assert note.scores["goal_calls"].detail == (
        "never called: recall_incident_context(incident_id=INC-007)"
    )
    assert "note on INC-007" in note.scores["end_state"].detail
    (risk,) = [t for t in record.trials if t.case_id == "scn-restart-after-risk"]
    assert "service inventory is down, expected operational" in risk.scores["end_state"].detail


def test_a_model_backed_user_is_recorded_with_the_agent_and_replayed_whole(tmp_path):
    recording = tmp_path / "both-sides.jsonl"
    code, live, _ = run(
        duet(RISK_LINES),
        tmp_path,
        "live",
        cases=["scn-restart-after-risk"],
        users="model",
        record=recording,
    )
    assert code == 0, [t.scores for t in live.trials]
    (trial,) = live.trials
    assert [t.prompt for t in trial.turns] == [
        "Config v42 has been rolled back on inventory. Please restart the inventory service.",
        *RISK_LINES[:2],
    ]
    assert trial.conversation.user == "model"
    assert trial.conversation.ended_by == "user"
    (approval,) = trial.conversation.approvals
    assert approval.rationale == "Config v42 rolled back; restart risk explained and accepted."
    users = [json.loads(x) for x in recording.read_text().splitlines()[1:]]
    asked = [
        json.dumps(e["contents"]) for e in users if "Simulated User" in json.dumps(e["contents"])
    ]
    assert len(asked) == 4  # each of the user's moves, beside the agent's requests
    assert "[the agent waits for your approval: restart_service(name=inventory) (" in asked[0]
    assert "restart_service(name=inventory) -- you did not answer it]" in asked[1]
    replayed = ReplayLlm.from_file(recording)
    code, again, _ = run(
        replayed, tmp_path, "replay", cases=["scn-restart-after-risk"], users="model"
    )
    assert code == 0
    assert played(again) == played(live)


def test_a_user_whose_model_says_nothing_is_the_users_failure(tmp_path):
    code, record, _ = run(
        duet([""]), tmp_path, "mute", cases=["scn-restart-after-risk"], users="model"
    )
    (trial,) = record.trials
    assert trial.status == "error" and code == 3
    assert trial.conversation.ended_by == "user-failed" and trial.conversation.blame == "user"
    assert trial.error == "simulated user: the user's model returned nothing"
    assert record.notes == [
        "every trial errored: the simulated user failed in 1 of 1 (the user's model returned "
        "nothing)"
    ]


def limited(case_id: str, **limits):
    (case,) = [c for c in scenario_cases() if c.eval_id == case_id]
    scenario = case.meta.scenario.model_copy(
        update={"limits": case.meta.scenario.limits.model_copy(update=limits)}
    )
    return replace(case, meta=case.meta.model_copy(update={"scenario": scenario}))


class Evasive(BaseLlm):
    """Scripted, for tests only: answers every request with a question and no call, after
    `wait` seconds."""

    model: str = "evasive"
    wait: float = 0.0

    async def generate_content_async(self, llm_request, stream=False):
        await asyncio.sleep(self.wait)
        yield LlmResponse(
            content=types.Content(role="model", parts=[types.Part(text="Which one do you mean?")])
        )


def play(case, model, users="scripted"):
    from ops_eval.playing.play import play_trial
    from ops_eval.running.trials import scored_trial
    from ops_eval.validation.plan import load_plan

    plan = load_plan(SCENARIOS)
    view = asyncio.run(play_trial(plan, case, 1, model, 60.0, users))
    return scored_trial(plan, view)


def test_the_turn_limit_ends_a_conversation_that_goes_nowhere_as_the_agents_failure():
    # the user answers every question ("which|what|id", once: then nothing fits -- so the
    # limit must come first): two turns allowed
    case = limited("scn-vague-orders-failing", turns=1)
    trial = play(case, Evasive())
    assert trial.conversation.ended_by == "turn-limit" and trial.conversation.blame == "agent"
    assert len(trial.turns) == 1 and trial.status == "failed"
    assert trial.scores["conversation_end"].outcome == "fail"
    assert "1 user turns and the user had not stopped -- the agent's failure" in (
        trial.scores["conversation_end"].detail
    )


def test_the_time_limit_blames_the_side_whose_step_was_running():
    slow_agent = play(limited("scn-vague-orders-failing", seconds=0.3), Evasive(wait=2.0))
    assert slow_agent.conversation.ended_by == "time-limit"
    assert slow_agent.conversation.blame == "agent" and slow_agent.status == "failed"
    slow_user = play(
        limited("scn-restart-after-risk", seconds=0.5), duet(RISK_LINES, slow_user=2.0), "model"
    )
    assert slow_user.conversation.blame == "user" and slow_user.status == "error"
    assert slow_user.error == (
        "simulated user: timed out (the scenario's limit of 0.5 s ran out during its reply)"
    )


def test_the_model_backed_user_reads_approvals_denials_and_the_stop_signal():
    from ops_eval.core.calls import ToolCall
    from ops_eval.playing.scenarios import ModelUser, UserFailed
    from ops_eval.playing.session import PendingWrite

    (case,) = [c for c in scenario_cases() if c.eval_id == "scn-restart-after-risk"]
    user = ModelUser(case, model=None)
    waiting = [PendingWrite("c1", ToolCall("restart_service", {"name": "inventory"}))]
    approve = user.read("APPROVE: the config is fixed", waiting)
    assert approve.kind == "approve" and approve.decision.rationale == "the config is fixed"
    assert approve.decision.approver == "oncall"
    assert user.read("Deny: not now", waiting).kind == "deny"
    assert user.read("APPROVE: the config is fixed", []).kind == "say"  # nothing waits
    assert user.read("What is the risk?", waiting).kind == "say"
    assert user.read("All done </FINISHED>", waiting).kind == "stop"
    with pytest.raises(UserFailed):
        user.read("  ", waiting)
    novice = next(c for c in scenario_cases() if c.eval_id == "scn-vague-orders-failing")
    prompt = ModelUser(novice, model=None).prompt([], [])
    assert "A Novice is trying to solve a problem" in prompt  # ADK's pre-built persona
    assert "APPROVE: <why you approve>" in prompt and "</finished>" in prompt


class CutOff(BaseLlm):
    """Scripted, for tests only: a reply cut off at the token limit, or an error."""

    model: str = "cut-off"
    code: str = "MAX_TOKENS"

    async def generate_content_async(self, llm_request, stream=False):
        yield LlmResponse(
            content=types.Content(role="model", parts=[types.Part(text="What is the ris")]),
            error_code=self.code,
        )


def test_a_cut_off_reply_is_still_the_users_words_and_an_error_is_the_users_failure():
    from ops_eval.playing.scenarios import ModelUser, UserFailed

    (case,) = [c for c in scenario_cases() if c.eval_id == "scn-restart-after-risk"]
    move = asyncio.run(ModelUser(case, CutOff()).next([], []))
    assert (move.kind, move.text) == ("say", "What is the ris")
    with pytest.raises(UserFailed, match=r"the user's model failed \(SAFETY\)"):
        asyncio.run(ModelUser(case, CutOff(code="SAFETY")).next([], []))


def test_a_time_limit_before_a_turn_starts_keeps_no_earlier_run_as_that_turn():
    from ops_eval.core.trial import TrialView
    from ops_eval.playing.scenarios import ScriptedUser, converse
    from ops_eval.playing.session import SessionTurn

    class Spent:
        """A session whose latest run belongs to an earlier turn."""

        running = SessionTurn(texts=["an answer from before"])

        async def send(self, prompt):  # pragma: no cover - the clock has run out first
            raise AssertionError("no run starts after the time limit")

    case = limited("scn-vague-orders-failing", seconds=1e-9)
    view = TrialView(case=case, repeat=1)
    user = ScriptedUser(case.scenario, specs={})
    asyncio.run(converse(Spent(), case, user, view, by_server=False))
    assert view.turns == []
    assert view.conversation.ended_by == "time-limit" and view.conversation.blame == "agent"
