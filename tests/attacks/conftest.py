"""What the attack tests share."""

from __future__ import annotations

import resource

import pytest


@pytest.fixture(scope="module")
def enough_files():
    """The test's own sockets (the server's are its own: each worker raises its limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 8192)), hard))
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
