"""What an evaluation was of: the agent instruction as an MLflow prompt, and a logged model that
names the prompt version, the agent's model and the hashes of the eval set, seed, tool schema
and scorers. The evaluation run and every trace link to the logged model.

A prompt gets a new version only when the instruction changed (MLflow's `register_prompt`
always adds one, so the latest version's text is compared first). The logged model ends READY
only when the course's four metrics all reach 1.0 with no error; anything else, a crash
included, ends it FAILED -- never a false green.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...base.inputs import bad_input

if TYPE_CHECKING:
    from ...results.records import RunRecord

PROMPT_SUFFIX = "-instruction"
HASHES = ("eval_set_sha256", "seed_sha256", "tool_schema_sha256", "scorers_sha256")


@dataclass(frozen=True)
class Lineage:
    """The provenance of one evaluation, before anything is logged."""

    instructions: dict[str, str]
    """agent name -> its instruction text."""
    agent_model: str
    eval_set: str
    hashes: dict[str, str]
    """eval_set_sha256, seed_sha256, tool_schema_sha256, scorers_sha256."""
    git_commit: str | None
    run_id: str
    """The run record's id (the evaluation's own record, or the one logged with --from-run)."""
    scope: dict[str, str]
    """What was run: how many cases (and a hash of their ids), repeats, conversations, and
    whether the checkout had uncommitted changes -- a READY model of one case is not one of
    the whole set."""


def of_record(record: RunRecord) -> Lineage:
    """The lineage of a recorded run (`--from-run`)."""
    return of_fields(
        record.model_dump(), record.model.name, record.run_id, record.selected_cases, record.repeats
    )


def of_fields(
    fields: dict[str, Any], agent_model: str, run_id: str, cases: list[str], repeats: int
) -> Lineage:
    """The lineage from a run's provenance fields (`running.record.provenance_fields`, or a
    record's).
    Instructions are known by their hashes only, so they must be this checkout's: a prompt
    version is never registered for a text the run did not use. Exit 2 when they differ."""
    from ...agents import AGENTS
    from ...results.provenance import sha256

    instructions = {}
    commit = fields.get("git_commit")
    for agent, digest in sorted(fields["instruction_sha256"].items()):
        if agent not in AGENTS:
            raise bad_input(f"run {run_id}: unknown agent {agent!r} in instruction_sha256")
        text = AGENTS[agent].instruction
        if sha256(text) != digest:
            raise bad_input(
                f"run {run_id} was played with {agent}'s instruction sha256 {digest[:12]}, "
                f"and this checkout's is {sha256(text)[:12]}: log it from the commit that "
                "played it" + (f" ({commit[:12]})" if commit else "")
            )
        instructions[agent] = text
    return Lineage(
        instructions=instructions,
        agent_model=agent_model,
        eval_set=fields["eval_set"],
        hashes={k: fields[k] for k in HASHES},
        git_commit=commit,
        run_id=run_id,
        scope={
            "cases": str(len(cases)),
            "cases_sha256": sha256("\n".join(cases)),
            "repeats": str(repeats),
            "conversations": str(len(cases) * repeats),
            "git_dirty": "unknown" if fields.get("git_dirty") is None else str(fields["git_dirty"]),
        },
    )


def prompt_name(agent: str) -> str:
    return f"{agent}{PROMPT_SUFFIX}"


def register_prompts(lineage: Lineage) -> dict[str, Any]:
    """Each agent's instruction as a prompt version: the latest when its text is the same,
    else a new one. agent -> PromptVersion."""
    import mlflow
    from mlflow.exceptions import MlflowException

    from ...results.provenance import sha256

    versions = {}
    for agent, text in lineage.instructions.items():
        name = prompt_name(agent)
        try:
            latest = mlflow.genai.load_prompt(f"prompts:/{name}@latest", link_to_model=False)
        except MlflowException:
            latest = None  # no such prompt yet
        if latest is not None and latest.template == text:
            versions[agent] = latest
            continue
        versions[agent] = mlflow.genai.register_prompt(
            name=name,
            template=text,
            commit_message=f"{agent} instruction, sha256 {sha256(text)[:12]}",
            tags={"sha256": sha256(text), "agent": agent},
        )
    return versions


def start_logged_model(lineage: Lineage, prompts: dict[str, Any]) -> str:
    """A PENDING logged model carrying the prompts and hashes, linked to each prompt version;
    its id."""
    import mlflow

    params = {
        "agent_model": lineage.agent_model,
        "eval_set": lineage.eval_set,
        "ops_run_id": lineage.run_id,
        "git_commit": lineage.git_commit or "unknown",
        **lineage.hashes,
        **lineage.scope,
    }
    for agent, version in prompts.items():
        params[f"prompt_uri.{agent}"] = version.uri
        params[f"prompt_version.{agent}"] = str(version.version)
    name = "+".join(sorted(lineage.instructions)) or "agent"
    model = mlflow.initialize_logged_model(
        name=name, model_type="agent", params=params, tags={"ops_run_id": lineage.run_id}
    )
    client = mlflow.MlflowClient()
    for version in prompts.values():
        client.link_prompt_version_to_model(version.name, str(version.version), model.model_id)
    return model.model_id


def finish_logged_model(model_id: str, ready: bool) -> None:
    import mlflow
    from mlflow.entities import LoggedModelStatus

    status = LoggedModelStatus.READY if ready else LoggedModelStatus.FAILED
    mlflow.finalize_logged_model(model_id, status)
