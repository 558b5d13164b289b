"""A TSH event folder: its `config.tsh` and one `.t` file per division, read as TSH reads them.

TSH::Config::ChooseFile takes `config.tsh` (else the older `tsh.config`) in the folder; each
`division NAME FILE` line names the division's `.t` file, relative to the folder
(TSH::Config::MakeRootPath), or carried in the configuration itself (`#begin_file`). The hall
reads only files inside the folder.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from adjudicator.hall.tsh import config_tsh, regular_file, tfile
from adjudicator.hall.tsh.event import Event, TshError, event_name, tables_map

CONFIG_NAMES = ("config.tsh", "tsh.config")
MAX_FILE_BYTES = 16 * 1024 * 1024


def config_path(folder: Path) -> Path:
    """The folder's configuration file, or TshError if it has none (one that is there but not
    a regular file is taken, for its read to refuse it by name)."""
    for name in CONFIG_NAMES:
        if (folder / name).exists():
            return folder / name
    raise TshError(
        f"{folder} has neither config.tsh nor tsh.config: link TSH's event folder (the one "
        "holding config.tsh and the .t files), or the tourney.js TSH publishes."
    )


# Each configuration's file list, by what its stat said: the follower asks every few seconds in
# every worker, and config.tsh seldom changes.
_FILES: dict[Path, tuple[tuple[int, int, int], list[Path]]] = {}


def files(folder: Path) -> list[Path]:
    """The files the event is read from: its configuration, then each division's .t file
    (those a change to must be noticed). config.tsh is read again only when it changed."""
    config = config_path(folder)
    try:
        info = config.stat()
    except OSError as exc:
        raise TshError(f"Cannot read {config}: {exc.strerror or exc}.") from None
    seen = (info.st_mtime_ns, info.st_size, info.st_ino)
    cached = _FILES.get(config)
    if cached is not None and cached[0] == seen:
        return list(cached[1])
    parsed = config_tsh.read(_read_bytes(config), config.name)
    found = [config] + [
        _inside(folder, name)
        for _, name in parsed.divisions
        if name.lower() not in parsed.attachments
    ]
    if len(_FILES) >= 256:
        _FILES.clear()
    _FILES[config] = (seen, found)
    return list(found)


def read(folder: Path) -> Event:
    """The event in a TSH event folder, or TshError saying what TSH would not read."""
    path = config_path(folder)
    config = config_tsh.read(_read_bytes(path), path.name)
    encoding = config.tfile_encoding()
    divisions = []
    for name, file_name in config.divisions:
        attached = config.attachments.get(file_name.lower())
        if attached is not None:
            data = attached.encode(encoding, errors="replace")
        else:
            data = _read_bytes(_inside(folder, file_name))
        divisions.append(tfile.read(data, name, file_name, encoding))
    counts = {division.name: len(division.players) for division in divisions}
    maps = config_tsh.division_tables(config, counts)
    with_tables = tuple(
        replace(
            division,
            tables=tables_map(maps.get(division.name), f"Tables of division {division.name}"),
        )
        for division in divisions
    )
    return Event(event_name(config.options.get("event_name")), with_tables)


def _inside(folder: Path, file_name: str) -> Path:
    """A division file named by config.tsh, which must lie in the event folder."""
    path = (folder / file_name).resolve()
    if not path.is_relative_to(folder.resolve()):
        raise TshError(
            f"config.tsh names {file_name!r}, outside the event folder: the hall reads only "
            "the event folder's own files."
        )
    return path


def read_file(path: Path, missing: str = "", limit: int = MAX_FILE_BYTES) -> bytes:
    """A TSH file's bytes, or TshError: missing (`missing` says why it was expected), not a
    regular file, too large to be TSH's (more than `limit` bytes), or unreadable
    (regular_file.read_regular says how it is read without ever waiting on the file)."""
    try:
        return regular_file.read_regular(path, limit)
    except FileNotFoundError:
        raise TshError(f"{path} is missing{missing}.") from None


def _read_bytes(path: Path) -> bytes:
    return read_file(path, ": config.tsh names it as a division's file")
