"""Absolute URLs as the forge is reached, from the request's Host header, and the `refpath`
path parameter that routes naming a branch use."""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import dataclass
from typing import Any

from starlette.convertors import Convertor, register_url_convertor


@dataclass(frozen=True)
class Urls:
    """Absolute URLs as this forge is reached: api may end in /api/v3 (Enterprise layout)."""

    api: str
    web: str

    def repo(self, full_name: str) -> str:
        return f"{self.api}/repos/{full_name}"

    def repo_html(self, full_name: str) -> str:
        return f"{self.web}/{full_name}"

    def user(self, login: str) -> str:
        return f"{self.api}/users/{login}"


def urls_for_scope(scope: MutableMapping[str, Any]) -> Urls:
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
    host = headers.get("host")
    if not host:
        server = scope.get("server") or ("127.0.0.1", 80)
        host = f"{server[0]}:{server[1]}"
    web = f"{scope.get('scheme', 'http')}://{host}"
    return Urls(api=web + scope.get("forge.api_prefix", ""), web=web)


class RefPathConvertor(Convertor[str]):
    """A path parameter that may hold slashes (a branch like feature/x) but, unlike
    `:path`, is not sorted behind every catch-all route by the app assembly."""

    regex = ".+"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("refpath", RefPathConvertor())
