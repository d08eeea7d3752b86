"""Parsed and validated GraphQL documents, kept by their query text.

Whether a document is valid depends only on its text and the schema, which is built once at
import, so a query that passed parse and validate once passes again with the same document.
Only documents that passed are kept: a failing text is parsed and validated afresh each
time, so its errors are reported exactly as the first time. Execution never changes a
document, so one parsed document serves any number of requests at once.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from graphql import DocumentNode, GraphQLError, GraphQLSchema, parse, validate

MAX_DOCUMENTS = 256
MAX_KEPT_TEXT = 64 * 1024  # longer texts are checked every time, never kept


class InvalidDocument(Exception):
    """The text did not parse, or did not validate; errors are graphql-core's own."""

    def __init__(self, errors: list[GraphQLError]):
        super().__init__(errors[0].message if errors else "invalid document")
        self.errors = errors


class DocumentCache:
    """A bounded, thread-safe least-recently-used map of query text -> valid document."""

    def __init__(self, schema: GraphQLSchema, size: int = MAX_DOCUMENTS):
        self.schema = schema
        self.size = size
        self._documents: OrderedDict[str, DocumentNode] = OrderedDict()
        self._lock = threading.Lock()

    def document(self, query: str) -> DocumentNode:
        """The valid document for query; raises InvalidDocument with the errors."""
        with self._lock:
            found = self._documents.get(query)
            if found is not None:
                self._documents.move_to_end(query)
                return found
        found = self._check(query)
        if len(query) <= MAX_KEPT_TEXT:
            with self._lock:
                self._documents[query] = found
                while len(self._documents) > self.size:
                    self._documents.popitem(last=False)
        return found

    def _check(self, query: str) -> DocumentNode:
        try:
            document = parse(query)
        except GraphQLError as error:
            raise InvalidDocument([error]) from None
        problems = validate(self.schema, document)
        if problems:
            raise InvalidDocument(list(problems))
        return document
