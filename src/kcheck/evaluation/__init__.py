"""Evaluate: judge a generated kernel against a reference problem with checks that known cheats cannot pass.

    from kcheck.evaluation import evaluate, format_evaluation
    ev = evaluate("candidate.py", reference="problem.py")
    print(format_evaluation(ev)); assert ev.passed, ev.reasons

See docs/evaluate.md for each check and what it catches.
"""

from ._cli import add_cli, run_cli
from ._harness import WATCHED, Options
from ._isolate import evaluate
from ._model import Check, CheckKind, Evaluation, Outcome, Timing, format_evaluation

__all__ = ["WATCHED", "Check", "CheckKind", "Evaluation", "Options", "Outcome", "Timing", "add_cli", "evaluate",
           "format_evaluation", "run_cli"]
