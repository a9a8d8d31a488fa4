"""Synthetic census blocks (paper 003 §5): sizes, determinism, plausible marginals, spatial
heterogeneity, unique targets, the bundled sample files and the CSV round trip."""

from pathlib import Path

import numpy as np
import pytest

from engine.data.census import (
    AGE_MAX,
    RACES,
    census_schema,
    generate_census_blocks,
    main,
)
from engine.data.errors import InputError
from engine.data.microdata import load_microdata_csv, unique_targets, write_microdata_csv

SAMPLES = Path(__file__).resolve().parents[2] / "resources" / "aggregates"


def test_sizes_schema_and_determinism():
    p, a = generate_census_blocks(seed=3)
    assert (p.n_records, a.n_records) == (450, 4000)
    assert p.schema == a.schema == census_schema()
    assert p.schema.sensitive == "race"
    assert p.schema.quasi_identifiers == ("block", "sex", "age", "hispanic")
    p.schema.validate_for_audit()
    p2, a2 = generate_census_blocks(seed=3)
    assert (p.codes == p2.codes).all() and (a.codes == a2.codes).all()
    p3, _ = generate_census_blocks(seed=4)
    assert not (p.codes == p3.codes).all()
    s = census_schema(sensitive="hispanic")
    assert s.sensitive == "hispanic" and "race" in s.quasi_identifiers


def test_several_blocks_and_auxiliary_sources():
    p, a = generate_census_blocks(seed=1, n_blocks=3, records_per_block=100, n_auxiliary=301)
    assert np.bincount(p.column("block")).tolist() == [100, 100, 100]
    assert np.bincount(a.column("block")).tolist() == [101, 100, 100]
    p, a = generate_census_blocks(seed=1, n_blocks=2, records_per_block=100, n_auxiliary=250,
                                  auxiliary="other_blocks")
    assert set(p.column("block").tolist()) == {0, 1}
    assert set(a.column("block").tolist()) == {2, 3, 4} and a.n_records == 250
    assert p.schema.column("block").domain_size == 5
    with pytest.raises(InputError, match="'n_blocks' must be a whole number of at least 1"):
        generate_census_blocks(n_blocks=0)
    with pytest.raises(InputError, match="attacker's sample must be one of"):
        generate_census_blocks(auxiliary="elsewhere")


def test_marginals_are_plausible():
    p, a = generate_census_blocks(seed=0, n_blocks=4, records_per_block=450, n_auxiliary=8000)
    age = a.values("age")
    assert age.min() >= 0 and age.max() <= AGE_MAX
    assert 25 <= np.median(age) <= 50
    assert 0.15 <= np.mean(age < 18) <= 0.32 and 0.08 <= np.mean(age >= 65) <= 0.30
    male = np.mean(a.column("sex") == 0)
    assert 0.45 <= male <= 0.55
    # Women outlive men: fewer men among the old than among children.
    assert np.mean(a.column("sex")[age >= 80] == 0) < np.mean(a.column("sex")[age < 18] == 0)
    hisp = np.mean(a.column("hispanic") == 0)
    assert 0.01 <= hisp <= 0.6
    # Race shares per block sum to 1 and differ between blocks (spatial heterogeneity).
    shares = np.array([np.bincount(p.column("race")[p.column("block") == b],
                                   minlength=len(RACES)) / 450 for b in range(4)])
    assert np.allclose(shares.sum(axis=1), 1.0)
    assert shares.max(axis=0)[0] - shares.min(axis=0)[0] > 0.03 or \
        np.abs(shares[:, 1:] - shares[:, 1:].mean(axis=0)).max() > 0.03
    assert (shares[:, 0] > 0.2).all()   # White is common everywhere in this region
    # Hispanic people mostly report "Some Other Race" or "Two or More Races" or White.
    hisp_race = a.column("race")[a.column("hispanic") == 0]
    assert np.isin(hisp_race, [0, 5, 6]).mean() > 0.8


def test_share_of_unique_targets_is_reported():
    shares = []
    for seed in range(3):
        p, _ = generate_census_blocks(seed=seed, n_auxiliary=0)
        shares.append(unique_targets(p).size / p.n_records)
    print(f"unique on (block, sex, age, hispanic) in a 450-person block: "
          f"{', '.join(f'{s:.1%}' for s in shares)}")
    assert all(0.05 <= s <= 0.5 for s in shares)


def test_csv_round_trip(tmp_path):
    p, a = generate_census_blocks(seed=5, n_blocks=2, records_per_block=60, n_auxiliary=90)
    write_microdata_csv(p, tmp_path / "p.csv")
    back = load_microdata_csv(tmp_path / "p.csv", p.schema)
    assert (back.codes == p.codes).all()
    inferred = load_microdata_csv(tmp_path / "p.csv")
    assert inferred.schema.column("age").kind == "integer"
    assert (inferred.values("age") == p.values("age")).all()
    assert (inferred.labels("race") == p.labels("race")).all()


def test_bundled_samples_match_the_generator(tmp_path):
    assert main(["--out", str(tmp_path), "--seed", "0"]) == 0
    for name in ("sample_block.csv", "sample_auxiliary.csv"):
        assert (tmp_path / name).read_bytes() == (SAMPLES / name).read_bytes(), name
    p = load_microdata_csv(SAMPLES / "sample_block.csv", census_schema())
    a = load_microdata_csv(SAMPLES / "sample_auxiliary.csv", census_schema())
    assert (p.n_records, a.n_records) == (450, 4000)
    readme = (SAMPLES / "README.md").read_text(encoding="utf-8")
    assert "python -m engine.data.census --out resources/aggregates --seed 0" in readme
    n_unique = unique_targets(p).size
    assert f"{n_unique} of the 450 records" in readme
