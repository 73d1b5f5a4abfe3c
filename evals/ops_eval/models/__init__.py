"""Model selection for live runs, and the embedded llama.cpp model for a machine with none."""

from .choice import ModelChoice, ModelUnavailable
from .selection import choose_model

__all__ = ["ModelChoice", "ModelUnavailable", "choose_model"]
