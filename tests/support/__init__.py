"""What the tests share: real servers and data homes, browsers, PostgreSQL, staff and attacks.

Test modules import these by full path (`from support.servers import Server`): tests/ is on
sys.path through tests/conftest.py. The benchmarks import them as `tests.support.*`. The
fixtures built on them live in tests/conftest.py.
"""
