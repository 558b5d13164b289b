"""Issue 45 item 2: the full walk checks one keyed hash, not every row's, when the last row it
verifies holds a valid one and no witness differs; and a chain walked already (the stick's,
walked while the passphrase is derived) is reused only while it is still that copy. Either
way, its findings are exactly those of the walk that checks every row's keyed hash."""

from __future__ import annotations

import threading

import pytest

from adjudicator.record.journal import chain_walk, journal, receipt_key, row_keys
from adjudicator.record.proofs import journal_begun

from support.journal import challenge_fields
from support.keyed_journal import execute, hall_like, rewrite


class CountingSecret:
    """The hall's row secret, counting the keyed hashes made with it."""

    def __init__(self, secret: row_keys.RowSecret):
        self.secret, self.made = secret, 0

    def mac(self, text: bytes) -> str:
        self.made += 1
        return self.secret.mac(text)


def setting(db, key_path, rows: int = 8):
    """A hall's journal of `rows` rows: its receipts as witnesses, and its keys."""
    receipts = hall_like(db, key_path, rows)
    witnessed: chain_walk.Witnessed = {}
    for receipt in receipts[::3]:
        witnessed.setdefault(receipt["id"], []).append((receipt["row_hash"], "a receipt"))
    journal_id = journal_begun.identity(db)[0]
    secret = CountingSecret(row_keys.secret(receipt_key.load(key_path)))
    return witnessed, chain_walk.Keyed(journal_id, 1, secret)


def every_row(db, witnessed, keyed) -> chain_walk.Walk:
    """The walk that checks each row's keyed hash: what the shortcut must always agree with."""
    return chain_walk._walk(db, witnessed, keyed, True, None)


def test_a_clean_journal_costs_one_keyed_hash_and_finds_what_every_row_finds(migrated_db, key_path):
    witnessed, keyed = setting(migrated_db, key_path, 12)
    found = chain_walk.walk(migrated_db, witnessed, keyed, lost_holds=True)
    assert keyed.secret.made == 1
    assert found == every_row(migrated_db, witnessed, keyed)
    assert (found.rows, found.agreed_to, found.unkeyed, found.contradicted) == (12, 12, None, None)
    assert keyed.secret.made == 13  # the comparison walk made one a row


def damage_keyed_hash(db, row: int) -> None:
    execute(db, "UPDATE adjudications SET keyed_hash = 'junk' WHERE id = ?", (row,))


def rows_appended_with_another_key(db, key_path):
    other = receipt_key.load_or_create(key_path.with_name("another_hall.pem"))
    row_keys.of(db).use(lambda: other)
    for _ in range(2):
        journal.append(db, **challenge_fields())


@pytest.mark.parametrize(
    "harm",
    [
        "rewritten",
        "keyed hash damaged mid-chain",
        "keyed hash damaged at the newest row",
        "a row altered",
        "rows appended with another key",
        "a witness contradicted",
    ],
)
def test_whatever_was_done_to_the_copy_the_shortcut_finds_what_every_row_finds(
    migrated_db, key_path, harm
):
    witnessed, keyed = setting(migrated_db, key_path)
    if harm == "rewritten":
        rewrite(migrated_db, 3)
    elif harm == "keyed hash damaged mid-chain":
        damage_keyed_hash(migrated_db, 2)
    elif harm == "keyed hash damaged at the newest row":
        damage_keyed_hash(migrated_db, 8)
    elif harm == "a row altered":
        execute(migrated_db, "UPDATE adjudications SET words = 'ZZZ' WHERE id = 5")
    elif harm == "rows appended with another key":
        rows_appended_with_another_key(migrated_db, key_path)
    else:
        witnessed[4] = [("0" * 64, "a forged receipt")]
    found = chain_walk.walk(migrated_db, witnessed, keyed, lost_holds=True)
    assert found == every_row(migrated_db, witnessed, keyed)
    if harm != "keyed hash damaged mid-chain":  # row 8's keyed hash chains row 2 unchanged
        assert found.bad_id is not None or found.unkeyed or found.contradicted


def test_a_chain_walked_before_is_reused_only_while_the_copy_is_the_one_walked(
    migrated_db, key_path
):
    witnessed, keyed = setting(migrated_db, key_path)
    chained = chain_walk.walk(migrated_db)  # as the stick's is walked beside Argon2id
    reused = chain_walk.walk(migrated_db, witnessed, keyed, lost_holds=True, chained=chained)
    assert reused == every_row(migrated_db, witnessed, keyed) and reused.agreed_to == 8

    rewrite(migrated_db, 3)  # the copy rewritten after its chain was walked
    again = chain_walk.walk(migrated_db, witnessed, keyed, lost_holds=True, chained=chained)
    assert again == every_row(migrated_db, witnessed, keyed)
    assert again.contradicted is not None or again.unkeyed == 3


def test_a_chain_walked_before_a_row_was_added_is_not_reused(migrated_db, key_path):
    witnessed, keyed = setting(migrated_db, key_path)
    chained = chain_walk.walk(migrated_db)
    rows_appended_with_another_key(migrated_db, key_path)
    found = chain_walk.walk(migrated_db, witnessed, keyed, lost_holds=True, chained=chained)
    assert found.rows == 10 and found.unkeyed == 9
    assert found == every_row(migrated_db, witnessed, keyed)


def test_a_walk_asked_to_stop_stops(migrated_db, key_path):
    hall_like(migrated_db, key_path, 3)
    stop = threading.Event()
    stop.set()
    with pytest.raises(chain_walk.WalkStopped):
        chain_walk.walk(migrated_db, stop=stop)
