"""The acquisition loop: perceive → search → vet → authorize → install → plan → learn → clean up."""

from .engine import Acquirer
from .session import AcquireState

__all__ = ["Acquirer", "AcquireState"]
