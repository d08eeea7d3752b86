"""GitHub-shaped JSON responses and errors."""

from __future__ import annotations

import json
from typing import Any

from starlette.responses import Response

DOCS_URL = "https://docs.github.com/rest"
JSON_TYPE = "application/json; charset=utf-8"


def json_response(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    body = json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()
    return Response(body, status_code=status, headers=headers, media_type=JSON_TYPE)


def error_body(
    status: int,
    message: str,
    errors: list[dict[str, Any]] | list[str] | None = None,
    documentation_url: str = DOCS_URL,
) -> dict[str, Any]:
    body: dict[str, Any] = {"message": message}
    if errors is not None:
        body["errors"] = errors
    body["documentation_url"] = documentation_url
    body["status"] = str(status)
    return body


class ApiError(Exception):
    """Raised anywhere in a handler; rendered as GitHub renders its errors."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        errors: list[dict[str, Any]] | list[str] | None = None,  # strings: validation-error-simple
        headers: dict[str, str] | None = None,
        documentation_url: str = DOCS_URL,
    ):
        super().__init__(message)
        self.status = status
        self.message = message
        self.errors = errors
        self.headers = headers or {}
        self.documentation_url = documentation_url

    def response(self) -> Response:
        body = error_body(self.status, self.message, self.errors, self.documentation_url)
        return json_response(body, self.status, self.headers)


def not_found(message: str = "Not Found") -> ApiError:
    return ApiError(404, message)


def validation_failed(*errors: dict[str, Any], message: str = "Validation Failed") -> ApiError:
    return ApiError(422, message, errors=list(errors))


def invalid_request(detail: str) -> ApiError:
    """GitHub's wording when a body field is missing or has the wrong type."""
    return ApiError(422, f"Invalid request.\n\n{detail}")


def missing_field(name: str) -> ApiError:
    return invalid_request(f'"{name}" wasn\'t supplied.')
