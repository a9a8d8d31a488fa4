"""Location traces: the sparse data type, per-epoch clipping (paper 000 §2.2.2), and the loaders'
one-sentence errors for every malformed file in tests/data/bad_inputs/traces/."""

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from engine.data.errors import InputError
from engine.data.traces import (
    Traces,
    clip_per_epoch,
    find_user,
    load_release_csv,
    load_traces_csv,
    validate_audit_sizes,
)
from engine.runtime import rng
from tests.engine.test_input_corpus import in_folder

BAD = Path(__file__).resolve().parents[1] / "data" / "bad_inputs" / "traces"


def small_traces() -> Traces:
    # 3 users, 2 sites, 3 epochs; column = epoch * 2 + site
    rows = [0, 0, 1, 2, 2, 2]
    cols = [0, 3, 5, 0, 1, 4]
    m = sp.csr_matrix((np.ones(6, np.uint8), (rows, cols)), shape=(3, 6))
    return Traces(("a", "b", "c"), ("s1", "s2"), ("0", "1", "2"), m, source="small.csv")


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


# --------------------------------------------------------------------------- Traces

def test_traces_sizes_and_accessors():
    t = small_traces()
    assert (t.n_users, t.n_sites, t.n_epochs, t.n_cells) == (3, 2, 3, 6)
    assert t.observations_per_user().tolist() == [2, 1, 3]
    assert t.cell_index(1, 2) == 5
    assert t.cell_index("s2", "1") == 3
    assert t.dense_user(2).tolist() == [[1, 1], [0, 0], [1, 0]]
    assert t.dense_user(0).shape == (3, 2)
    assert t.aggregate().tolist() == [[2, 1], [0, 1], [1, 1]]
    assert t.aggregate([0, 1]).tolist() == [[1, 0], [0, 1], [0, 1]]
    with pytest.raises(KeyError):
        t.cell_index("nowhere", 0)
    with pytest.raises(IndexError):
        t.cell_index(2, 0)


def test_subset_keeps_order_and_labels():
    t = small_traces()
    s = t.subset([2, 0])
    assert s.user_ids == ("c", "a")
    assert s.observations_per_user().tolist() == [3, 2]
    assert (s.dense_user(0) == t.dense_user(2)).all()
    m = t.subset(np.array([False, True, True]))
    assert m.user_ids == ("b", "c") and m.site_labels == t.site_labels


def test_traces_is_canonical_binary_and_refuses_dense_or_misshapen():
    m = sp.csr_matrix((np.array([3, 0], np.int64), ([0, 0], [1, 0])), shape=(1, 4))
    t = Traces(("a",), ("x", "y"), ("0", "1"), m)
    assert t.matrix.dtype == np.uint8 and t.matrix.data.tolist() == [1]
    assert t.observations_per_user().tolist() == [1]
    with pytest.raises(TypeError):
        Traces(("a",), ("x", "y"), ("0", "1"), np.zeros((1, 4)))
    with pytest.raises(ValueError, match="expected"):
        Traces(("a",), ("x", "y", "z"), ("0", "1"), m)


# --------------------------------------------------------------------------- clipping

def random_traces_matrix(seed, n_users=400, n_sites=6, n_epochs=30, density=0.2):
    g = np.random.default_rng(seed)
    dense = g.random((n_users, n_epochs * n_sites)) < density
    return sp.csr_matrix(dense.astype(np.uint8)), n_sites, n_epochs


def per_epoch_counts(m, n_sites):
    """(U, E) ones per user and epoch, via a sparse sum over each epoch's block of columns."""
    n_epochs = m.shape[1] // n_sites
    block = sp.kron(sp.identity(n_epochs, format="csr"), np.ones((n_sites, 1)), format="csr")
    return np.asarray((m.astype(np.int64) @ block).todense())


@pytest.mark.parametrize("C", [1, 2, 3])
def test_clip_keeps_at_most_C_per_epoch_and_only_original_ones(C):
    m, n_sites, _ = random_traces_matrix(1)
    out = clip_per_epoch(m, C, rng(5, "clip"), n_sites=n_sites)
    before = per_epoch_counts(m, n_sites)
    after = per_epoch_counts(out, n_sites)
    assert (after == np.minimum(before, C)).all()
    assert (out.multiply(m) != out).nnz == 0  # never creates a one
    assert out.dtype == np.uint8 and set(out.data.tolist()) <= {1}
    assert (before > C).any()  # the case was exercised


def test_clip_leaves_users_within_C_untouched():
    m, n_sites, _ = random_traces_matrix(2, density=0.15)
    counts = per_epoch_counts(m, n_sites)
    within = np.flatnonzero(counts.max(axis=1) <= 2)
    over = np.flatnonzero(counts.max(axis=1) > 2)
    assert within.size > 0 and over.size > 0
    out = clip_per_epoch(m, 2, rng(0, "clip"), n_sites=n_sites)
    assert (out[within] != m[within]).nnz == 0
    assert (out[over] != m[over]).nnz > 0


def test_clip_is_deterministic_per_seed_and_random_across_seeds():
    m, n_sites, _ = random_traces_matrix(3)
    a = clip_per_epoch(m, 1, rng(7, "clip"), n_sites=n_sites)
    b = clip_per_epoch(m, 1, rng(7, "clip"), n_sites=n_sites)
    c = clip_per_epoch(m, 1, rng(8, "clip"), n_sites=n_sites)
    assert (a != b).nnz == 0
    assert (a != c).nnz > 0


def test_clip_keeps_a_uniform_random_subset():
    # 4,000 copies of one user seen at all 4 sites in the single epoch; C = 1 keeps each site
    # with probability 1/4 (3 sd of a Binomial(4000, 1/4) share is 0.021).
    m = sp.csr_matrix(np.ones((4000, 4), np.uint8))
    out = clip_per_epoch(m, 1, rng(11, "clip"), n_sites=4)
    share = np.asarray(out.sum(axis=0)).ravel() / 4000
    assert np.allclose(share, 0.25, atol=0.025), share
    # C = 3: each site kept with probability 3/4.
    out3 = clip_per_epoch(m, 3, rng(12, "clip"), n_sites=4)
    assert np.allclose(np.asarray(out3.sum(axis=0)).ravel() / 4000, 0.75, atol=0.025)


def test_clip_accepts_traces_and_checks_its_arguments():
    t = small_traces()
    out = clip_per_epoch(t, 1, rng(0, "clip"))
    assert per_epoch_counts(out, 2).max() == 1
    assert out.shape == t.matrix.shape
    with pytest.raises(ValueError, match="n_sites"):
        clip_per_epoch(t.matrix, 1, rng(0))
    with pytest.raises(InputError, match="places kept per person and hour") as info:
        clip_per_epoch(t, 0, rng(0))
    assert info.value.setting == "clip_per_epoch"


# --------------------------------------------------------------------------- loading traces

def test_load_ids_orders_users_by_appearance_sites_naturally(tmp_path):
    p = write(tmp_path, "t.csv", "person, place ,hour\nzed,10,3\nann,2,0\nzed,2,0\n\nbob,10,1\n")
    t = load_traces_csv(p, user_col="person", site_col="place", epoch_col="hour")
    assert t.user_ids == ("zed", "ann", "bob")
    assert t.site_labels == ("2", "10")
    assert t.epoch_labels == ("0", "1", "2", "3")
    assert t.source == "t.csv"
    assert t.dense_user(0).tolist() == [[1, 0], [0, 0], [0, 0], [0, 1]]
    assert t.observations_per_user().tolist() == [2, 1, 1]


def test_count_column_zero_means_absent_but_user_is_kept(tmp_path):
    p = write(tmp_path, "c.csv", "user_id,site,epoch,n\na,x,0,3\nb,x,1,0\na,y,1,1\n")
    t = load_traces_csv(p, count_col="n")
    assert t.user_ids == ("a", "b")
    assert t.observations_per_user().tolist() == [2, 0]


def test_timestamps_binned_to_hours(tmp_path):
    p = write(tmp_path, "h.csv", "user_id,site,time\n"
              "a,x,2024-03-01T10:15:00\n"
              "a,x,2024-03-01T10:59:59\n"        # same hour and site: one presence
              "b,y,2024-03-01 13:00\n"
              "b,x,2024-03-01T12:30:00+01:00\n")  # = 11:30 UTC
    t = load_traces_csv(p, epoch_col="time", epoch_unit="hour")
    assert t.epoch_labels == ("2024-03-01T10:00", "2024-03-01T11:00", "2024-03-01T12:00",
                              "2024-03-01T13:00")
    assert t.observations_per_user().tolist() == [1, 2]
    assert t.dense_user(1)[:, 1].tolist() == [0, 0, 0, 1]  # y at 13:00
    assert t.dense_user(1)[:, 0].tolist() == [0, 1, 0, 0]  # x at 11:00 UTC


def test_timestamps_binned_to_days_with_empty_days_kept(tmp_path):
    p = write(tmp_path, "d.csv", "user_id,site,time\n"
              "a,x,2024-02-28T23:59\na,x,2024-03-01T00:01\nb,y,2024-02-29\n")
    t = load_traces_csv(p, epoch_col="time", epoch_unit="day")
    assert t.epoch_labels == ("2024-02-28", "2024-02-29", "2024-03-01")
    assert t.dense_user(0)[:, 0].tolist() == [1, 0, 1]
    assert t.dense_user(1)[:, 1].tolist() == [0, 1, 0]


def test_lat_lon_binned_to_grid_over_bounding_box(tmp_path):
    p = write(tmp_path, "g.csv", "user_id,lat,lon,epoch\n"
              "a,45.0,9.0,0\n"      # south-west corner -> last row, first column
              "a,46.0,10.0,1\n"     # north-east corner -> row 0, last column
              "b,45.9,9.1,0\n"      # north-west
              "b,45.5,9.5,1\n")     # centre -> row 1 (of 2), column 1 (of 3)
    t = load_traces_csv(p, lat_col="lat", lon_col="lon", grid=(2, 3))
    assert t.site_labels == ("r0c0", "r0c1", "r0c2", "r1c0", "r1c1", "r1c2")
    assert t.dense_user(0)[0].tolist() == [0, 0, 0, 1, 0, 0]
    assert t.dense_user(0)[1].tolist() == [0, 0, 1, 0, 0, 0]
    assert t.dense_user(1)[0].tolist() == [1, 0, 0, 0, 0, 0]
    assert t.dense_user(1)[1].tolist() == [0, 0, 0, 0, 1, 0]


def test_lat_lon_default_grid_is_papers_12_by_8(tmp_path):
    p = write(tmp_path, "g.csv", "user_id,lat,lon,epoch\na,45.0,9.0,0\nb,45.3,9.3,0\n")
    t = load_traces_csv(p, lat_col="lat", lon_col="lon")
    assert t.n_sites == 96


def test_blank_lines_keep_spreadsheet_row_numbers(tmp_path):
    p = write(tmp_path, "blank.csv", "user_id,site,epoch\na,x,0\n\nb,y,-1\n")
    with pytest.raises(InputError, match="row 4, column 'epoch'"):
        load_traces_csv(p)


def test_max_rows_refuses_larger_files_instead_of_cutting(tmp_path):
    p = write(tmp_path, "m.csv", "user_id,site,epoch\na,x,0\nb,x,1\nc,x,2\n")
    assert load_traces_csv(p, max_rows=3).n_users == 3
    with pytest.raises(InputError, match="more than 2 data rows"):
        load_traces_csv(p, max_rows=2)


def test_parameter_mistakes_are_sentences(tmp_path):
    p = write(tmp_path, "ok.csv", "user_id,site,epoch\na,x,0\n")
    with pytest.raises(InputError, match="time unit must be one of hour, day"):
        load_traces_csv(p, epoch_unit="week")
    with pytest.raises(InputError, match="both the latitude column and the longitude column"):
        load_traces_csv(p, lat_col="lat")
    with pytest.raises(InputError, match="grid of places only applies"):
        load_traces_csv(p, grid=(2, 2))
    with pytest.raises(InputError, match="grid of places must be two whole numbers"):
        load_traces_csv(p, lat_col="a", lon_col="b", grid=(0, 3))
    with pytest.raises(InputError, match="file not found"):
        load_traces_csv(tmp_path / "nope.csv")


TRACES_CASES = [
    ("unknown_column.csv", {}, ["column 'user_id'", "missing", "columns found: 'user', 'site', "
                                "'epoch'", "did you mean 'user'", "the user column"]),
    ("empty.csv", {}, ["is empty", "header row"]),
    ("header_only.csv", {}, ["no data rows", "add one row per observation"]),
    ("negative_epoch.csv", {}, ["row 4", "column 'epoch'", "'-3'", "negative",
                                "number epochs 0, 1, 2"]),
    ("non_integer_epoch.csv", {}, ["row 3", "column 'epoch'", "'2.5'", "not a whole number"]),
    ("non_numeric_epoch.csv", {}, ["row 4", "a 6-character text of letters", "not a number", "epoch_unit"]),
    ("unix_time_epoch.csv", {}, ["row 4", "a 10-character number", "the time unit"]),
    ("duplicated_rows.csv", {}, ["rows 3 and 5", "same user, site and epoch",
                                 "remove the duplicates", "count column"]),
    ("duplicated_counted.csv", {"count_col": "count"}, ["rows 3 and 4", "one row per user, "
                                                        "site and epoch with the total count"]),
    ("bad_timestamp.csv", {"epoch_col": "time", "epoch_unit": "hour"},
     ["row 4", "column 'time'", "a 16-character text of letters, digits and other characters", "not a timestamp", "2024-03-01T14:00"]),
    ("negative_count.csv", {"count_col": "count"}, ["row 3", "column 'count'", "'-2'",
                                                    "negative"]),
    ("non_integer_count.csv", {"count_col": "count"}, ["row 4", "column 'count'", "'1.5'",
                                                       "not a whole number"]),
    ("lat_out_of_range.csv", {"lat_col": "lat", "lon_col": "lon"},
     ["row 4", "column 'lat'", "a 4-character number", "between -90 and 90", "swapped"]),
    ("lon_out_of_range.csv", {"lat_col": "lat", "lon_col": "lon"},
     ["row 3", "column 'lon'", "200", "between -180 and 180"]),
    ("ragged_row.csv", {}, ["row 4 has 4 fields", "header has 3", "quote values"]),
    ("extra_fields.csv", {}, ["more fields than the header", "remove the extra commas"]),
    ("not_utf8.csv", {}, ["not a UTF-8 text file", "save it as UTF-8"]),
]


@pytest.mark.parametrize("filename, kwargs, phrases", TRACES_CASES,
                         ids=[c[0] for c in TRACES_CASES])
def test_bad_traces_file_is_one_sentence(filename, kwargs, phrases):
    with pytest.raises(InputError) as info:
        load_traces_csv(BAD / filename, **kwargs)
    assert_sentence(info.value, filename, phrases)


def assert_sentence(err, filename, phrases):
    line = err.one_line()
    assert "\n" not in str(err)
    assert filename in line, line
    for phrase in phrases:
        assert phrase in line, (phrase, line)
    assert line.rstrip().endswith("."), line
    assert "Traceback" not in line


def test_rows_without_user_place_or_time_are_left_out_and_said(tmp_path):
    """Issue 21: a row with an empty user, site or epoch cannot be placed; it is left out with
    a count that reaches result.json's read_as (and the warnings), not refused one per round."""
    from engine.data.text_input import read_notes

    data = load_traces_csv(BAD / "empty_user.csv")
    assert data.user_ids == ("a",) and data.matrix.nnz == 1
    assert read_notes(BAD / "empty_user.csv") == [
        "1 row with an empty cell ('user_id' 1; first in row 3) was left out, since an "
        "observation without its user, place and time cannot be placed"]
    p = tmp_path / "gaps.csv"
    p.write_text("user_id,site,epoch\na,s1,0\n,s2,1\nb,,1\nb,s2,\nc,s1,2\n", encoding="utf-8")
    data = load_traces_csv(p)
    assert data.user_ids == ("a", "c")
    assert read_notes(p)[0].startswith("3 rows with an empty cell ('user_id' 1, 'site' 1, "
                                       "'epoch' 1; first in row 3) were left out")
    p.write_text("user_id,site,epoch\n,s1,0\nb,,1\n", encoding="utf-8")
    with pytest.raises(InputError) as err:     # every column with gaps at once (issue 21)
        load_traces_csv(p)
    assert str(err.value) == (
        f"{p}: every row has an empty cell in a column the audit needs ('user_id' 1 (first in "
        f"row 2), 'site' 1 (first in row 3)); fill them in — a row without a user, place and "
        f"time cannot be placed.")


def test_every_bad_traces_file_is_covered():
    covered = {c[0] for c in TRACES_CASES} | {c[0] for c in RELEASE_CASES} | {"empty_user.csv"}
    formats = in_folder("traces")                # tests/engine/test_input_corpus.py
    assert {p.name for p in BAD.glob("*.csv")} - formats == covered


# --------------------------------------------------------------------------- loading releases

def test_site_labels_with_superscript_digits_sort_naturally(tmp_path):
    """'5²' holds a digit int() cannot read: the natural sort raised ValueError (issue 18)."""
    p = write(tmp_path, "t.csv", "user_id,site,epoch\nu1,10²,0\nu1,5²,1\nu2,5²,1\n")
    assert load_traces_csv(p).site_labels == ("5²", "10²")


def test_a_release_epoch_too_large_for_an_integer_is_one_sentence(tmp_path):
    """A 23-digit epoch overflowed the 64-bit conversion (OverflowError, an internal error)."""
    p = write(tmp_path, "r.csv", "site,epoch,count\ns1,0,3\ns2,0,5\n"
                                 "s1,99999999999999999999999,1\ns2,1,0\n")
    with pytest.raises(InputError, match=r"row 4, column 'epoch': a 23-character number would "
                                         r"make over 1,000,000 epochs"):
        load_release_csv(p)


def test_load_release_orders_cells_and_fills_integer_epochs(tmp_path):
    p = write(tmp_path, "r.csv", "site,epoch,count\nb,1,4\na,0,1\nb,0,2\na,1,3\n")
    values, sites, epochs = load_release_csv(p)
    assert sites == ("a", "b") and epochs == ("0", "1")
    assert values.dtype == float and values.tolist() == [[1, 2], [3, 4]]


def test_release_with_expected_labels_and_fill_missing(tmp_path):
    p = write(tmp_path, "r.csv", "where,when,n\ny,1,5\nx,0,2\n")
    values, sites, epochs = load_release_csv(p, site_col="where", epoch_col="when",
                                             count_col="n", sites=["y", "x", "z"],
                                             epochs=["0", "1"], fill_missing=True)
    assert sites == ("y", "x", "z") and epochs == ("0", "1")
    assert values.tolist() == [[0, 2, 0], [5, 0, 0]]
    with pytest.raises(InputError, match="4 of 6 site × epoch cells are missing"):
        load_release_csv(p, site_col="where", epoch_col="when", count_col="n",
                         sites=["y", "x", "z"], epochs=["0", "1"])


def test_release_noisy_values_need_the_flags(tmp_path):
    p = write(tmp_path, "noisy.csv", "site,epoch,count\na,2024-03-01T10:00,-1.5\n"
              "a,2024-03-01T09:00,2.25\n")
    with pytest.raises(InputError, match="row 2, column 'count': a 4-character number is not a whole"):
        load_release_csv(p)
    with pytest.raises(InputError, match="row 2, column 'count': a 4-character number is negative"):
        load_release_csv(p, integer_counts=False)
    values, _, epochs = load_release_csv(p, integer_counts=False, allow_negative=True)
    assert epochs == ("2024-03-01T09:00", "2024-03-01T10:00")  # ISO labels sort by time
    assert values[:, 0].tolist() == [2.25, -1.5]


RELEASE_CASES = [
    ("release_non_integer.csv", {}, ["row 3", "column 'count'", "a 4-character number", "not a whole number",
                                     "integer_counts"]),
    ("release_negative.csv", {}, ["row 4", "column 'count'", "'-2'", "negative",
                                  "allow_negative"]),
    ("release_not_number.csv", {"missing": "error"},
     ["row 3", "column 'count' holds 'n/a', a mark for a missing value", "not 0"]),
    ("release_missing_cell.csv", {}, ["1 of 4", "missing", "site “s2” at epoch “1”",
                                      "read absent cells as 0"]),
    ("release_duplicated_cell.csv", {}, ["rows 2 and 4", "give the same site and epoch",
                                         "one row per cell"]),
    ("release_unknown_site.csv", {"sites": ["s1", "s2"]}, ["row 4", "column 'site'", "'s9'",
                                                           "expected sites (s1, s2)"]),
    ("release_no_count_column.csv", {}, ["column 'count'", "columns found: 'site', 'epoch'",
                                         "count_col"]),
]


@pytest.mark.parametrize("filename, kwargs, phrases", RELEASE_CASES,
                         ids=[c[0] for c in RELEASE_CASES])
def test_bad_release_file_is_one_sentence(filename, kwargs, phrases):
    with pytest.raises(InputError) as info:
        load_release_csv(BAD / filename, **kwargs)
    assert_sentence(info.value, filename, phrases)


# --------------------------------------------------------------------------- audit parameters

def test_validate_audit_sizes_accepts_sensible_values():
    validate_audit_sizes(15_800, 2_000, 1, 0.5)
    validate_audit_sizes(10, 10, 3, None)  # no noise: a plain aggregate


@pytest.mark.parametrize("args, key, phrase", [
    ((1500, 2000, 1, 0.5), "aggregate_size", "only 1,500 users"),
    ((1500, 0, 1, 0.5), "aggregate_size", "at least 1"),
    ((1500, 100, 0, 0.5), "clip_per_epoch", "at least 1"),
    ((1500, 100, 1.5, 0.5), "clip_per_epoch", "whole number"),
    ((1500, 100, 1, 0.0), "epsilon", "greater than 0"),
    ((1500, 100, 1, -2), "epsilon", "greater than 0"),
    ((1500, 100, 1, float("nan")), "epsilon", "greater than 0"),
    ((1500, 100, 1, "lots"), "epsilon", "must be a number"),
])
def test_validate_audit_sizes_names_the_key(args, key, phrase):
    with pytest.raises(InputError) as info:
        validate_audit_sizes(*args)
    # The sentence names the setting by its label; the key travels beside it for the
    # page's field and the command line's "In the config file" line (issue 32 item 7).
    assert info.value.key == key and info.value.setting == key
    assert key not in str(info.value) and phrase in str(info.value)
    assert f"`{key} =`" in info.value.config_line()


def test_find_user():
    t = small_traces()
    assert find_user(t, "c") == 2
    with pytest.raises(InputError) as info:
        find_user(t, "zoe")
    assert str(info.value) == ("the target id is not among the 3 user ids of "
                               "small.csv; ids are compared as text exactly as written (case, "
                               "spaces and leading zeros count) — copy it from the file.")
    assert "zoe" not in str(info.value) and "'a'" not in str(info.value)   # ids name people
    assert info.value.one_line() == str(info.value)
