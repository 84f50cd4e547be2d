"""kcheck's exceptions: one root, and a dedicated error for a user's mistakes."""

from __future__ import annotations


class KcheckError(Exception):
    """Root of every error kcheck raises on purpose."""


class SpecError(KcheckError, ValueError):
    """A Spec (or an argument of the API) is wrong: the message names the argument, the value and the fix."""

    def __init__(self, argument: str, value: object, fix: str) -> None:
        self.argument = argument
        self.value = value
        self.fix = fix
        super().__init__(f"{argument}={value!r}: {fix}")


class EnvironmentProblem(KcheckError, RuntimeError):
    """The machine cannot run what was asked (no GPU, interpreter not enabled, ...)."""


class Interrupted(KeyboardInterrupt):
    """A run stopped by Ctrl-C or a signal (SIGTERM from ``timeout`` or a CI cancel). ``report`` holds every case
    that finished (``report.complete`` is False); ``reason`` names the signal. A KeyboardInterrupt, so code that
    stops on Ctrl-C still stops."""

    def __init__(self, reason: str, report: object = None) -> None:
        self.reason = reason
        self.report = report
        super().__init__(reason)
