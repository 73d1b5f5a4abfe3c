"""The one strict base of the harness's pydantic models: a field the model does not declare is an
error, never silently dropped, at every boundary (files, records, reports, verdicts).

A model adds what else it needs in its own `model_config` (frozen, strict, no NaN); pydantic
merges it over this one.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")
