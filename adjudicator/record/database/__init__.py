"""The journal's database: the interface (`db`), the SQLite and PostgreSQL backends, the
migrations, and the journal's health.

The bottom of the record: `db` knows no backend, and the backends do not know each other.

May import: the shared leaves only.
"""
