"""Conditional GETs: an answer's ETag, and 304 Not Modified when the client already holds it.

A poll that finds nothing new is answered with an empty 304 instead of the state rebuilt: the
client keeps what it shows. ETags here are opaque digests of what the answer is made of, so a
caller works one out without building the answer (hall_map.version, kiosk.poll).
"""

from __future__ import annotations

import hashlib

from flask import Response, current_app, request


def etag(*parts: object) -> str:
    """An ETag (unquoted) for an answer made of `parts`: equal parts, equal tags."""
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:32]


def client_holds(tag: str) -> bool:
    """Whether the request's If-None-Match names `tag` (compared weakly, as RFC 9110 asks)."""
    return request.if_none_match.contains_weak(tag)


def not_modified(tag: str, **headers: str) -> Response:
    """An empty 304 carrying the ETag the client holds."""
    response = current_app.response_class(status=304)
    response.set_etag(tag)
    response.headers.update(headers)
    return response


def tagged(response: Response, tag: str) -> Response:
    """`response` with its ETag set."""
    response.set_etag(tag)
    return response
