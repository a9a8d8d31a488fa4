"""Seeded synthetic census-block microdata for the fixed-aggregate-statistics audit (paper 003).

Paper 003 §5 audits the U.S. Census PPMF: one record per person with block id, sex, age
(0–115), race (OMB categories) and Hispanic origin (its Table 2), released as the block-level
P-tables of its Table 1 (P12 sex × age, P12A–I the same by race and Hispanic origin, …). The
protected dataset D is a ~454-record block and the attacker's auxiliary dataset D_aux the other
90 % of a ~4,540-person population from the same blocks (§5, "we partition them randomly into two
parts of sizes 10 % and 90 %"). Those microdata cannot ship with the app, so this generator draws
records with the features that matter to the attacks:

* an age pyramid close to the 2020 U.S. one (5-year shares, a thin tail to 115);
* a sex ratio near 1 that falls with age (women outlive men);
* the seven single-race/multi-race categories of the P12A–G tables with national shares, and
  Hispanic origin (~19 %) whose race mix differs (mostly "Some Other Race" and "Two or More");
* spatial heterogeneity: each block draws its own Hispanic share, race mixes and age tilt, so
  blocks differ as real ones do (segregated neighbourhoods, retirement areas, young areas).

By default (``auxiliary="same_blocks"``, as in paper 003 §5) the auxiliary records come from the
same blocks as the protected ones — the same distribution, other people. ``"other_blocks"``
draws them from further blocks of the same region instead (a weaker attacker).

Regenerate the bundled sample with::

    python -m engine.data.census --out resources/aggregates --seed 0
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from engine.data.errors import InputError, given_value
from engine.data.microdata import (
    ColumnSchema,
    Microdata,
    Schema,
    unique_targets,
    write_microdata_csv,
)
from engine.runtime import rng

AGE_MAX = 115
SEXES = ("Male", "Female")
# The seven race categories of the P12A–G tables (OMB 1997 standard; "alone" unless two or more).
RACES = (
    "White",
    "Black or African American",
    "American Indian and Alaska Native",
    "Asian",
    "Native Hawaiian and Other Pacific Islander",
    "Some Other Race",
    "Two or More Races",
)
HISPANIC = ("Hispanic", "Not Hispanic")
COLUMNS = ("block", "sex", "age", "race", "hispanic")
AUXILIARY_SOURCES = ("same_blocks", "other_blocks")

# 2020-like race shares, separately for Hispanic and non-Hispanic people (they differ greatly:
# most Hispanic people report "Some Other Race" or "Two or More Races").
_RACE_NOT_HISPANIC = np.array([0.715, 0.150, 0.007, 0.074, 0.002, 0.005, 0.047])
_RACE_HISPANIC = np.array([0.204, 0.019, 0.024, 0.004, 0.001, 0.420, 0.328])
_HISPANIC_SHARE = 0.19
# Spatial heterogeneity: Dirichlet concentration of a block's race mix around the region's
# (smaller = more segregated blocks), Beta concentration of its Hispanic share, spread of the
# age tilt (per year of age, log scale; ±0.02 makes a block ~2x younger or older at the extremes).
_RACE_CONCENTRATION = 8.0
_HISPANIC_CONCENTRATION = 6.0
_AGE_TILT_SD = 0.012
_HISPANIC_AGE_TILT = -0.012   # Hispanic people are younger on average (median ~30 vs ~41)

# Share of the population in each 5-year age group 0–4, 5–9, …, 95–99 (2020-like), then 100+.
_AGE_GROUPS = np.array([5.7, 6.0, 6.3, 6.4, 6.5, 6.9, 6.8, 6.6, 6.2, 6.2, 6.3, 6.6, 6.3, 5.3,
                        4.2, 2.9, 1.8, 1.1, 0.5, 0.15])
_CENTENARIANS = 0.03  # percent aged 100+


def _age_pmf() -> np.ndarray:
    """(116,) probabilities of ages 0..115: flat within 5-year groups, geometric tail past 100."""
    pmf = np.repeat(_AGE_GROUPS / 5.0, 5)
    tail = 0.6 ** np.arange(AGE_MAX - 100 + 1)
    pmf = np.concatenate([pmf, _CENTENARIANS * tail / tail.sum()])
    return pmf / pmf.sum()


def _male_share(age: np.ndarray) -> np.ndarray:
    """Probability of being male at each age: 0.512 at birth, falling to ~0.3 past 95."""
    return np.clip(0.512 - np.clip(age - 50, 0, None) * 0.0045, 0.3, 0.512)


def census_schema(block_ids: tuple[str, ...] = ("block_000",), *,
                  sensitive: str = "race") -> Schema:
    """The PPMF-like schema of paper 003 Table 2 (7 race categories, as in Table 1's P12A–G).

    ``sensitive`` is ``"race"`` (default) or ``"hispanic"`` (paper 003's choice); the other
    columns are quasi-identifiers, i.e. what the attacker knows about the target.
    """
    if sensitive not in ("race", "hispanic"):
        raise InputError(f"The census sample's sensitive attribute must be “race” or “hispanic”, "
                         f"got {given_value(sensitive)}.", key="sensitive", setting="sensitive")
    if not block_ids:
        raise InputError("The census schema needs at least one block id.", key="block_ids")

    def role(name: str) -> str:
        return "sensitive" if name == sensitive else "quasi_identifier"

    return Schema((
        ColumnSchema("block", role("block"), "categorical", tuple(block_ids)),
        ColumnSchema("sex", role("sex"), "categorical", SEXES),
        ColumnSchema("age", role("age"), "integer", low=0, high=AGE_MAX),
        ColumnSchema("race", role("race"), "categorical", RACES),
        ColumnSchema("hispanic", role("hispanic"), "categorical", HISPANIC),
    ))


def _check_count(value, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not float(value).is_integer() or value < minimum:
        raise InputError(f"'{name}' must be a whole number of at least {minimum}, got "
                         f"{given_value(value)}.", key=name)
    return int(value)


def _draw_block(g: np.random.Generator, age_pmf: np.ndarray) -> dict:
    """One block's parameters: Hispanic share, race mixes, age distributions."""
    a = _HISPANIC_CONCENTRATION
    hisp = g.beta(a * _HISPANIC_SHARE, a * (1 - _HISPANIC_SHARE))
    races = []
    for base in (_RACE_HISPANIC, _RACE_NOT_HISPANIC):
        # A floor keeps every Dirichlet parameter positive (tiny shares stay possible).
        races.append(g.dirichlet(_RACE_CONCENTRATION * base + 1e-3))
    tilt = g.normal(0.0, _AGE_TILT_SD)
    ages = np.arange(AGE_MAX + 1)
    pmfs = []
    for extra in (_HISPANIC_AGE_TILT, 0.0):
        w = age_pmf * np.exp((tilt + extra) * (ages - 40))
        pmfs.append(w / w.sum())
    return {"hispanic": hisp, "race": races, "age": pmfs}


def _draw_records(g: np.random.Generator, block: int, params: dict, n: int) -> np.ndarray:
    """(n, 5) int32 codes in COLUMNS order for ``n`` people of one block."""
    out = np.empty((n, len(COLUMNS)), dtype=np.int32)
    hisp_code = np.where(g.random(n) < params["hispanic"], 0, 1)  # 0 = Hispanic
    age = np.empty(n, dtype=np.int64)
    race = np.empty(n, dtype=np.int64)
    for h in (0, 1):
        rows = np.flatnonzero(hisp_code == h)
        cdf = np.cumsum(params["age"][h])
        age[rows] = np.minimum(np.searchsorted(cdf, g.random(rows.size) * cdf[-1], side="right"),
                               AGE_MAX)
        rcdf = np.cumsum(params["race"][h])
        race[rows] = np.minimum(
            np.searchsorted(rcdf, g.random(rows.size) * rcdf[-1], side="right"), len(RACES) - 1)
    male = g.random(n) < _male_share(age)
    out[:, 0] = block
    out[:, 1] = np.where(male, 0, 1)
    out[:, 2] = age
    out[:, 3] = race
    out[:, 4] = hisp_code
    return out


def generate_census_blocks(seed: int = 0, n_blocks: int = 1, records_per_block: int = 450,
                           n_auxiliary: int = 4000, *, auxiliary: str = "same_blocks",
                           sensitive: str = "race") -> tuple[Microdata, Microdata]:
    """Synthetic PPMF-like ``(protected, auxiliary)`` microdata (paper 003 §5).

    ``protected`` holds ``n_blocks`` blocks of ``records_per_block`` people each (D);
    ``auxiliary`` holds ``n_auxiliary`` other people (D_aux): from the same blocks, split evenly
    (``auxiliary="same_blocks"``, paper 003 §5's 10 %/90 % split of one population), or from
    ``ceil(n_auxiliary / records_per_block)`` further blocks of the region
    (``"other_blocks"``). Both share one schema (:func:`census_schema` over all block ids).
    Deterministic per ``seed`` (stream ``rng(seed, "census")``).
    """
    n_blocks = _check_count(n_blocks, "n_blocks", 1)
    records_per_block = _check_count(records_per_block, "records_per_block", 1)
    n_auxiliary = _check_count(n_auxiliary, "n_auxiliary", 0)
    if auxiliary not in AUXILIARY_SOURCES:
        raise InputError(f"The census sample's attacker's sample must be one of "
                         f"{', '.join(AUXILIARY_SOURCES)}, got {given_value(auxiliary)}.",
                         key="auxiliary", setting="auxiliary")
    g = rng(seed, "census")
    age_pmf = _age_pmf()
    if auxiliary == "same_blocks":
        n_aux_blocks = 0
        per_block = np.full(n_blocks, n_auxiliary // n_blocks)
        per_block[: n_auxiliary % n_blocks] += 1
    else:
        n_aux_blocks = -(-n_auxiliary // records_per_block) if n_auxiliary else 0
    total_blocks = n_blocks + n_aux_blocks
    width = max(3, len(str(total_blocks - 1)))
    block_ids = tuple(f"block_{b:0{width}d}" for b in range(total_blocks))
    params = [_draw_block(g, age_pmf) for _ in range(total_blocks)]

    protected = [_draw_records(g, b, params[b], records_per_block) for b in range(n_blocks)]
    if auxiliary == "same_blocks":
        aux = [_draw_records(g, b, params[b], int(per_block[b])) for b in range(n_blocks)]
    else:
        sizes = np.full(n_aux_blocks, n_auxiliary // max(n_aux_blocks, 1))
        sizes[: n_auxiliary - int(sizes.sum())] += 1
        aux = [_draw_records(g, n_blocks + k, params[n_blocks + k], int(sizes[k]))
               for k in range(n_aux_blocks)]
    schema = census_schema(block_ids, sensitive=sensitive)
    empty = np.empty((0, len(COLUMNS)), dtype=np.int32)
    what = f"synthetic census blocks (seed {seed})"
    return (Microdata(schema, np.vstack(protected), f"{what}, protected"),
            Microdata(schema, np.vstack(aux) if aux else empty, f"{what}, auxiliary"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m engine.data.census",
        description="Write synthetic census-block microdata (paper 003 §5): "
                    "sample_block.csv (protected) and sample_auxiliary.csv (auxiliary).")
    ap.add_argument("--out", required=True, help="output folder")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--blocks", type=int, default=1, help="protected blocks")
    ap.add_argument("--records-per-block", type=int, default=450)
    ap.add_argument("--auxiliary", type=int, default=4000, help="auxiliary records")
    ap.add_argument("--auxiliary-source", choices=AUXILIARY_SOURCES, default="same_blocks")
    args = ap.parse_args(argv)
    try:
        protected, aux = generate_census_blocks(args.seed, args.blocks, args.records_per_block,
                                                args.auxiliary, auxiliary=args.auxiliary_source)
    except InputError as exc:
        print(exc.one_line())
        return 2
    out = Path(args.out)
    write_microdata_csv(protected, out / "sample_block.csv")
    write_microdata_csv(aux, out / "sample_auxiliary.csv")
    n_unique = unique_targets(protected).size
    print(f"wrote {out / 'sample_block.csv'} ({protected.n_records} records; "
          f"{n_unique} = {n_unique / max(protected.n_records, 1):.1%} unique on "
          f"{', '.join(protected.schema.quasi_identifiers)}) and {out / 'sample_auxiliary.csv'} "
          f"({aux.n_records} records)")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
