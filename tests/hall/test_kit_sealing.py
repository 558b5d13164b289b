"""The kit's seal (issue 34): the passphrase's key opens the core and nothing else does; an item
sealed to the kit's public half opens only with its private half, as what it was sealed as; a
kit that asks for more than LIMITS is damaged, never obeyed. A cheap cost stands in for the
kit's 256 MiB here: the cost is the kit's own, recorded in it."""

from __future__ import annotations

import base64
import unicodedata

import pytest
from cryptography.exceptions import InvalidTag
from hypothesis import given, settings
from hypothesis import strategies as st

from adjudicator.hall.kit import sealing
from adjudicator.hall.kit.seal import WeakPassphrase, check_passphrase
from adjudicator.hall.people.staff import StaffError

CHEAP = {"time_cost": 1, "memory_kib": 8 * 1024, "parallelism": 1}


def cheap_kdf() -> dict:
    return {**sealing.new_kdf(), **CHEAP}


def test_a_new_kit_records_its_cost_and_a_fresh_salt():
    first, second = sealing.new_kdf(), sealing.new_kdf()
    assert first["name"] == "argon2id"
    assert (first["time_cost"], first["memory_kib"], first["parallelism"]) == (3, 262144, 2)
    assert first["salt"] != second["salt"]


def test_the_passphrase_key_opens_the_core_and_a_wrong_one_does_not():
    kdf = cheap_kdf()
    key = sealing.derive("correct horse battery staple", kdf)
    sealed = sealing.seal(key, b"the core", b"kit 1")
    assert sealing.unseal(
        sealing.derive("correct horse battery staple", kdf), sealed, b"kit 1"
    ) == (b"the core")
    with pytest.raises(InvalidTag):
        sealing.unseal(sealing.derive("correct horse battery stapler", kdf), sealed, b"kit 1")
    with pytest.raises(InvalidTag):  # bound to its kit: moved to another, it does not open
        sealing.unseal(key, sealed, b"kit 2")
    flipped = bytearray(base64.b64decode(sealed["ciphertext"]))
    flipped[0] ^= 1
    with pytest.raises(InvalidTag):
        sealing.unseal(key, {**sealed, "ciphertext": base64.b64encode(flipped).decode()}, b"kit 1")


def test_a_passphrase_typed_in_another_unicode_form_gives_the_same_key():
    kdf = cheap_kdf()
    composed = "crème brûlée au café noir"
    decomposed = unicodedata.normalize("NFD", composed)
    assert composed != decomposed
    assert sealing.derive(composed, kdf) == sealing.derive(decomposed, kdf)


@pytest.mark.parametrize(
    "field,value",
    [
        ("memory_kib", 64 * 1024 * 1024),
        ("memory_kib", 1),
        ("time_cost", 10_000),
        ("parallelism", 0),
        ("time_cost", "3"),
    ],
)
def test_a_cost_outside_the_limits_is_damage_not_an_order(field, value):
    with pytest.raises(sealing.KitDamaged, match=f"cost {field}="):
        sealing.derive("correct horse battery staple", {**cheap_kdf(), field: value})


@pytest.mark.parametrize("kdf", [None, [], {"name": "scrypt"}, {**CHEAP, "name": "argon2id"}])
def test_a_kdf_that_is_not_the_kits_is_damage(kdf):
    with pytest.raises(sealing.KitDamaged):
        sealing.derive("correct horse battery staple", kdf)


@settings(max_examples=8, deadline=None)
@given(st.binary(max_size=4096), st.text(min_size=1, max_size=20))
def test_an_item_sealed_to_the_public_half_opens_with_the_private_half_only(content, name):
    private, public = sealing.new_key_pair()
    other, _ = sealing.new_key_pair()
    aad = f"item {name}".encode()
    sealed = sealing.seal_to(public, content, aad)
    assert sealing.open_sealed(private, sealed, aad) == content
    with pytest.raises(sealing.KitDamaged):
        sealing.open_sealed(other, sealed, aad)
    with pytest.raises(sealing.KitDamaged):  # sealed as one item, read as another
        sealing.open_sealed(private, sealed, aad + b"x")


@pytest.mark.parametrize("sealed", [None, "x", {}, {"ephemeral": "!!"}, {"ephemeral": "AAAA"}])
def test_a_sealed_item_that_is_not_one_is_damage(sealed):
    private, _ = sealing.new_key_pair()
    with pytest.raises(sealing.KitDamaged):
        sealing.open_sealed(private, sealed, b"item")


def test_the_passphrase_is_checked_like_the_directors_password():
    with pytest.raises(StaffError, match="passphrase is too short: use at least 16"):
        check_passphrase("x" * 15)
    with pytest.raises(StaffError, match="passphrase is too long: use at most 1024"):
        check_passphrase("x" * 1025)
    assert check_passphrase("tiles quiver rack gobbet") == "tiles quiver rack gobbet"


@pytest.mark.parametrize(
    "weak, why",
    [
        ("x" * 16, "Repeats like"),  # one character repeated
        ("password12345678", "similar to a commonly used password"),  # a word padded to 16
        ("scrabble!!!!!!!!", "similar to a commonly used password"),
        ("tournament123456", "Add another word or two"),
    ],
)
def test_a_passphrase_easy_to_guess_is_refused_with_the_reason(weak, why):
    with pytest.raises(WeakPassphrase, match="too easy to guess") as refused:
        check_passphrase(weak)
    assert why in str(refused.value)


def test_a_seal_and_a_refresh_never_write_the_kit_at_once(home):
    """The serving hall's refresh skips its turn while a seal writes the kit (else it could
    seal an item to the public half the new seal replaces); a seal waits for a refresh."""
    from adjudicator.hall.kit import refresh

    with refresh.writing() as sealing_now:
        assert sealing_now
        with refresh.writing(wait=False) as refreshing:
            assert not refreshing
    with refresh.writing(wait=False) as refreshing:
        assert refreshing
