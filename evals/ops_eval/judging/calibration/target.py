"""What a calibrated judge must reach: apart from the metrics (no pydantic), because
`ops-eval`'s parser shows the target in its help."""

from __future__ import annotations

from dataclasses import dataclass

from ...base.inputs import bad_input


@dataclass(frozen=True)
class Target:
    """What a calibrated judge must reach: agreement and Cohen's kappa, both at least."""

    agreement: float = 0.85
    kappa: float = 0.6

    def raised(self, agreement: float | None = None, kappa: float | None = None) -> Target:
        """This target with the flags applied; OpsEvalError (exit 2) for a flag that would
        lower it: a judge is never certified by a weaker bar than the project's."""
        if agreement is not None and not (self.agreement <= agreement <= 1):
            raise bad_input(
                f"--min-agreement {agreement:g}: may only raise the target {self.agreement:g}, "
                "up to 1"
            )
        if kappa is not None and not (self.kappa <= kappa <= 1):
            raise bad_input(
                f"--min-kappa {kappa:g}: may only raise the target {self.kappa:g}, up to 1"
            )
        return Target(
            agreement=self.agreement if agreement is None else agreement,
            kappa=self.kappa if kappa is None else kappa,
        )


TARGET = Target()
"""The project's target (issue 14): agreement >= 0.85 and kappa >= 0.6."""
