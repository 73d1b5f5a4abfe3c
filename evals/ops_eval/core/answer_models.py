"""The answer models a `pydantic` response check may name (`response_checks.PydanticCheck`).

An eval set names a model, never an import path: a name can only reach a model an agent's port
declares as its answer schema -- the `output_schema` its agent gives ADK -- so the check and the
agent cannot disagree about what a valid answer is (a test builds every agent and holds its
`output_schema` to its port's). An agent that answers in free text has none. The agents are those
the adapter has loaded (`agents.AGENTS`: the default one and every one an eval case named).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from pydantic import BaseModel

from ..agents import AGENTS


class _Schemas(Mapping[str, type[BaseModel]]):
    """agent -> the model its final answer validates as (its ADK `output_schema`)."""

    def _now(self) -> dict[str, type[BaseModel]]:
        return {name: p.answer_schema for name, p in AGENTS.items() if p.answer_schema}

    def __getitem__(self, name: str) -> type[BaseModel]:
        schema = AGENTS[name].answer_schema  # an agent asked for by name is loaded
        if schema is None:
            raise KeyError(name)
        return schema

    def __iter__(self) -> Iterator[str]:
        return iter(self._now())

    def __len__(self) -> int:
        return len(self._now())


class _Models(_Schemas):
    """The names a `pydantic` check may use: each answer schema by its class name."""

    def _now(self) -> dict[str, type[BaseModel]]:
        return {model.__name__: model for model in ANSWER_SCHEMAS.values()}

    def __getitem__(self, name: str) -> type[BaseModel]:
        return self._now()[name]


ANSWER_SCHEMAS: Mapping[str, type[BaseModel]] = _Schemas()
ANSWER_MODELS: Mapping[str, type[BaseModel]] = _Models()
