"""Versioned schema migrations for the journal database, applied by `adjudicator db upgrade`.

Each migration is a version number, a description and SQL that both SQLite and PostgreSQL
accept. Applying is idempotent and runs under the chain lock, so two servers starting at once
do not race. Every version not yet applied is applied, in order, even one below a version
already applied: versions are reserved by parallel work and may land out of order.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from adjudicator.record.database.db import Database

Step = str | Callable[[Any], None]  # SQL, or a function of the cursor for values made at run time


def _new_journal_id(cur) -> None:
    """Each journal gets its own random id: a server can tell its journal from any other."""
    cur.execute(
        "INSERT INTO journal_identity (journal_id, created_at) VALUES (?, ?)",
        (secrets.token_hex(16), datetime.now(UTC).isoformat(timespec="seconds")),
    )


def _sheet_kiosks_tables(cur) -> None:
    """Kiosks a pairing sheet enrolled ("SLUG table N") sit at table N: give them it."""
    for row in cur.execute("SELECT name, tournament FROM kiosks").all():
        match = re.fullmatch(re.escape(row["tournament"][:28]) + r" table (\d{1,3})", row["name"])
        if match and int(match.group(1)) >= 1:
            cur.execute(
                "UPDATE kiosks SET table_no = ? WHERE name = ?", (int(match.group(1)), row["name"])
            )


MIGRATIONS: tuple[tuple[int, str, tuple[Step, ...]], ...] = (
    (
        1,
        "tournaments, kiosks and the adjudication journal",
        (
            """CREATE TABLE tournaments (
            slug TEXT PRIMARY KEY,
            title TEXT NOT NULL,
            lexicon TEXT NOT NULL,
            lexicon_fingerprint TEXT NOT NULL,
            rule TEXT NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL)""",
            """CREATE TABLE kiosks (
            name TEXT PRIMARY KEY,
            tournament TEXT NOT NULL REFERENCES tournaments (slug),
            token_hash TEXT NOT NULL UNIQUE,
            pairing_hash TEXT UNIQUE,
            pairing_expires_at TEXT,
            session_nonce TEXT,
            created_at TEXT NOT NULL,
            revoked_at TEXT,
            last_seen_at TEXT)""",
            """CREATE TABLE adjudications (
            id INTEGER PRIMARY KEY,
            recorded_at TEXT NOT NULL,
            kind TEXT NOT NULL,
            refers_to INTEGER,
            tournament TEXT NOT NULL,
            kiosk TEXT NOT NULL,
            lexicon_name TEXT NOT NULL,
            lexicon_fingerprint TEXT NOT NULL,
            lexicon_words INTEGER NOT NULL,
            rule TEXT NOT NULL,
            words TEXT NOT NULL,
            word_count INTEGER NOT NULL,
            verdict TEXT NOT NULL,
            consequence TEXT NOT NULL,
            table_no TEXT,
            round_no TEXT,
            challenger TEXT,
            player TEXT,
            actor TEXT,
            note TEXT,
            prev_hash TEXT NOT NULL,
            row_hash TEXT NOT NULL)""",
            "CREATE INDEX adjudications_by_kiosk ON adjudications (kiosk, recorded_at)",
            "CREATE INDEX adjudications_by_tournament ON adjudications (tournament, id)",
        ),
    ),
    (
        2,
        "staff accounts (director, word judges) and login failures",
        (
            """CREATE TABLE staff (
            name TEXT PRIMARY KEY,
            role TEXT NOT NULL,
            password_hash TEXT NOT NULL,
            created_at TEXT NOT NULL,
            password_changed_at TEXT NOT NULL)""",
            """CREATE TABLE login_failures (
            subject TEXT PRIMARY KEY,
            failures INTEGER NOT NULL,
            last_failure_at TEXT NOT NULL,
            retry_at TEXT NOT NULL)""",
            "CREATE INDEX adjudications_by_refers_to ON adjudications (refers_to)",
        ),
    ),
    (
        3,
        "indexes and tallies that keep the director's pages flat as the journal grows",
        (
            # Each index costs every append a page write (and the fsync that much more), so
            # rows that need no entry get none: most rows are challenges referring to nothing.
            "DROP INDEX adjudications_by_kiosk",  # (kiosk, recorded_at): (kiosk, id) serves both
            "CREATE INDEX adjudications_by_kiosk_id ON adjudications (kiosk, id)",
            "DROP INDEX adjudications_by_refers_to",
            "CREATE INDEX adjudications_follow_ups ON adjudications (refers_to) "
            "WHERE refers_to IS NOT NULL",
            "CREATE INDEX adjudications_not_challenges ON adjudications (kind, id) "
            "WHERE kind <> 'challenge'",
            # Rows per UTC hour, tournament and kind, and their first and last ids (the
            # journal's index by time), kept in each append's transaction.
            """CREATE TABLE journal_tallies (
            hour TEXT NOT NULL,
            tournament TEXT NOT NULL,
            kind TEXT NOT NULL,
            row_count INTEGER NOT NULL,
            first_id INTEGER NOT NULL,
            last_id INTEGER NOT NULL,
            PRIMARY KEY (hour, tournament, kind))""",
            """INSERT INTO journal_tallies (hour, tournament, kind, row_count, first_id, last_id)
            SELECT substr(recorded_at, 1, 13), tournament, kind, COUNT(*), MIN(id), MAX(id)
            FROM adjudications GROUP BY substr(recorded_at, 1, 13), tournament, kind""",
            # One row per adjudication with a second opinion or a ruling, kept the same way:
            # open while flagged and neither ruled on nor void (a void row or a reissue).
            """CREATE TABLE journal_cases (
            original_id INTEGER PRIMARY KEY,
            flagged INTEGER NOT NULL,
            ruling_id INTEGER,
            void_id INTEGER,
            open INTEGER NOT NULL,
            latest_id INTEGER NOT NULL)""",
            "CREATE INDEX journal_cases_by_open ON journal_cases (open, original_id)",
            """INSERT INTO journal_cases (original_id, flagged, ruling_id, void_id, open, latest_id)
            SELECT refers_to, flagged, ruling_id, void_id,
                CASE WHEN flagged = 1 AND ruling_id IS NULL AND void_id IS NULL THEN 1 ELSE 0 END,
                latest_id
            FROM (SELECT refers_to,
                MAX(CASE WHEN kind = 'second-opinion'
                    AND note LIKE '%flagged for the director%' THEN 1 ELSE 0 END) AS flagged,
                MIN(CASE WHEN kind = 'ruling' THEN id END) AS ruling_id,
                MIN(CASE WHEN kind IN ('void', 'challenge') THEN id END) AS void_id,
                MAX(CASE WHEN kind IN ('second-opinion', 'ruling') THEN id END) AS latest_id
                FROM adjudications
                WHERE refers_to IS NOT NULL
                GROUP BY refers_to) AS follow_ups
            WHERE latest_id IS NOT NULL""",
        ),
    ),
    (
        4,
        "journal identity, signed checkpoints, kiosks' witness receipts and their alarms",
        (
            """CREATE TABLE journal_identity (
            journal_id TEXT PRIMARY KEY,
            created_at TEXT NOT NULL,
            probed_at TEXT)""",
            _new_journal_id,
            """CREATE TABLE checkpoints (
            made_at TEXT NOT NULL,
            row_id INTEGER NOT NULL,
            body TEXT NOT NULL)""",
            "CREATE INDEX checkpoints_by_time ON checkpoints (made_at)",
            """CREATE TABLE kiosk_witnesses (
            kiosk TEXT PRIMARY KEY,
            row_id INTEGER NOT NULL,
            receipt TEXT NOT NULL,
            reported_at TEXT NOT NULL)""",
            """CREATE TABLE witness_alarms (
            kiosk TEXT NOT NULL,
            row_id INTEGER NOT NULL,
            row_hash TEXT NOT NULL,
            problem TEXT NOT NULL,
            raised_at TEXT NOT NULL,
            acknowledged_at TEXT,
            acknowledged_by TEXT,
            PRIMARY KEY (kiosk, row_id, row_hash))""",
        ),
    ),
    (
        5,
        "server-side staff sessions; sign-in and pairing attempts counted per address",
        (
            """CREATE TABLE staff_sessions (
            id_hash TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            created_at TEXT NOT NULL,
            expires_at TEXT NOT NULL)""",
            "CREATE INDEX staff_sessions_by_name ON staff_sessions (name)",
            """CREATE TABLE attempts (
            scope TEXT NOT NULL,
            address TEXT NOT NULL,
            name TEXT NOT NULL,
            failures INTEGER NOT NULL,
            last_failure_at TEXT NOT NULL,
            retry_at TEXT NOT NULL,
            PRIMARY KEY (scope, address, name))""",
            "DROP TABLE login_failures",
        ),
    ),
    (
        6,
        "penalties as numbers, flags for the director, challenges by game (issue 11)",
        (
            "ALTER TABLE adjudications ADD COLUMN penalty TEXT",
            "ALTER TABLE adjudications ADD COLUMN flag TEXT",
            # The challenger's earlier challenges in one game (WESPA 3.10.15(c)): one seek.
            # Partial indexes: a row they do not cover costs no index write (and no WAL page).
            "CREATE INDEX adjudications_by_game ON adjudications "
            "(tournament, round_no, table_no, challenger, id) "
            "WHERE kind = 'challenge' AND challenger IS NOT NULL",
            "CREATE INDEX adjudications_by_flag ON adjudications (flag, id) WHERE flag IS NOT NULL",
        ),
    ),
    (
        7,
        "rulebooks, third round (issue 20): a dictionary check and flag reasons as row fields, "
        "a tournament's rulebook and date, flags the director dismissed",
        (
            # The word judge's dictionary check ('ACCEPTABLE' or 'UNACCEPTABLE') and why a
            # second opinion was flagged (a JSON list, '[]' when it was not): fields of the row,
            # never parsed back out of the note. Older rows keep NULL (and their hashes).
            "ALTER TABLE adjudications ADD COLUMN dictionary TEXT",
            "ALTER TABLE adjudications ADD COLUMN flag_reasons TEXT",
            # What else a row says as data (JSON object, keys sorted): a challenge's
            # final_play, a ruling's waived penalty or confirmed correction, a void's ground.
            "ALTER TABLE adjudications ADD COLUMN details TEXT",
            "ALTER TABLE tournaments ADD COLUMN rulebook TEXT",
            "ALTER TABLE tournaments ADD COLUMN event_date TEXT",
            # A flag the director dismissed with a reason (a flag is no journal row: the
            # challenge it names stays as recorded).
            """CREATE TABLE flag_dismissals (
            entry_id INTEGER NOT NULL,
            flag TEXT NOT NULL,
            reason TEXT NOT NULL,
            actor TEXT NOT NULL,
            dismissed_at TEXT NOT NULL,
            PRIMARY KEY (entry_id, flag))""",
        ),
    ),
    (
        8,
        "rows a signed receipt or the high-water mark proves missing: judging stops (issue 22)",
        (
            """CREATE TABLE journal_rollbacks (
            row_id INTEGER NOT NULL,
            row_hash TEXT NOT NULL,
            source TEXT NOT NULL,
            head INTEGER NOT NULL,
            found_at TEXT NOT NULL,
            resolved_at TEXT,
            resolution TEXT,
            PRIMARY KEY (row_id, row_hash))""",
        ),
    ),
    (
        9,
        "each tournament's language, which its kiosks speak (issue 23)",
        ("ALTER TABLE tournaments ADD COLUMN language TEXT NOT NULL DEFAULT 'en'",),
    ),
    (
        10,
        "a kiosk's table, given to every challenge made there that names none (issue 28)",
        ("ALTER TABLE kiosks ADD COLUMN table_no INTEGER", _sheet_kiosks_tables),
    ),
    (
        11,
        "why a tournament is off its rulebook's lists or rules, as the director recorded it "
        "(issue 28)",
        ("ALTER TABLE tournaments ADD COLUMN off_rulebook TEXT",),
    ),
    (
        12,
        "the tournament's own pairings (issue 29): TSH links, their games, a challenge's game",
        (
            # A tournament's link to its TSH event: where it is read from, which divisions,
            # and how the last read went (the director's overview says what failed, since when).
            """CREATE TABLE tsh_links (
            tournament TEXT PRIMARY KEY,
            source TEXT NOT NULL,
            kind TEXT NOT NULL,
            divisions TEXT NOT NULL,
            event_name TEXT NOT NULL,
            linked_at TEXT NOT NULL,
            read_at TEXT NOT NULL,
            checked_at TEXT NOT NULL,
            stamp TEXT,
            content_hash TEXT NOT NULL,
            failure TEXT,
            failed_since TEXT)""",
            # The linked games, replaced whole at each good read: a kiosk's game is one seek.
            """CREATE TABLE tsh_games (
            tournament TEXT NOT NULL,
            division TEXT NOT NULL,
            round_no INTEGER NOT NULL,
            table_no TEXT,
            board INTEGER,
            players TEXT NOT NULL,
            scored INTEGER NOT NULL)""",
            "CREATE INDEX tsh_games_by_table ON tsh_games (tournament, table_no, round_no)",
            # A challenge's game as TSH has it: the division and both players (a JSON list,
            # the first player first). Older rows keep NULL (and their hashes).
            "ALTER TABLE adjudications ADD COLUMN division TEXT",
            "ALTER TABLE adjudications ADD COLUMN players TEXT",
            # The director's journal filtered by player: the games a player sat at, one seek
            # each; a row of no linked game needs no entry.
            "CREATE INDEX adjudications_by_players ON adjudications (players, id) "
            "WHERE players IS NOT NULL",
        ),
    ),
    (
        13,
        "pairing codes kept as keyed hashes (issue 26): every unused code kept the old way "
        "(plain SHA-256, which a copy of the journal could be searched for) ends; pair again",
        (
            # A code kept as its plain SHA-256 is short enough to find by trying them all, in
            # any copy of the journal: it must not be usable any longer. Codes made from now on
            # are kept as HMAC-SHA256 under a key outside the journal (hall/pairing_key.py).
            "UPDATE kiosks SET pairing_hash = NULL, pairing_expires_at = NULL "
            "WHERE pairing_hash IS NOT NULL",
        ),
    ),
    (
        14,
        "the hall's key signs that it began the journal, and each copy keeps the head last "
        "committed, sealed (issue 27): journal_begun.py, chain_head.py",
        (
            "ALTER TABLE journal_identity ADD COLUMN begun TEXT",
            """CREATE TABLE journal_head (
            slot INTEGER PRIMARY KEY CHECK (slot = 1),
            record TEXT NOT NULL)""",
        ),
    ),
    (
        15,
        "each tournament's lexicon pin: every field that decides a verdict (issue 27)",
        (
            # The pin (hex) and the values it covers (canonical JSON), recorded when the
            # director sets the lexicon. Older tournaments get NULL here, and the current pin of
            # their lexicon when the hall next opens (hall.tournaments.record_missing_pins).
            "ALTER TABLE tournaments ADD COLUMN lexicon_pin TEXT",
            "ALTER TABLE tournaments ADD COLUMN lexicon_pinned TEXT",
        ),
    ),
    (
        16,
        "keyed rows (issue 33): each row's keyed hash, and the key's signed statement of the "
        "first keyed row (row_keys.py)",
        (
            # HMAC of the journal id, row number and row hash under a secret of the hall's
            # key: rows written before keying began keep NULL (and are read as they are).
            "ALTER TABLE adjudications ADD COLUMN keyed_hash TEXT",
            "ALTER TABLE journal_identity ADD COLUMN keyed TEXT",
        ),
    ),
    (
        18,
        "rulebooks, fifth round (issue 35): the free challenges the director grants, and the "
        "rows that use them, each found by a partial index",
        (
            # A tournament's grants (NSA VI.C: a free challenge for a player's later challenge):
            # one seek per unsuccessful challenge, in an index only grants write to.
            "CREATE INDEX adjudications_grants ON adjudications (tournament, id) "
            "WHERE kind = 'free-challenge'",
            # The rows that used a grant (a challenge, or the ruling or opinion that made it
            # unsuccessful): only they write to it.
            "CREATE INDEX adjudications_grant_uses ON adjudications (tournament, id) "
            "WHERE details LIKE '%\"free_challenge\"%'",
        ),
    ),
    (
        22,
        "judging held until the director acts: the journal's mirror (the USB stick) was gone "
        "at the start (issue 34): journal_holds.py",
        (
            """CREATE TABLE journal_holds (
            kind TEXT NOT NULL,
            detail TEXT NOT NULL,
            since TEXT NOT NULL,
            resolved_at TEXT,
            resolution TEXT)""",
        ),
    ),
    (
        23,
        "the journal knows its mirror by identity, not by path (issue 40): "
        "copies/mirror_identity.py",
        (
            # The mirror (the USB stick) this journal is written to: the id its copy holds,
            # and where it was last seen. Kept in the journal itself, so no file deleted beside
            # it makes a laptop forget that it had a mirror.
            """CREATE TABLE journal_mirror (
            slot INTEGER PRIMARY KEY CHECK (slot = 1),
            copy_id TEXT NOT NULL,
            path TEXT NOT NULL,
            since TEXT NOT NULL)""",
            # Each copy's own id: written into each file by itself, never through the mirror,
            # so the laptop's copy and the stick's differ here and nowhere else.
            """CREATE TABLE copy_identity (
            slot INTEGER PRIMARY KEY CHECK (slot = 1),
            copy_id TEXT NOT NULL)""",
        ),
    ),
    (
        24,
        "each row names the laptop that wrote it, by its install id, and the journal keeps the "
        "signed takeover statements (issue 40): journal/writer.py, copies/takeover.py",
        (
            # Hashed with the row when set (journal_entry.py): rows written before keep NULL.
            "ALTER TABLE adjudications ADD COLUMN install TEXT",
            # `kit open`'s signed statements, written into each copy itself beside the side
            # file: deleting a file on the stick does not erase who took the journal over.
            """CREATE TABLE journal_takeovers (
            seq INTEGER NOT NULL,
            statement TEXT NOT NULL)""",
        ),
    ),
    (
        30,
        "a kiosk's verdict for every player (issue 44): spoken aloud, large and high-contrast, "
        "as the director sets it (kiosks.set_access)",
        ("ALTER TABLE kiosks ADD COLUMN access TEXT NOT NULL DEFAULT ''",),
    ),
    (
        32,
        "the players' record (issue 46): each player's challenge figures as judged, kept in "
        "each append (player_tallies.py), counted from the journal's rows so far",
        (
            # One row per tournament, division and player (player_tallies.FIGURES, in order).
            """CREATE TABLE player_tallies (
            tournament TEXT NOT NULL,
            division TEXT NOT NULL,
            player TEXT NOT NULL,
            name TEXT NOT NULL,
            challenges_made INTEGER NOT NULL DEFAULT 0,
            challenges_won INTEGER NOT NULL DEFAULT 0,
            challenges_lost INTEGER NOT NULL DEFAULT 0,
            challenges_undecided INTEGER NOT NULL DEFAULT 0,
            penalty_points INTEGER NOT NULL DEFAULT 0,
            penalty_turns INTEGER NOT NULL DEFAULT 0,
            penalty_seconds INTEGER NOT NULL DEFAULT 0,
            plays_challenged INTEGER NOT NULL DEFAULT 0,
            plays_came_off INTEGER NOT NULL DEFAULT 0,
            plays_stood INTEGER NOT NULL DEFAULT 0,
            plays_undecided INTEGER NOT NULL DEFAULT 0,
            free_challenges_granted INTEGER NOT NULL DEFAULT 0,
            free_challenges_used INTEGER NOT NULL DEFAULT 0,
            opinions_changed INTEGER NOT NULL DEFAULT 0,
            rulings_changed INTEGER NOT NULL DEFAULT 0,
            voided INTEGER NOT NULL DEFAULT 0,
            plays_voided INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (tournament, division, player))""",
            # Empty until the rows already in the journal are counted (under the chain lock,
            # player_tallies.ensure_counted: the hall's upgrade, or the first read of them).
            "CREATE TABLE player_tallies_counted (counted_at TEXT NOT NULL)",
        ),
    ),
    (
        33,
        "events that close (issue 46): the hall key's signed statements that a tournament was "
        "closed or reopened, with no journal number (closings.py)",
        (
            """CREATE TABLE tournament_closings (
            tournament TEXT NOT NULL,
            seq INTEGER NOT NULL,
            action TEXT NOT NULL,
            statement TEXT NOT NULL,
            PRIMARY KEY (tournament, seq))""",
        ),
    ),
    (
        36,
        "the players' record follows the director's points (issues 43 and 46): each player's "
        "points by the director's hand, counted again from the journal's rows so far",
        (
            "ALTER TABLE player_tallies ADD COLUMN director_points INTEGER NOT NULL DEFAULT 0",
            # A placement or exchange decision recorded before this counted nothing: the
            # tallies are counted afresh at the next read (player_tallies.ensure_counted, under
            # the chain lock), as after migration 32.
            "DELETE FROM player_tallies_counted",
        ),
    ),
)

LATEST = max(version for version, _, _ in MIGRATIONS)


def current_version(db: Database) -> int:
    """The highest applied migration, 0 for an empty database."""
    with db.transaction(chain_lock=True) as cur:  # may create the table: not beside an upgrade
        _ensure_table(cur)
        row = cur.execute("SELECT MAX(version) AS version FROM schema_migrations").one()
    return int(row["version"] or 0) if row else 0


def upgrade(db: Database) -> list[int]:
    """Apply every migration not yet applied; returns the versions applied now.

    Each version is looked up by itself, not compared with the highest applied: versions
    developed on parallel branches may land out of order (4 before 3), and 3 still applies.
    """
    applied = []
    with db.transaction(chain_lock=True) as cur:
        _ensure_table(cur)
        done = {
            int(row[0]) for row in cur.execute("SELECT version FROM schema_migrations").tuples()
        }
        for version, description, statements in sorted(MIGRATIONS, key=lambda m: m[0]):
            if version in done:
                continue
            for statement in statements:
                if callable(statement):
                    statement(cur)
                else:
                    cur.execute(statement)
            cur.execute(
                "INSERT INTO schema_migrations (version, description, applied_at) VALUES (?, ?, ?)",
                (version, description, datetime.now(UTC).isoformat()),
            )
            applied.append(version)
    return applied


def _ensure_table(cur) -> None:
    cur.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        "version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TEXT NOT NULL)"
    )
