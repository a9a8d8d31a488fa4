"""The results of a machine-learning model audit (papers 001 and 004 §4): the shared results
view (verdict, ROC, metrics, warnings, notes) for the membership-inference attacks, plus what
only this audit has — the line of paper 001 Thm 2 on the ROC (the best any attack knowing only
the train and test accuracies can do), the model and its generalization gap overall and per
class, and the members the strongest attack is surest about (row numbers only, labels when the
user asked for them).

The view only displays the result dict; it never computes, so a project reopened later shows
exactly what was audited.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from engine.audits.blocks import BttaBound, GeneralizationGap, theory_block
from engine.audits.model import attribute_sentence
from engine.data.tabular import model_features_text
from engine.headline import headline_of_result
from engine.plots import series
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


def _theory(result: dict | None) -> dict:
    return (result or {}).get("theory") or {}


def _strongest_name(result: dict | None) -> str | None:
    """The attack the result's one headline names (engine.headline: the verdict banner, the
    summary and the report quote the same one); a result saved without a headline has it
    rebuilt from its attacks."""
    head = headline_of_result(result) if result else None
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


def model_sentence(model: dict) -> str:
    family = FAMILY_WORDS.get(str(model.get("family")), str(model.get("family") or "model"))
    parts = [f"<b>{escape(family)}</b>"]
    if model.get("description"):
        parts.append(f" ({escape(model['description'])})")
    counts = []
    if is_number(model.get("train_records")):
        counts.append(f"trained on {model['train_records']:,} records")
    if is_number(model.get("test_records")):
        counts.append(f"measured against {model['test_records']:,} it never saw")
    if is_number(model.get("population_records")) and model.get("population_records"):
        counts.append(f"the attacker holds {model['population_records']:,} others")
    text = "".join(parts)
    if counts:
        text += ": " + ", ".join(counts)
    shape = []
    if is_number(model.get("classes")):
        shape.append(f"{model['classes']:,} classes")
    if model_features_text(model):
        shape.append(model_features_text(model))
    if shape:       # a dash, not brackets: the count of inputs is in brackets itself
        text += " — " + ", ".join(shape)
    text += "."
    extras = []
    if is_number(model.get("shadow_models")) and model.get("shadow_models"):
        extras.append(f"{model['shadow_models']:,} shadow models")
    if is_number(model.get("reference_models")) and model.get("reference_models"):
        extras.append(f"{model['reference_models']:,} reference models")
    if extras:
        text += f" The attacker trained {' and '.join(extras)}"
        if model.get("device"):
            text += f" (on {escape(model['device'])})"
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

    def set_result(self, result: dict | None) -> None:
        theory = _theory(result)
        if result is None:
            for label in (self.model_label, self.gap_label, self.bound_label,
                          self.strongest_label, self.class_label):
                label.setText("")
            self.model_label.setText("—")
            self.class_table.setVisible(False)
            return
        model = theory.get("model") or {}
        threat = THREAT_WORDS.get(str(theory.get("threat_model")), "")
        self.model_label.setText(model_sentence(model) + (f" {escape(threat)}" if threat else ""))

        # The typed blocks (engine.audits.blocks); a damaged one reads as absent (results
        # shown here passed engine.audits.result.result_problem, which refuses it).
        found = theory_block(theory, "generalization_gap", GeneralizationGap)
        gap = found or GeneralizationGap()
        train = gap.train_accuracy if gap.train_accuracy is not None \
            else model.get("train_accuracy")
        test = gap.test_accuracy if gap.test_accuracy is not None \
            else model.get("test_accuracy")
        value = gap.gap if gap.gap is not None else (
            train - test if is_number(train) and is_number(test) else None)
        ci = gap_interval(gap)
        ci_text = interval(ci, lambda v: f"{100 * v:.1f}") if ci else ""
        if found is None and not is_number(train):
            text = ("The predictions hold one loss per record, so which class the model "
                    "predicts — and so its accuracies and their gap — is unknown. Mean loss: "
                    f"<b>{number(model.get('mean_loss_members'))}</b> on its training records, "
                    f"<b>{number(model.get('mean_loss_non_members'))}</b> on others.")
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

        bound = theory_block(theory, "btta_bound", BttaBound)
        statement = bound.statement if bound is not None else ""
        self.bound_label.setText(escape(statement) if statement else "")
        self._strongest(result, theory)
        self._per_class(gap)

    def _strongest(self, result: dict, theory: dict) -> None:
        bound = theory_block(theory, "btta_bound", BttaBound) or BttaBound()
        head = headline_of_result(result)
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

    def _per_class(self, gap: GeneralizationGap) -> None:
        per_class = [c for c in gap.per_class if is_number(c.get("gap"))]
        if not per_class:
            self.class_label.setText("")
            self.class_table.setVisible(False)
            return
        largest = sorted(per_class, key=lambda c: -c["gap"])[:LARGEST_GAPS]
        gaps = np.array([c["gap"] for c in per_class])
        self.class_label.setText(
            f"Per class ({len(per_class):,} classes): the gap ranges from {points(gaps.min())} "
            f"to {points(gaps.max())} (median {points(float(np.median(gaps)))}). The "
            f"{len(largest)} classes with the largest gap:")
        rows = [[str(c.get("class")), f"{c.get('n_members', 0):,}",
                 f"{c.get('n_non_members', 0):,}",
                 f"{pct(c.get('train_accuracy'))} {interval(c.get('train_accuracy_ci'), pct)}",
                 f"{pct(c.get('test_accuracy'))} {interval(c.get('test_accuracy_ci'), pct)}",
                 f"{points(c.get('gap'))} "
                 f"{interval(c.get('gap_ci'), lambda v: f'{100 * v:.1f}')}"] for c in largest]
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
        self._attacks: list[dict] = []

    def set_result(self, result: dict | None) -> None:
        attacks = [a for a in (result or {}).get("attacks") or [] if a.get("per_class")]
        strongest = _strongest_name(result)
        attacks.sort(key=lambda a: a.get("name") != strongest)
        self._attacks = attacks
        self.attack_choice.blockSignals(True)
        self.attack_choice.clear()
        for a in attacks:
            self.attack_choice.addItem(str(a.get("label") or a.get("name")).split(" (")[0])
        self.attack_choice.blockSignals(False)
        self._show()

    def _show(self) -> None:
        i = self.attack_choice.currentIndex()
        if not self._attacks or i < 0:
            self.summary_label.setText("—" if not self._attacks else "")
            self.table.setVisible(False)
            return
        rows = [c for c in self._attacks[i]["per_class"] if is_number(c.get("auc"))]
        if not rows:
            self.summary_label.setText("No class has both members and non-members.")
            self.table.setVisible(False)
            return
        aucs = np.array([c["auc"] for c in rows])
        top = sorted(rows, key=lambda c: -c["auc"])[:LARGEST_GAPS * 2]
        above = sum(1 for c in rows if is_number((c.get("auc_ci") or [None])[0])
                    and c["auc_ci"][0] > 0.5)
        self.summary_label.setText(
            f"Across {len(rows):,} classes the AUC ranges from {number(aucs.min())} to "
            f"{number(aucs.max())} (median {number(float(np.median(aucs)))}); in "
            f"<b>{above:,}</b> its interval lies above 0.5 (chance). The {len(top)} classes "
            "where this attack does best — with few records per class the intervals are wide:")
        fill_table(self.table, [[str(c.get("class")), f"{c.get('n_members', 0):,}",
                                 f"{c.get('n_non_members', 0):,}",
                                 f"{number(c.get('auc'))} {interval(c.get('auc_ci'))}",
                                 pct(c.get("tpr")), pct(c.get("fpr"))] for c in top])
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

    def set_result(self, result: dict | None) -> None:
        a = _theory(result).get("attribute_inference")
        if not a:
            self.summary_label.setText(
                "—" if result is None else "Not run: choose a sensitive feature in step 2 to "
                "ask whether the model's outputs reveal it.")
            self.table.setVisible(False)
            return
        self.summary_label.setText(escape(attribute_sentence(a)))
        rows = []
        for group, words in (("members", "Training members"), ("non_members", "Non-members")):
            for which, who in (("model", "with the model's outputs"),
                               ("baseline", "data only (no model)")):
                m = (a.get(group) or {}).get(which) or {}
                rp = (a.get(group) or {}).get("real_people") if which == "model" else None
                rows.append([words, who, f"{pct(m.get('accuracy'))} "
                             f"{interval(m.get('accuracy_ci'), pct)}",
                             f"{number(m.get('auc'))} {interval(m.get('auc_ci'))}",
                             _scaled_text(rp)])
            og = ((a.get(group) or {}).get("real_people") or {}).get("obvious_guess")
            if og:      # the baseline the scaled score starts from (issue 32 item 1)
                rows.append([words, f"{OBVIOUS_GUESS.lower()}: '{og.get('value')}' for everyone",
                             pct(og.get("accuracy")), "—", "0 by definition"])
        fill_table(self.table, rows)
        self.table.setVisible(True)


def _scaled_text(rp: dict | None) -> str:
    """The scaled score with its interval ("0.12 [-0.05, 0.29]"), "—" without one."""
    if not isinstance(rp, dict) or not is_number(rp.get("scaled_score")):
        return "—"
    ci = rp.get("scaled_score_ci")
    return f"{rp['scaled_score']:.2f} " + interval(
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

    def set_result(self, result: dict | None) -> None:
        records = (result or {}).get("exposed_records") or []
        if result is None or not records:
            self.summary_label.setText("—" if result is None else
                                       "No member is listed (the exposed count was 0 or no "
                                       "attack ran).")
            self.table.setVisible(False)
            return
        # The attack that ranked the records (the audit lists the headline attack's surest).
        ranked_by = records[0].get("attack") or _strongest_name(result)
        entry = next((a for a in result.get("attacks") or []
                      if isinstance(a, dict) and a.get("name") == ranked_by), {})
        attack = (plain_name(entry) if entry else None) or "the strongest attack"
        attack = attack[0].lower() + attack[1:]
        with_labels = any("label" in r for r in records)
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
        rows = [[str(r.get("rank", "")), str(r.get("row", "")), number(r.get("score"), 4)]
                + ([str(r.get("label", ""))] if with_labels else [])
                for r in records[:MAX_EXPOSED_ROWS]]
        fill_table(self.table, rows)
        self.table.setVisible(True)


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

