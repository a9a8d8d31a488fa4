"""Bring your own predictions (issue 8): probabilities, logits or losses per record from a CSV,
the class names from the class columns, the reference-file check, matching rows to the data,
the writer's round trip, and the one-sentence errors for every file in
tests/data/bad_inputs/predictions/."""

from pathlib import Path

import numpy as np
import pytest

from engine.data.errors import InputError
from engine.data.prediction_checks import class_names_from_columns
from engine.data.predictions import (
    Predictions,
    cross_entropy,
    load_predictions_csv,
    match_predictions,
    predictions_from_arrays,
    softmax,
    write_predictions_csv,
)
from engine.runtime import rng
from tests.engine.test_input_corpus import in_folder

BAD = Path(__file__).resolve().parents[1] / "data" / "bad_inputs" / "predictions"


def outputs(n: int = 50, k: int = 4, seed: int = 0):
    g = rng(seed, "test", "predictions")
    logits = g.normal(0.0, 2.0, (n, k))
    labels = g.integers(0, k, n)
    member = np.arange(n) % 2 == 0
    return logits, labels, member


def test_probabilities_round_trip_with_ids(tmp_path):
    logits, labels, member = outputs()
    probs = softmax(logits)
    ids = [f"r{i:03d}" for i in range(50)]
    p = write_predictions_csv(tmp_path / "p.csv", labels=labels, member=member, probs=probs,
                              class_names=["cat", "cow", "dog", "eel"], ids=ids)
    header = p.read_text(encoding="utf-8").splitlines()[0]
    assert header == "id,label,member,p_cat,p_cow,p_dog,p_eel"
    pred = load_predictions_csv(p, id_col="id")
    assert isinstance(pred, Predictions)
    assert pred.class_names == ("cat", "cow", "dog", "eel")
    assert np.allclose(pred.probs, probs, atol=1e-9)
    assert np.allclose(pred.probs.sum(axis=1), 1.0)
    assert np.array_equal(pred.labels, labels) and np.array_equal(pred.member, member)
    assert list(pred.ids) == ids and pred.rows.tolist() == list(range(2, 52))
    assert np.allclose(pred.loss, -np.log(probs[np.arange(50), labels]), atol=1e-8)
    assert np.array_equal(pred.predicted, probs.argmax(axis=1))
    assert np.array_equal(pred.correct, probs.argmax(axis=1) == labels)
    assert pred.kind == "probabilities" and pred.source == "p.csv"


def test_logits_use_a_stable_softmax(tmp_path):
    logits, labels, member = outputs(k=3)
    logits[0] = [1000.0, -1000.0, 999.0]                  # would overflow a naive softmax
    p = write_predictions_csv(tmp_path / "z.csv", labels=labels, member=member, logits=logits)
    pred = load_predictions_csv(p, kind="logits")
    assert pred.class_names == ("0", "1", "2")
    assert np.isfinite(pred.probs).all() and np.allclose(pred.probs.sum(axis=1), 1.0)
    assert np.allclose(pred.probs, softmax(logits), atol=1e-9)
    assert pred.probs[0, 0] == pytest.approx(1 / (1 + np.exp(-1.0)))
    z = logits - logits.max(axis=1, keepdims=True)
    want = np.log(np.exp(z).sum(axis=1)) - z[np.arange(50), labels]
    assert np.allclose(pred.loss, want, atol=1e-8)
    assert pred.loss[0] == pytest.approx(want[0]) and np.isfinite(pred.loss).all()


def test_loss_only_files(tmp_path):
    _, labels, member = outputs()
    loss = rng(1, "test", "loss").exponential(1.0, 50)
    p = write_predictions_csv(tmp_path / "l.csv", labels=labels, member=member, loss=loss,
                              class_names=["a", "b", "c", "d"])
    pred = load_predictions_csv(p, kind="loss")
    assert pred.probs is None and pred.predicted is None and pred.correct is None
    assert np.allclose(pred.loss, loss) and pred.class_names == ("a", "b", "c", "d")
    again = pred.write_csv(tmp_path / "again.csv")
    assert np.allclose(load_predictions_csv(again, kind="loss").loss, loss)


def test_class_names_and_numeric_labels(tmp_path):
    assert class_names_from_columns(["p_0", "p_1", "p_10"]) == ("0", "1", "10")
    assert class_names_from_columns(["prob_cat", "prob_cow"]) == ("cat", "cow")
    assert class_names_from_columns(["cat", "cow"]) == ("cat", "cow")
    assert class_names_from_columns(["score", "scores"]) == ("score", "scores")
    p = tmp_path / "n.csv"
    p.write_text("label,member,note,p_0,p_1\n1.0,1,x,0.3,0.7\n0,0,y,0.9,0.1\n", encoding="utf-8")
    pred = load_predictions_csv(p, class_cols=["p_0", "p_1"])
    assert pred.labels.tolist() == [1, 0] and pred.class_names == ("0", "1")
    with pytest.raises(InputError, match="row 2, column 'note': 'x' is not a number"):
        load_predictions_csv(p)
    p.write_text("label,member,cat,dog\ndog,1,0.3,0.7\ncat,0,0.9,0.1\n", encoding="utf-8")
    assert load_predictions_csv(p).class_names == ("cat", "dog")


def test_probability_tolerance_and_renormalisation(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text("label,member,p_a,p_b\na,1,0.3004,0.7\nb,0,0.5,0.5\n", encoding="utf-8")
    pred = load_predictions_csv(p)
    assert np.allclose(pred.probs.sum(axis=1), 1.0, atol=1e-15)
    p.write_text("label,member,p_a,p_b\na,1,-1e-12,1.0000000001\nb,0,0.5,0.5\n",
                 encoding="utf-8")                      # export noise around 0 and 1
    pred = load_predictions_csv(p)
    assert pred.probs[0].tolist() == [0.0, 1.0]
    p.write_text("label,member,p_a,p_b\na,1,0.3,0.7\nb,0,0.502,0.5\n", encoding="utf-8")
    with pytest.raises(InputError, match="row 3: the probabilities sum to 1.002, not 1"):
        load_predictions_csv(p)


def test_reference_file_must_have_the_same_columns(tmp_path):
    _, labels, member = outputs(k=2)
    probs = softmax(outputs(k=2)[0])
    base = write_predictions_csv(tmp_path / "target.csv", labels=labels, member=member,
                                 probs=probs, class_names=["cat", "dog"])
    target = load_predictions_csv(base)
    ref = write_predictions_csv(tmp_path / "shadow.csv", labels=labels[::-1],
                                member=member[::-1], probs=probs[::-1],
                                class_names=["cat", "dog"])
    assert load_predictions_csv(ref, like=target).n_records == 50
    with pytest.raises(InputError) as exc:
        load_predictions_csv(BAD / "reference_columns_differ.csv", like=target)
    text = str(exc.value)
    for phrase in ("reference_columns_differ.csv", "columns differ from target.csv's",
                   "missing: 'p_dog'", "extra: 'p_dgo'", "same columns"):
        assert phrase in text, text


def test_match_predictions_to_the_data(tmp_path):
    pred = load_predictions_csv(BAD / "ids_missing.csv", id_col="id")
    ordered = match_predictions(pred, ids=["r9", "r4", "r2", "r1"])
    assert list(ordered.ids) == ["r9", "r4", "r2", "r1"]
    assert ordered.rows.tolist() == [5, 4, 3, 2]
    with pytest.raises(InputError) as exc:
        match_predictions(pred, ids=["r1", "r2", "r3", "r4", "r9"], data_source="people.csv")
    for phrase in ("ids_missing.csv", "1 record of people.csv has no prediction (the first is its record number 3)",
                   "add its row to the predictions file"):
        assert phrase in str(exc.value), str(exc.value)
    with pytest.raises(InputError, match="2 records of the data have no prediction \\(the "
                                         "first is its record number 5\\)"):
        match_predictions(pred, ids=["r1", "r2", "r4", "r9", "r5", "r6"])
    with pytest.raises(InputError, match="1 prediction row has an id not in the data \\(row "
                                         "5\\)"):
        match_predictions(pred, ids=["r1", "r2", "r4"])
    with pytest.raises(InputError, match="has 4 prediction rows but the data has 5 records; "
                                         ".*add an id column"):
        match_predictions(pred, n_records=5)
    with pytest.raises(InputError, match="row 4 has label 'cat' but the matching record of the "
                                         "data has 'dog'"):
        match_predictions(pred, labels=["cat", "dog", "dog", "dog"])
    assert match_predictions(pred, labels=["cat", "dog", "cat", "dog"]) is pred
    no_ids = load_predictions_csv(BAD / "ids_missing.csv", class_cols=["p_cat", "p_dog"])
    assert load_predictions_csv(BAD / "ids_missing.csv").ids.tolist() == ["r1", "r2", "r4", "r9"]
    with pytest.raises(InputError, match="has no id column"):
        match_predictions(no_ids, ids=["r1"])


def test_predictions_from_arrays():
    logits, labels, member = outputs()
    a = predictions_from_arrays(labels=labels, member=member, logits=logits)
    b = predictions_from_arrays(labels=labels, member=member, probs=softmax(logits))
    assert np.allclose(a.probs, b.probs) and np.allclose(a.loss, b.loss)
    assert np.allclose(b.loss, cross_entropy(b.probs, labels))
    assert a.class_names == ("0", "1", "2", "3") and a.kind == "logits"
    c = predictions_from_arrays(labels=labels, member=member, loss=b.loss)
    assert c.probs is None and c.n_classes == 4
    sub = b.subset(b.member)
    assert sub.n_records == 25 and sub.member.all()
    with pytest.raises(ValueError, match="exactly one of probs, logits, loss"):
        predictions_from_arrays(labels=labels, member=member)
    assert cross_entropy(np.array([[1.0, 0.0]]), np.array([1]))[0] == pytest.approx(708.4, 0.01)


BAD_CASES = [
    # file, keyword arguments, phrases that must appear in the one sentence
    ("empty.csv", {}, ["the file is empty"]),
    ("not_sum_to_one.csv", {}, ["row 3: the probabilities sum to 0.9, not 1",
                                "add a missing class column"]),
    ("percentages.csv", {}, ["row 2, column 'p_cat': '80' is not a probability",
                             "look like percentages", "divide them by 100"]),
    ("logits_as_probabilities.csv", {}, ["row 3, column 'p_cat': a 4-character number is not a probability",
                                         "look like logits", "choose kind 'logits'"]),
    ("nan.csv", {}, ["row 4, column 'p_cat': 'nan' is NaN", "recompute it"]),
    ("inf.csv", {"kind": "logits"},
     ["row 3, column 'logit_cat' holds 'inf', which is not a finite number", "recompute it"]),
    ("label_not_in_classes.csv", {}, ["row 3, column 'label': 'dgo' is not among the 2 classes",
                                      "('cat', 'dog')", "did you mean 'dog'",
                                      "'p_cat' for class 'cat'"]),
    ("label_column_missing.csv", {}, ["no label column 'label'", "did you mean 'lable'"]),
    ("member_not_binary.csv", {}, ["row 3, column 'member': 'yes' is not 0 or 1"]),
    ("duplicate_ids.csv", {"id_col": "id"}, ["rows 2 and 4 have the same id in column 'id'"]),
    ("negative_loss.csv", {"kind": "loss"}, ["row 3, column 'loss': a 5-character number is negative",
                                             "negate them"]),
    ("one_class_column.csv", {}, ["one column per class (at least two)", "only 'p_dog'"]),
    ("empty_cell.csv", {"missing": "error"}, ["1 empty cell in 1 column — 'p_dog' 1 (first in "
                                              "row 3)", "fill them in"]),
    ("reference_columns_differ.csv", {"kind": "logit"}, ["kind “logit” is not one of",
                                                         "did you mean 'logits'"]),
    ("ids_missing.csv", {"id_col": "idd"}, ["no id column 'idd'", "did you mean 'id'"]),
]


@pytest.mark.parametrize("name, kwargs, phrases", BAD_CASES,
                         ids=[f"{c[0]}-{'-'.join(c[1]) or 'default'}" for c in BAD_CASES])
def test_bad_inputs_give_one_sentence(name, kwargs, phrases):
    with pytest.raises(InputError) as exc:
        load_predictions_csv(BAD / name, **kwargs)
    message = str(exc.value)
    for phrase in phrases:
        assert phrase in message, message
    assert name in exc.value.one_line() and "\n" not in exc.value.one_line()


def test_records_with_empty_cells_are_left_out_and_counted_per_column(tmp_path):
    """Issue 21: every column with gaps at once, with counts; by default the records are left
    out (a score cannot be filled in) and result.json's input entry says so."""
    path = tmp_path / "outputs.csv"
    path.write_text("label,member,p_cat,p_dog\ncat,1,0.8,0.2\n,0,0.4,0.6\ncat,,0.3,0.7\n"
                    "dog,0,NA,\ncat,1,0.9,0.1\ndog,0,0.2,0.8\n")
    pred = load_predictions_csv(path)
    assert pred.rows.tolist() == [2, 6, 7] and pred.labels.tolist() == [0, 0, 1]
    gaps = pred.missing_values
    assert (gaps["empty_cells"], gaps["columns"], gaps["records_read"],
            gaps["records_left_out"]) == (4, 4, 6, 3)
    assert gaps["per_column"] == [{"column": c, "empty_cells": 1, "action": "drop_rows"}
                                  | ({"marks": {"NA": 1}} if c == "p_cat" else {})
                                  for c in ("label", "member", "p_cat", "p_dog")]
    assert gaps["sentence"].startswith(
        "3 records of outputs.csv with an empty cell ('label' 1, 'member' 1, 'p_cat' 1, "
        "'p_dog' 1) were left out")
    assert pred.subset([0]).missing_values == gaps
    assert load_predictions_csv(BAD / "semicolon.csv").missing_values is None
    with pytest.raises(InputError) as err:
        load_predictions_csv(path, missing="error")
    assert str(err.value) == (
        f"{path}: 4 empty cells in 4 columns — 'label' 1 (first in row 3), 'member' 1 (first "
        f"in row 4), 'p_cat' 1 (first in row 5), 'p_dog' 1 (first in row 5); every record "
        f"needs its label, members flag and the model's output — fill them in, delete those "
        f"rows, or let the app leave those records out; counted as empty: 1 written 'NA' in "
        f"'p_cat' (marks of a missing value, see \"Gaps\" in the config reference).")
    path.write_text("label,member,p_cat,p_dog\ncat,1,,0.2\ndog,0,0.4,\n")
    with pytest.raises(InputError, match="every one of its 2 records has an empty cell"):
        load_predictions_csv(path)


def test_every_bad_file_is_tested():
    formats = in_folder("predictions")           # tests/engine/test_input_corpus.py
    assert {p.name for p in BAD.glob("*.csv")} - formats <= {c[0] for c in BAD_CASES}


def test_the_input_entry_says_which_records_were_left_out(tmp_path):
    from engine.audits.predictions_intake import predictions_entry

    path = tmp_path / "outputs.csv"
    path.write_text("label,member,p_cat,p_dog\ncat,1,0.8,0.2\ndog,0,,0.6\ncat,0,0.3,0.7\n"
                    "dog,1,0.1,0.9\n")
    pred = load_predictions_csv(path)
    entry = predictions_entry(pred, path, role="predictions")
    assert entry["rows"] == 3 and entry["role"] == "predictions"
    assert entry["missing_values"]["per_column"] == [
        {"column": "p_cat", "empty_cells": 1, "action": "drop_rows"}]
    full = tmp_path / "full.csv"
    full.write_text("label,member,p_cat,p_dog\ncat,1,0.8,0.2\ndog,0,0.4,0.6\n")
    assert "missing_values" not in predictions_entry(load_predictions_csv(full), full,
                                                     role="predictions")
