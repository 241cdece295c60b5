"""Errors of the domain layer, each with the HTTP status the API answers with.

Bad input data stays :class:`cranfield.errors.InputError` (422 in the API; one line and
exit status 2 on the command line). A rejected run upload is :class:`Invalid`, which
carries every problem found (each with its line when there is one).
"""

from __future__ import annotations

from ..errors import CranfieldError


class ServiceError(CranfieldError):
    status = 400

    def __init__(self, message: str):
        self.message = message
        super().__init__(message)


class NotFound(ServiceError):
    status = 404


class Forbidden(ServiceError):
    status = 403


class Conflict(ServiceError):
    status = 409


class Invalid(ServiceError):
    """An upload that is not accepted; ``problems`` lists ``{"line", "message"}``."""

    status = 422

    def __init__(self, message: str, problems: list[dict]):
        self.problems = problems
        super().__init__(message)
