"""MLflow's judge: its configuration (MLFLOW_JUDGE_MODEL, _BASE_URL, _API_KEY, never anything
from OPENAI_*) and its one call, a conversation graded with nothing cached and no budget --
evidence, not a gate (`outputs.tracking.scorers` wraps it as an MLflow scorer)."""

from __future__ import annotations

from ..base.inputs import bad_input
from ..base.settings import current
from .client import Judge, JudgeConfig
from .prompts import CONVERSATIONS
from .verdicts import Verdict

JUDGE_PROMPT_VERSION = CONVERSATIONS.version
"""The version of the MLflow judge's prompt (derived from its text)."""


def judge_messages(turns: list[dict[str, str]]) -> list[dict[str, str]]:
    """The chat messages grading one conversation: `turns` of question, answer and reference."""
    return CONVERSATIONS.messages({"turns": turns})


def ask_judge(config: JudgeConfig, turns: list[dict[str, str]]) -> Verdict:
    """One conversation graded, with nothing cached and no budget (MLflow's judge)."""
    kept = Judge(config).grade_conversation(turns).kept
    assert isinstance(kept, Verdict)
    return kept


def judge_config() -> JudgeConfig | None:
    """The judge when MLFLOW_JUDGE_MODEL, _BASE_URL and _API_KEY are all set; None when none
    is; exit 2 naming the missing ones when only some are. Never anything from OPENAI_*."""
    settings = current()
    trio = {
        "MLFLOW_JUDGE_MODEL": settings.judge_model,
        "MLFLOW_JUDGE_BASE_URL": settings.judge_base_url,
        "MLFLOW_JUDGE_API_KEY": settings.judge_api_key,
    }
    unset = [name for name, value in trio.items() if not value]
    if len(unset) == len(trio):
        return None
    if unset:
        given = [name for name in trio if name not in unset]
        raise bad_input(
            f"the judge needs MLFLOW_JUDGE_MODEL, MLFLOW_JUDGE_BASE_URL and MLFLOW_JUDGE_API_KEY "
            f"together: {', '.join(given)} set, {', '.join(unset)} missing (set all three, or "
            "none to run without the judge)"
        )
    assert settings.judge_model and settings.judge_base_url and settings.judge_api_key
    model = settings.judge_model
    return JudgeConfig(
        model=model if model.startswith("openai/") else f"openai/{model}",
        base_url=settings.judge_base_url,
        api_key=settings.judge_api_key,
    )
