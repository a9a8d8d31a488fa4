"""The checks every typed block of result.json is read with (issue 33 item 2: split from
engine/results/blocks.py, so the model's theory blocks can live in their own module): a
block not of the form the app writes is refused with a sentence naming the field
(:class:`BlockError`), and a block read back gives the dict it was read from."""

from __future__ import annotations


class BlockError(ValueError):
    """A block not of the form the app writes; ``str()`` is the sentence saying which field."""


def is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def is_number_or_none(v) -> bool:
    return v is None or is_number(v)


def is_pair_or_none(v) -> bool:
    return v is None or (isinstance(v, list) and len(v) == 2
                         and all(is_number_or_none(x) for x in v))


def need(ok: bool, sentence: str) -> None:
    if not ok:
        raise BlockError(sentence)


def as_pair(v) -> tuple | None:
    return None if v is None else (v[0], v[1])


def written_back(values: dict, written: tuple, extra: dict) -> dict:
    """The dict a block was read from: its keys in the order it held them (``written``: all
    of them, typed or not), then any the block gained since; a block made in code (nothing
    written) gives its typed keys that have a value, then the rest."""
    keys = written or tuple(k for k, v in values.items() if v is not None)
    out = {k: values[k] if k in values else extra[k] for k in keys
           if k in values or k in extra}
    out.update({k: v for k, v in extra.items() if k not in out})
    return out


def split_keys(d: dict, typed: tuple) -> dict:
    """``extra`` and ``written`` of a block read from ``d``: the keys it does not type, and
    the order of all its keys (so ``to_dict`` writes them back the same way)."""
    return {"extra": {k: v for k, v in d.items() if k not in typed}, "written": tuple(d)}


def are_sentences(v) -> bool:
    return isinstance(v, list) and all(isinstance(s, str) for s in v)


def need_numbers(d: dict, keys, sentence: str) -> None:
    need(all(is_number_or_none(d.get(k)) for k in keys), sentence)


def table_or_absent(d: dict, key: str, sentence: str) -> dict:
    v = d.get(key, {})
    need(isinstance(v, dict), sentence)
    return v
