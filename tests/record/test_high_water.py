"""The signed high-water mark beside the key: never backwards across threads and processes,
and a mark edited by hand does not verify."""

from __future__ import annotations

import json
import multiprocessing
import threading

from adjudicator.record.journal import receipt_key
from adjudicator.record.proofs import high_water


def advance_range(key_path, start: int, stop: int) -> None:
    key = receipt_key.load(key_path)
    mark = high_water.HighWater(key, key_path)
    threads = [
        threading.Thread(
            target=lambda offset=offset: [
                mark.advance("j" * 32, row, f"{row:064x}") for row in range(start + offset, stop, 4)
            ]
        )
        for offset in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def test_the_mark_only_moves_up_and_verifies(tmp_path):
    key_path = tmp_path / "receipt_key.pem"
    key = receipt_key.load_or_create(key_path)
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=advance_range, args=(key_path, 1 + n, 400)) for n in (0, 1)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    mark = high_water.read(high_water.path_for(key_path), key.public)
    assert mark is not None and mark["id"] == 399 and mark["row_hash"] == f"{399:064x}"

    high_water.HighWater(key, key_path).advance("j" * 32, 12, "b" * 64)  # lower: ignored
    assert high_water.read(high_water.path_for(key_path), key.public)["id"] == 399

    forged = {**mark, "id": 1000}
    high_water.path_for(key_path).write_text(json.dumps(forged))
    assert high_water.read(high_water.path_for(key_path), key.public) is None


def test_the_receipt_itself_is_the_mark_and_is_not_signed_twice(tmp_path):
    key_path = tmp_path / "receipt_key.pem"
    key = receipt_key.load_or_create(key_path)
    receipt = key.sign(
        {"type": "receipt", "journal": "j" * 32, "id": 7, "row_hash": "c" * 64, "words": ["QI"]}
    )
    high_water.HighWater(key, key_path).advance("j" * 32, 7, "c" * 64, receipt)
    # The receipt as issued, its one signature: no mark of its own was signed.
    assert high_water.read(high_water.path_for(key_path), key.public) == receipt

    tampered = {**receipt, "id": 8}
    high_water.path_for(key_path).write_text(json.dumps(tampered))
    assert high_water.read(high_water.path_for(key_path), key.public) is None


def test_a_lower_row_checked_before_a_higher_mark_was_written_never_lowers_it(tmp_path):
    """Two threads of one process: the lower row's passed the cheap check (`advance`) before
    the higher row's mark was written, and then finds the mark this process wrote itself (read
    back without parsing it): the mark stays where it is."""
    key_path = tmp_path / "receipt_key.pem"
    key = receipt_key.load_or_create(key_path)
    mark = high_water.HighWater(key, key_path)
    mark.advance("j" * 32, 399, f"{399:064x}")
    mark._write_if_higher("j" * 32, 398, f"{398:064x}", None, None)  # the thread that waited
    assert high_water.read(high_water.path_for(key_path), key.public)["id"] == 399
    mark._write_if_higher("k" * 32, 1, f"{1:064x}", None, None)  # a journal begun anew: moves
    assert high_water.read(high_water.path_for(key_path), key.public)["journal"] == "k" * 32
