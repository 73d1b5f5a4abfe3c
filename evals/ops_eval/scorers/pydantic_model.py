"""`pydantic` response checks: the answer's JSON (or its one fenced ```json block's) validates as
a declared answer model (`answer_models`: each agent's answer schema, e.g. TriageReport) -- the
same model the agent's `output_schema` gives ADK, so a passing answer is one its reader can
parse. (The module is not named `pydantic`, which would read as the library.)"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import ValidationError

from ..core.answer_models import ANSWER_MODELS
from ._response import NotJson, json_text, parse_json, response_scorer

if TYPE_CHECKING:
    from ..core.response_checks import PydanticCheck

_ERRORS_SHOWN = 3


@response_scorer(
    kind="pydantic",
    passes_when="its turn's answer's JSON validates as the named answer model (e.g. "
    "`TriageReport`)",
)
def pydantic_model(check: PydanticCheck, answer: str) -> str | None:
    try:
        parse_json(answer)
    except NotJson as exc:
        return str(exc)
    try:
        ANSWER_MODELS[check.model].model_validate_json(json_text(answer))
    except ValidationError as exc:
        errors = exc.errors()
        said = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or '(top level)'}: {e['msg']}"
            for e in errors[:_ERRORS_SHOWN]
        )
        more = f" (and {len(errors) - _ERRORS_SHOWN} more)" if len(errors) > _ERRORS_SHOWN else ""
        return f"does not validate as {check.model}: {said}{more}"
    return None
