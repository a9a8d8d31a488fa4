"""The results of a machine-learning model audit (papers 001 and 004 §4): the shared results
view (verdict, ROC, metrics, warnings, notes) for the membership-inference attacks, plus what
only this audit has — the line of paper 001 Thm 2 on the ROC (the best any attack knowing only
the train and test accuracies can do), the model and its generalization gap overall and per
class, and the members the strongest attack is surest about (row numbers only, labels when the
user asked for them).

The view only displays the result; it never computes, so a project reopened later shows
exactly what was audited. It reads the result typed (engine.results.loaded, the model's parts
from engine.results.model; issue 33 item 1): a key renamed in the loader is an attribute error
in the tests, not a silently empty label.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from engine.data.tabular import model_features_text
from engine.games.model_summary import attribute_sentence
from engine.headline import headline_of_result
from engine.plots import series
from engine.results.blocks import BttaBound, GeneralizationGap
from engine.results.loaded import LoadedResult, load_result
from engine.results.model import ModelInfo, ModelTheory, RealPeople, load_theory
from engine.wording import OBVIOUS_GUESS, REAL_PEOPLE_TERMS, SCALED_SCORE, plain_name
from gui.formatting import interval, is_number, number, pct
from gui.widgets.defences_results import DefencesView
from gui.widgets.metrics_table import MetricsTable
from gui.widgets.plot_view import PlotView
from gui.widgets.results_view import ResultsView, escape, rich_label
from gui.widgets.roc_plot import RocPlot
from gui.widgets.tables import fill_table, make_table, shorten_unmeasurable

BOUND_LABEL = series.BOUND_LABEL      # drawn by RocPlot from engine.plots.series
ROC_HINT = ("Each curve is one attack telling the model's training records (members) from "
            "other records of the same kind. The red dashed line is the best any attack can do "
            "knowing only the model's train and test accuracy (paper 001 Thm 2): a curve well "
            "above it means the model leaks more than its accuracy gap. The dotted diagonal is "
            "random guessing; the shaded band is the strongest attack's 95 % confidence band. "
            "Log-log axes show the confident accusations; untick them for the whole curve.")
FAMILY_WORDS = {"mlp": "Neural network (MLP)", "logistic": "Logistic regression",
                "random_forest": "Random forest", "gradient_boosting": "Gradient boosting",
                "predictions": "Predictions from a model built elsewhere"}
THREAT_WORDS = {
    "shadow": "Shadow threat model: the attacker has other records from the same population "
              "(never trained on) and trains look-alike models on them; the copies-of-your-model "
              "and comparison-with-other-records attacks also know the candidate records and "
              "the training recipe.",
    "supervised": "Supervised threat model (paper 004 §4.3): the attacker knows half of the "
                  "members and non-members and is measured on the other half.",
}
LARGEST_GAPS = 5
#: The score's column says which way it reads: a bare "Score 7.591" meant nothing to an officer.
SCORE_HEADERS = ["Rank", "Row", "Attack's score (higher = surer it was trained on)"]
MAX_EXPOSED_ROWS = 500


def _typed(result) -> tuple[LoadedResult, ModelTheory]:
    """``result`` (a dict or a LoadedResult) loaded once, with its model theory block typed
    even when the result does not say it is a model audit."""
    r = load_result(result or {})
    theory = r.theory
    if not isinstance(theory, ModelTheory):
        theory = load_theory(r.raw["theory"] if "theory" in r.raw else {}, r.raw)
    return r, theory


def _plain(result) -> dict:
    """The result as a plain dict for engine.headline.headline_of_result (which reads one)."""
    return result if isinstance(result, dict) else dict(load_result(result).raw)


def _strongest_name(result) -> str | None:
    """The attack the result's one headline names (engine.headline: the verdict banner, the
    summary and the report quote the same one); a result saved without a headline has it
    rebuilt from its attacks."""
    head = headline_of_result(_plain(result)) if result else None
    return head.name if head is not None else None


class ModelRocPlot(RocPlot):
    """The shared ROC plot; paper 001 Thm 2's line (theory.btta_bound.roc.curve) is one of
    the reference curves of engine.plots.series.roc_series, drawn by RocPlot as in the
    report."""


class ModelMetricsTable(MetricsTable):
    """The shared metrics; "not measurable with N …" shortened to fit the many columns."""

    def set_result(self, result: dict | None) -> None:
        super().set_result(result)
        shorten_unmeasurable(self)


# ====================================================================== model and gap

def gap_interval(gap: GeneralizationGap) -> list[float] | None:
    """The interval of train − test accuracy: the engine's (MOVER, engine.metrics.difference_ci)
    or, for a result written before it gave one, a conservative one from the two accuracies'
    intervals."""
    if gap.gap_ci is not None:
        return list(gap.gap_ci)
    tr, te = gap.train_accuracy_ci, gap.test_accuracy_ci
    if tr is None or te is None or not all(is_number(v) for v in (*tr, *te)):
        return None
    return [tr[0] - te[1], tr[1] - te[0]]


def points(value) -> str:
    """A difference of two rates in percentage points."""
    return "—" if not is_number(value) else f"{100 * value:.1f} points"


def model_sentence(model: ModelInfo) -> str:
    family = FAMILY_WORDS.get(str(model.family), str(model.family or "model"))
    parts = [f"<b>{escape(family)}</b>"]
    if model.description:
        parts.append(f" ({escape(model.description)})")
    counts = []
    if is_number(model.train_records):
        counts.append(f"trained on {model.train_records:,} records")
    if is_number(model.test_records):
        counts.append(f"measured against {model.test_records:,} it never saw")
    if is_number(model.population_records) and model.population_records:
        counts.append(f"the attacker holds {model.population_records:,} others")
    text = "".join(parts)
    if counts:
        text += ": " + ", ".join(counts)
    shape = []
    if is_number(model.classes):
        shape.append(f"{model.classes:,} classes")
    features = model_features_text(model.features_counts())
    if features:
        shape.append(features)
    if shape:       # a dash, not brackets: the count of inputs is in brackets itself
        text += " — " + ", ".join(shape)
    text += "."
    extras = []
    if is_number(model.shadow_models) and model.shadow_models:
        extras.append(f"{model.shadow_models:,} shadow models")
    if is_number(model.reference_models) and model.reference_models:
        extras.append(f"{model.reference_models:,} reference models")
    if extras:
        text += f" The attacker trained {' and '.join(extras)}"
        if model.device:
            text += f" (on {escape(model.device)})"
        text += "."
    return text


class ModelGapView(QWidget):
    """What was audited, its train and test accuracy, the gap with its interval, the classes
    with the largest gaps, Thm 2's statement and which attack is strongest."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model_label = rich_label()
        self.gap_label = rich_label()
        self.bound_label = rich_label()
        self.strongest_label = rich_label()
        self.class_label = rich_label()
        self.class_table = make_table(["Class", "Members", "Non-members", "Train accuracy",
                                   "Test accuracy", "Gap"],
                                  "The classes on which the model does much better on its "
                                  "training records than on others: their members are the "
                                  "easiest to spot.")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.model_label, self.gap_label, self.bound_label,
                       self.strongest_label, self.class_label, self.class_table):
            layout.addWidget(widget)

    def set_result(self, result) -> None:
        if result is None:
            for label in (self.model_label, self.gap_label, self.bound_label,
                          self.strongest_label, self.class_label):
                label.setText("")
            self.model_label.setText("—")
            self.class_table.setVisible(False)
            return
        theory = _typed(result)[1]
        model = theory.model
        threat = THREAT_WORDS.get(str(theory.threat_model), "")
        self.model_label.setText(model_sentence(model) + (f" {escape(threat)}" if threat else ""))

        # The typed blocks (engine.results.model); a damaged one reads as absent (results
        # shown here passed engine.results.result.result_problem, which refuses it).
        found = theory.generalization_gap
        gap = found or GeneralizationGap()
        train = gap.train_accuracy if gap.train_accuracy is not None else model.train_accuracy
        test = gap.test_accuracy if gap.test_accuracy is not None else model.test_accuracy
        value = gap.gap if gap.gap is not None else (
            train - test if is_number(train) and is_number(test) else None)
        ci = gap_interval(gap)
        ci_text = interval(ci, lambda v: f"{100 * v:.1f}") if ci else ""
        if found is None and not is_number(train):
            text = ("The predictions hold one loss per record, so which class the model "
                    "predicts — and so its accuracies and their gap — is unknown. Mean loss: "
                    f"<b>{number(model.mean_loss_members)}</b> on its training records, "
                    f"<b>{number(model.mean_loss_non_members)}</b> on others.")
            self.gap_label.setText(text)
            self.bound_label.setText("")
            self.class_label.setText("")
            self.class_table.setVisible(False)
            self._strongest(result, theory)
            return
        text = (f"The model is right on <b>{pct(train)}</b> "
                f"{interval(gap.train_accuracy_ci, pct)} of its training records and "
                f"<b>{pct(test)}</b> {interval(gap.test_accuracy_ci, pct)} of records it "
                f"never saw: a <b>generalization gap of {points(value)}</b>")
        if ci_text:
            text += (f" {ci_text}" + ("" if gap.gap_ci is not None else
                                      " (conservative interval from the two accuracies' "
                                      "intervals)"))
        text += ". The larger the gap, the easier it is to tell members from others."
        self.gap_label.setText(text)

        bound = theory.btta_bound
        statement = bound.statement if bound is not None else ""
        self.bound_label.setText(escape(statement) if statement else "")
        self._strongest(result, theory)
        self._per_class(theory)

    def _strongest(self, result, theory: ModelTheory) -> None:
        bound = theory.btta_bound or BttaBound()
        head = headline_of_result(_plain(result))
        if head is not None and head.found:
            # The banner's plain name first, the literature's name after it (walk-through
            # 2026-11-26: "LiRA offline, global variance (Carlini et al. 2022)" here beside
            # "Quick copies-of-your-model attack" in the verdict read as two attacks).
            technical = str(head.label or head.name).split(" (")[0]
            plain = plain_name({"name": head.name, "label": head.label})
            words = (f"Strongest attack: <b>{escape(plain)}</b> ({escape(technical)})"
                     f", AUC {number(head.auc)}, right "
                     f"{pct(head.accuracy)} of the time")
            limit = bound.balanced_accuracy_bound
            acc = head.accuracy
            if is_number(limit) and is_number(acc):
                diff = acc - limit
                words += (f" — {points(abs(diff))} {'above' if diff > 0 else 'below'} what the "
                          f"accuracy gap alone allows ({pct(limit)})")
            self.strongest_label.setText(words + ".")
        else:
            self.strongest_label.setText("No attack was run.")

    def _per_class(self, theory: ModelTheory) -> None:
        per_class = [c for c in theory.gap_classes if is_number(c.gap)]
        if not per_class:
            self.class_label.setText("")
            self.class_table.setVisible(False)
            return
        largest = sorted(per_class, key=lambda c: -c.gap)[:LARGEST_GAPS]
        gaps = np.array([c.gap for c in per_class])
        self.class_label.setText(
            f"Per class ({len(per_class):,} classes): the gap ranges from {points(gaps.min())} "
            f"to {points(gaps.max())} (median {points(float(np.median(gaps)))}). The "
            f"{len(largest)} classes with the largest gap:")
        rows = [[str(c.name), f"{c.n_members:,}", f"{c.n_non_members:,}",
                 f"{pct(c.train_accuracy)} {interval(c.train_accuracy_ci, pct)}",
                 f"{pct(c.test_accuracy)} {interval(c.test_accuracy_ci, pct)}",
                 f"{points(c.gap)} "
                 f"{interval(c.gap_ci, lambda v: f'{100 * v:.1f}')}"] for c in largest]
        fill_table(self.class_table, rows)
        self.class_table.setVisible(True)


# ====================================================================== attacks class by class

class PerClassAttackView(QWidget):
    """One attack's AUC and decisions class by class (issue 8's per-class breakdown): a choice
    of attack (the strongest first) and the classes where it does best."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.attack_choice = QComboBox()
        self.attack_choice.setToolTip("Which attack to break down by class")
        self.attack_choice.currentIndexChanged.connect(self._show)
        self.summary_label = rich_label()
        self.table = make_table(["Class", "Members", "Non-members", "AUC [95 % CI]",
                                 "Members spotted", "Others accused"],
                                "AUC within one class: members and non-members of the same "
                                "class. “Members spotted” and “Others accused” use the "
                                "attack's own decision rule.")
        row = QHBoxLayout()
        row.addWidget(QLabel("Attack:"))
        row.addWidget(self.attack_choice, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.summary_label)
        layout.addWidget(self.table)
        self._attacks: list[tuple] = []      # (attack, its classes)

    def set_result(self, result) -> None:
        r, theory = _typed(result)
        attacks = [(a, theory.classes_of(a)) for a in r.attacks if a.per_class]
        strongest = _strongest_name(result)
        attacks.sort(key=lambda ac: ac[0].name != strongest)
        self._attacks = attacks
        self.attack_choice.blockSignals(True)
        self.attack_choice.clear()
        for a, _ in attacks:
            self.attack_choice.addItem(str(a.label or a.name).split(" (")[0])
        self.attack_choice.blockSignals(False)
        self._show()

    def _show(self) -> None:
        i = self.attack_choice.currentIndex()
        if not self._attacks or i < 0:
            self.summary_label.setText("—" if not self._attacks else "")
            self.table.setVisible(False)
            return
        rows = [c for c in self._attacks[i][1] if is_number(c.auc)]
        if not rows:
            self.summary_label.setText("No class has both members and non-members.")
            self.table.setVisible(False)
            return
        aucs = np.array([c.auc for c in rows])
        top = sorted(rows, key=lambda c: -c.auc)[:LARGEST_GAPS * 2]
        above = sum(1 for c in rows if c.auc_ci is not None and c.auc_ci[0] > 0.5)
        self.summary_label.setText(
            f"Across {len(rows):,} classes the AUC ranges from {number(aucs.min())} to "
            f"{number(aucs.max())} (median {number(float(np.median(aucs)))}); in "
            f"<b>{above:,}</b> its interval lies above 0.5 (chance). The {len(top)} classes "
            "where this attack does best — with few records per class the intervals are wide:")
        fill_table(self.table, [[str(c.name), f"{c.n_members:,}", f"{c.n_non_members:,}",
                                 f"{number(c.auc)} {interval(c.auc_ci)}",
                                 pct(c.tpr), pct(c.fpr)] for c in top])
        self.table.setVisible(True)


# ====================================================================== attribute inference

class AttributeInferenceView(QWidget):
    """The attribute game (issue 8): the sensitive feature predicted from the model's outputs
    beside the same predictor without the model, for members and non-members apart."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary_label = rich_label()
        self.table = make_table(["Records", "Predictor", "Right [95 % CI]", "AUC [95 % CI]",
                                 f"{SCALED_SCORE} [95 % CI]\n(0 = obvious guess)"],
                                "Top-1 accuracy with its Clopper–Pearson interval; AUC one "
                                "value against the rest, clustered by record. "
                                + REAL_PEOPLE_TERMS[SCALED_SCORE])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.summary_label)
        layout.addWidget(self.table)

    def set_result(self, result) -> None:
        a = _typed(result)[1].attribute_inference if result is not None else None
        if a is None:
            self.summary_label.setText(
                "—" if result is None else "Not run: choose a sensitive feature in step 2 to "
                "ask whether the model's outputs reveal it.")
            self.table.setVisible(False)
            return
        self.summary_label.setText(escape(attribute_sentence(dict(a.table))))
        rows = []
        for (_, group), words in zip(a.groups(), ("Training members", "Non-members"),
                                     strict=True):
            for m, who, rp in ((group.model, "with the model's outputs", group.real_people),
                               (group.baseline, "data only (no model)", None)):
                rows.append([words, who, f"{pct(m.accuracy)} {interval(m.accuracy_ci, pct)}",
                             f"{number(m.auc)} {interval(m.auc_ci)}", _scaled_text(rp)])
            og = group.real_people.obvious_guess if group.real_people is not None else None
            if og is not None:   # the baseline the scaled score starts from (issue 32 item 1)
                rows.append([words, f"{OBVIOUS_GUESS.lower()}: '{og.value}' for everyone",
                             pct(og.accuracy), "—", "0 by definition"])
        fill_table(self.table, rows)
        self.table.setVisible(True)


def _scaled_text(rp: RealPeople | None) -> str:
    """The scaled score with its interval ("0.12 [-0.05, 0.29]"), "—" without one."""
    if rp is None or not is_number(rp.scaled_score):
        return "—"
    ci = rp.scaled_score_ci
    return f"{rp.scaled_score:.2f} " + interval(
        ci, lambda v: f"{v:.2f}" if is_number(v) else "—")


# ====================================================================== exposed members

class ExposedMembersView(QWidget):
    """The members the strongest attack is surest about: rank, CSV row and score (and the
    label when the user asked to list it)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary_label = rich_label()
        self.table = make_table(SCORE_HEADERS, "Row numbers count the CSV's header as "
                            "row 1; a higher score means the attack is surer the record was "
                            "trained on.")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.summary_label)
        layout.addWidget(self.table)

    def set_result(self, result) -> None:
        r, theory = _typed(result)
        records = theory.exposed
        if result is None or not records:
            self.summary_label.setText("—" if result is None else
                                       "No member is listed (the exposed count was 0 or no "
                                       "attack ran).")
            self.table.setVisible(False)
            return
        # The attack that ranked the records (the audit lists the headline attack's surest).
        ranked_by = records[0].attack or _strongest_name(result)
        entry = next((a for a in r.attacks if a.name == ranked_by), None)
        attack = (plain_name({"name": entry.name, "label": entry.label}) if entry else None) \
            or "the strongest attack"
        attack = attack[0].lower() + attack[1:]
        with_labels = any(m.has_label for m in records)
        text = (f"The <b>{len(records):,} training records</b> that the {escape(attack)} is surest "
                f"were trained on, by row of the data (the header is row 1). Review these "
                f"first: they are the people the model exposes most.")
        if not with_labels:
            text += (" Only row numbers are shown; to see their labels, tick “List the exposed "
                     "records' labels” in step 2 (Attacks &amp; run) and run again.")
        self.summary_label.setText(text)
        headers = SCORE_HEADERS + (["Label"] if with_labels else [])
        self.table.setColumnCount(len(headers))
        self.table.setHorizontalHeaderLabels(headers)
        rows = [[_or_blank(m.rank), _or_blank(m.row), number(m.score, 4)]
                + ([_or_blank(m.label) if m.has_label else ""] if with_labels else [])
                for m in records[:MAX_EXPOSED_ROWS]]
        fill_table(self.table, rows)
        self.table.setVisible(True)


def _or_blank(v) -> str:
    """A rank, row or label as text; "" when the result has none."""
    return "" if v is None else str(v)


# ====================================================================== the view

class ModelResultsView(ResultsView):
    """The shared results view for the membership-inference attacks on a model, with the
    Thm 2 line on the ROC and this audit's own sections between the metrics and the
    warnings."""

    ROC_TITLE = "Membership inference: can an outsider tell who the model was trained on? " \
                "(ROC, log-log)"
    METRICS_TITLE = "Membership-inference attacks (95 % confidence intervals)"
    NOTE_PLACEHOLDER = ("e.g. 'Model approved for deployment after retraining with weight decay "
                        "0.01; discussed with the DPO, 12 May.'")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._swap(ModelRocPlot(), "roc_plot")
        self._swap(ModelMetricsTable(), "metrics_table")
        self.roc_plot.set_log(True)
        self.roc_plot.hint_label.setText(ROC_HINT)
        self.roc_plot.plot_item.setLabel("bottom", "False-positive rate (non-members accused)")
        self.roc_plot.plot_item.setLabel("left", "True-positive rate (members spotted)")
        self.gap_view = ModelGapView()
        self.per_class_view = PerClassAttackView()
        self.attribute_view = AttributeInferenceView()
        self.exposed_view = ExposedMembersView()
        self.add_section("The model and its generalization gap", self.gap_view,
                         update=self.gap_view.set_result)
        self.add_section("Attacks class by class", self.per_class_view,
                         update=self.per_class_view.set_result)
        self.add_section("Attribute inference: does the model reveal a sensitive feature?",
                         self.attribute_view, update=self.attribute_view.set_result)
        self.add_section("Most exposed training records", self.exposed_view,
                         update=self.exposed_view.set_result)
        self.defences_view = DefencesView()
        self.add_section("Defences: what retraining would change, and what it costs",
                         self.defences_view, update=self.defences_view.set_result)

    def _swap(self, new: QWidget, attribute: str) -> None:
        """Put ``new`` in the place of the shared widget ``attribute`` (same box)."""
        old = getattr(self, attribute)
        new.setMinimumHeight(old.minimumHeight())
        old.parentWidget().layout().replaceWidget(old, new)
        old.setParent(None)
        old.deleteLater()
        setattr(self, attribute, new)
        new.set_result(self._result or None)

    def plots(self) -> dict[str, PlotView]:
        """Every plot of the view by name (for tests and screenshots)."""
        return {"roc": self.roc_plot.view, "tradeoff": self.defences_view.chart.view}

