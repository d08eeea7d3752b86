"""The ids of questions (elicitations) that replicas route to each other: the server's
request id for the question, recognisable in a client's answer on any replica. Here, not
in the shared state package, so that recognising one costs no Redis client import."""

from __future__ import annotations

import secrets
from typing import Any

ID_PREFIX = "srvq-"


def new_question_id() -> str:
    """An id no replica mints twice (96 random bits)."""
    return ID_PREFIX + secrets.token_hex(12)


def is_question_id(value: Any) -> bool:
    return isinstance(value, str) and value.startswith(ID_PREFIX) and len(value) <= 64
