"""Published releases with empty cells (issue 21: "the same choices for count-table microdata
and location traces, where they make sense"). A release row whose count was empty was left out
and its cell then read as 0 (the location audit reads absent cells as 0): an empty released
count is a gap, not a zero. Now every column's empty cells are counted at once; with the
default the row is left out and its count kept as unknown (the audit stops, naming file, row
and column, only if an attack reads that count); with ``release_missing = "error"`` the file
is refused; result.json's inputs[].missing_values and the report's gaps table list the
columns, as for microdata and traces."""

from __future__ import annotations

import numpy as np
import pytest
from reportlab.platypus import Paragraph, Table

from engine.audits import location as L
from engine.data.errors import InputError
from engine.data.traces import clip_per_epoch, load_release, load_release_csv
from engine.games import location_setup
from engine.report.sections import inputs_table
from engine.runtime import rng

# Row 3: the count of s2 at epoch 0 is empty; row 5: 'NA' where the count of s2 at 1 was.
RELEASE = "site,epoch,count\ns1,0,3\ns2,0,\ns1,1,4\ns2,1,NA\ns3,0,0\ns3,1,2\n"


def write(tmp_path, text=RELEASE, name="release.csv"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_an_empty_count_is_unknown_not_zero(tmp_path):
    p = write(tmp_path)
    for fill in (False, True):
        values, sites, epochs = load_release_csv(p, fill_missing=fill)
        assert sites == ("s1", "s2", "s3") and epochs == ("0", "1")
        assert np.isnan(values[0, 1]) and np.isnan(values[1, 1]), fill   # was 0 with fill
        assert values[0, 0] == 3 and values[1, 0] == 4 and values[0, 2] == 0
    release = load_release(p)
    assert release.gap_rows == {1: 3, 4: 5}
    gaps = release.missing_values
    assert gaps["per_column"] == [{"column": "count", "empty_cells": 2, "action": "drop_rows"}]
    assert gaps["records_left_out"] == 2 and gaps["records_read"] == 6
    assert "not as 0" in gaps["sentence"]
    release.require([0, 2, 3, 5])             # cells with a count: nothing to say
    with pytest.raises(InputError) as info:
        release.require([0, 4])
    assert "row 5, column 'count' holds 'NA', a mark for a missing value, and the attack " \
        "needs that count (site “s2” at epoch “1”)" in info.value.one_line()


def test_every_column_with_empty_cells_is_listed_at_once(tmp_path):
    # Row 4 has no epoch but a count of 0: wherever it belongs it adds nothing.
    p = write(tmp_path, "site,epoch,count\ns1,0,3\ns2,0,\ns1,,0\ns1,1,5\ns2,1,1\n")
    gaps = load_release(p).missing_values
    assert [(e["column"], e["empty_cells"]) for e in gaps["per_column"]] == \
        [("epoch", 1), ("count", 1)]
    with pytest.raises(InputError) as info:
        load_release(p, missing="error")
    line = info.value.one_line()
    assert str(p) in line and "row 3, column 'count' is empty" in line
    assert "'epoch' 1 (first in row 4)" in line and "'count' 1 (first in row 3)" in line
    assert "not 0" in line


def test_a_count_without_its_site_is_refused_not_dropped(tmp_path):
    # Left out, row 3's 7 would leave its cell absent, and absent cells may read as 0.
    p = write(tmp_path, "site,epoch,count\ns1,0,3\n,0,7\ns2,0,1\n")
    with pytest.raises(InputError) as info:
        load_release(p, fill_missing=True)
    assert "row 3, column 'site' is empty" in info.value.one_line()
    assert "fill in its site or delete the row" in info.value.one_line()


def test_a_release_of_empty_counts_is_refused(tmp_path):
    p = write(tmp_path, "site,epoch,count\ns1,0,\ns2,0,NA\n")
    with pytest.raises(InputError, match="every row has an empty cell"):
        load_release(p)


# --------------------------------------------------------------------------- the audit

BASE = dict(city_users=600, city_epochs=96, aggregate_size=99, test_aggregates=1000,
            shadow_aggregates=400, sweep_targets=0, attacker="auxiliary",
            attacks=("one_threshold", "likelihood_ratio"), target="observations",
            target_observations=15, seed=3)


def released(tmp_path, blank_cell: int | None, name: str):
    """A Laplace-noised release of 99 people on the synthetic city, with ``blank_cell``'s
    count left empty; (path, the target's cells, the blanked row's number)."""
    config = L.LocationConfig(**BASE)
    traces, _ = location_setup.load_population(config)
    clipped = clip_per_epoch(traces, 1, rng(config.seed, "clipping"))
    target = location_setup.choose_target(config, traces, clipped, rng(0, "unused"))
    others = np.delete(np.arange(traces.n_users), target)
    rows = np.random.default_rng(1).choice(others, 99, replace=False)
    values = np.asarray(clipped[rows].sum(axis=0)).ravel().astype(float)
    values += np.random.default_rng(2).laplace(0, location_setup.cell_noise_scale(config), values.size)
    e, s = np.divmod(np.arange(values.size), traces.n_sites)
    lines = ["site,epoch,count"]
    for cell, (i, j, v) in enumerate(zip(e, s, values, strict=True)):
        count = "" if cell == blank_cell else f"{v:.3f}"
        lines.append(f"{traces.site_labels[j]},{traces.epoch_labels[i]},{count}")
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, clipped[target].indices, None if blank_cell is None else blank_cell + 2


def test_the_audit_stops_when_an_attack_needs_an_empty_count(tmp_path):
    _, cells, _ = released(tmp_path, None, "probe.csv")
    path, _, row = released(tmp_path, int(cells[0]), "gap.csv")
    with pytest.raises(InputError) as info:
        L.run(L.LocationConfig(**BASE, release=str(path)))
    line = info.value.one_line()
    assert str(path) in line and f"row {row}, column 'count' is empty" in line
    assert "the attack needs that count" in line and "not 0" in line


def test_an_empty_count_the_attacks_do_not_read_is_listed_per_column(tmp_path):
    whole, cells, _ = released(tmp_path, None, "whole.csv")
    unread = int(np.setdiff1d(np.arange(cells.max() + 2), cells)[0])
    path, _, row = released(tmp_path, unread, "gap.csv")
    results = {}
    for name, p in (("whole", whole), ("gap", path)):
        results[name] = L.run(L.LocationConfig(**BASE, release=str(p))).to_dict()
    # The attacks read the same counts, so they conclude the same.
    assert results["gap"]["theory"]["published_release"]["attacks"] == \
        results["whole"]["theory"]["published_release"]["attacks"]
    entry = results["gap"]["inputs"][-1]
    assert entry["missing_values"]["per_column"] == [
        {"column": "count", "empty_cells": 1, "action": "drop_rows"}]
    assert f"first in row {row}" in entry["missing_values"]["sentence"]
    assert "missing_values" not in results["whole"]["inputs"][-1]
    # The report's gaps table lists the release's column, as for microdata and traces.
    texts = []
    for f in inputs_table(results["gap"]):
        if isinstance(f, Table):
            texts.append([[c.getPlainText() if isinstance(c, Paragraph) else str(c)
                           for c in r] for r in f._cellvalues])
        elif isinstance(f, Paragraph):
            texts.append(f.getPlainText())
    assert ["count", "1", "records left out"] in [r for t in texts if isinstance(t, list)
                                                  for r in t]
    assert any(isinstance(t, str) and t.startswith("Empty cells in gap.csv") for t in texts)
    # With the other choice the file is refused.
    with pytest.raises(InputError, match=f"row {row}, column 'count' is empty"):
        L.run(L.LocationConfig(**BASE, release=str(path), release_missing="error"))


def test_the_choice_is_a_checked_config_key():
    assert L.LocationConfig.from_dict({"release_missing": "error"}).release_missing == "error"
    with pytest.raises(InputError) as info:
        L.LocationConfig.from_dict({"release_missing": "zero"})
    assert info.value.key == "release_missing"


# --------------------------------------------------------------------------- count tables

def test_a_published_tables_empty_counts_are_left_out_or_refused(tmp_path):
    """A published count table: an empty count was "an empty cell is not a number", one row
    at a time. A count left empty was not published: its row is left out (the attacker has
    that statistic fewer, never a 0) and counted, or with the other choice the file is
    refused naming the first such row."""
    from engine.aggregates.queries import Domain, load_published_rows, published_gaps

    domain = Domain(("sex", "race"), (("Male", "Female"), ("White", "Black")))
    p = write(tmp_path, "sex,race,count\nMale,White,4\nFemale,White,\nMale,Black,NA\n"
                        "Female,Black,2\n,,8\n", "published.csv")
    rows = load_published_rows(p, domain)
    assert rows.counts.tolist() == [4, 2, 8] and rows.lines == (2, 5, 6)
    entry = rows.missing_values
    assert entry["per_column"] == [{"column": "count", "empty_cells": 2, "action": "drop_rows"}]
    assert entry["records_left_out"] == 2 and "first in row 3" in entry["sentence"]
    assert "never read as 0" in entry["sentence"]
    assert published_gaps(p) == entry
    for load in (lambda: load_published_rows(p, domain, "error"),
                 lambda: published_gaps(p, "error")):
        with pytest.raises(InputError) as info:
            load()
        line = info.value.one_line()
        assert str(p) in line and "row 3, column 'count' is empty" in line
        assert "'count' 2 (first in row 3)" in line and "not 0" in line


def test_the_count_table_audit_lists_a_published_tables_empty_counts(tmp_path):
    from engine.audits.aggregates import AggregatesConfig, run
    from tests.engine.test_aggregates_audit import PUBLISHED, SAMPLE_AUXILIARY, demo_config

    lines = PUBLISHED.read_text().splitlines()
    head, _count = lines[3].rsplit(",", 1)
    lines[3] = f"{head},"                            # row 4's count left empty
    table = tmp_path / "published.csv"
    table.write_text("\n".join(lines) + "\n")
    base = dict(data=str(SAMPLE_AUXILIARY), schema=demo_config().schema, release="published",
                published_records=450, max_targets=5, n_shadow=200, membership=False,
                attacks=("data_only",))
    r = run(AggregatesConfig(**base, release_options={"path": str(table)})).to_dict()
    entry = next(i for i in r["inputs"] if i["role"] == "published_table")
    assert entry["missing_values"]["per_column"] == [
        {"column": "count", "empty_cells": 1, "action": "drop_rows"}]
    assert r["theory"]["release"]["queries"] == 459 and r["theory"]["published"]["rows"] == 459
    with pytest.raises(InputError, match="row 4, column 'count' is empty"):
        run(AggregatesConfig(**base, release_options={"path": str(table), "missing": "error"}))
