"""The real ops copilot, with its model replaced by a recording: `adk eval` on a replay.

    ops-eval run --record rec.jsonl                  # record once, with any model
    OPS_AGENT_MODEL=replay:rec.jsonl adk eval evals/replay_agent evals/ops.evalset.json

The agent package knows only product model routes; replaying is the harness's, so this small
module in `evals/` wraps the real agent (same name, instruction, tools and callbacks) around the
harness's `ReplayLlm`.
"""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from pathlib import Path  # noqa: E402

from ops_copilot.agent import build_agent  # noqa: E402
from ops_copilot.model import ModelConfigError  # noqa: E402
from ops_eval.base.settings import current  # noqa: E402
from ops_eval.models.choice import REPLAY_PREFIX  # noqa: E402
from ops_eval.models.stand_ins.replay import ReplayLlm  # noqa: E402


def _recording() -> Path:
    value = current().agent_model or ""
    if not value.startswith(REPLAY_PREFIX):
        raise ModelConfigError(
            f"OPS_AGENT_MODEL: {value or '(unset)'!r}: this agent answers from a recording; "
            "set OPS_AGENT_MODEL=replay:FILE (made by `ops-eval run --record FILE`)"
        )
    file = value[len(REPLAY_PREFIX) :].strip()
    if not file:
        raise ModelConfigError("OPS_AGENT_MODEL: replay: needs a recording file (replay:FILE)")
    return Path(file)


def _with_faults(agent):  # noqa: ANN001, ANN202
    """The tool faults the eval sets declare, injected as `ops-eval run` injects them: the
    recording was made with them, so without them the replay would miss at the faulted call."""
    from ops_copilot.definition import tool_specs
    from ops_eval.core.evalset import read_evalset
    from ops_eval.playing.faults import FaultsByPrompt, append_callback

    cases = [
        case
        for path in sorted(current().evals_dir.glob("*.evalset.json"))
        for case in read_evalset(path).cases
        if case.meta is not None and case.meta.agent == "ops_copilot"
    ]
    append_callback(agent, FaultsByPrompt(cases, tool_specs()))
    return agent


root_agent = _with_faults(build_agent(ReplayLlm.from_file(_recording())))
