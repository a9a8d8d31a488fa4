"""The field-row builders and inline errors of every audit page (moved out of
gui/pages/audit_page.py, issue 33 item 2): a number field, a path row with its Browse… button,
the presets' box, the verdict policy box, and the sentences for bad settings at the field that
holds them. :class:`FormRows` is a mixin of :class:`gui.pages.audit_page.AuditPage`; it reads the
page's attributes (``fields``, ``FIELDS``, ``KEY_STEPS``, the step list) and keeps none of its
own.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QButtonGroup,
    QFileDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from engine.audits.presets import CUSTOM, TITLES, apply_preset, matching_preset, presets
from engine.data.errors import InputError
from engine.policy import VerdictPolicy
from engine.results.config_fields import every_error
from gui.job_runner import JobError
from gui.pages.audit_forms import (
    CSV_FILTER,
    POLICY_KEYS,
    add_read_notes,
    field_sentence,
    plain_sentence,
    resolve_path,
    show_status,
    status_label,
)
from gui.widgets.form import (
    add_row,
    clear_invalid,
    format_value,
    mark_invalid,
    nested_get,
    nested_set,
    number_field,
    parse_value,
    show_field_error,
)
from gui.widgets.steps import note


class FormRows:
    """Form rows and inline errors (a mixin of AuditPage)."""

    def number_field(self, key: str) -> QLineEdit:
        """The text field of number ``key`` of ``FIELDS``, registered in ``self.fields``."""
        edit = number_field(key, self.FIELDS[key])
        self.fields[key] = edit
        return edit

    def add_field_row(self, form: QFormLayout, key: str) -> QLineEdit:
        """A labelled row with the field of ``key``; returns the field."""
        edit = self.number_field(key)
        add_row(form, self.FIELDS[key], edit)
        return edit

    def add_name_row(self, form: QFormLayout) -> QLineEdit:
        """The "Audit name" row every audit starts with (``self.name_edit``)."""
        self.name_edit = QLineEdit()
        self.name_edit.setToolTip("A name for this audit; it appears on the report.")
        form.addRow("Audit name:", self.name_edit)
        return self.name_edit

    def add_radio_row(self, form: QFormLayout, label: str,
                      buttons: Sequence[QAbstractButton]) -> QButtonGroup:
        """A labelled row of exclusive radio buttons, one under the other."""
        group = QButtonGroup(self)
        column = QVBoxLayout()
        for button in buttons:
            group.addButton(button)
            column.addWidget(button)
        form.addRow(label, column)
        return group

    def path_row(self, form: QFormLayout, key: str, title: str,
                 browse=None) -> tuple[QLineEdit, QLabel]:
        """The field of path ``key`` (registered in ``self.fields``) with a Browse… button and
        the sentence about the file right under it (:func:`show_status`; hidden while there is
        nothing to say). ``browse`` runs on Browse…; by default it asks for a CSV file with
        ``title`` and puts it in the field. The button is ``edit.browse_button``."""
        edit = self.number_field(key)
        button = QPushButton("Browse…")
        button.setToolTip(title + ".")
        if browse is None:
            def browse(edit=edit, title=title):
                path = self.ask_file(edit, title)
                if path:
                    edit.setText(path)
                    clear_invalid(edit)
        button.clicked.connect(browse)
        status = status_label()
        row = QHBoxLayout()
        row.addWidget(edit, 1)
        row.addWidget(button)
        column = QVBoxLayout()
        column.setSpacing(2)
        column.addLayout(row)
        column.addWidget(status)
        add_row(form, self.FIELDS[key], column)
        edit.browse_button = button
        return edit, status

    def ask_file(self, edit: QLineEdit, title: str, filters: str = CSV_FILTER) -> str:
        """Ask for a file to open, starting in the folder of the path in ``edit`` (else in
        :attr:`BROWSE_FOLDER`); "" when the user cancels."""
        current = edit.text().strip()
        start = str(resolve_path(current).parent) if current else str(self.BROWSE_FOLDER)
        path, _ = QFileDialog.getOpenFileName(self, title, start, filters)
        # Other data on a page that holds a saved project (issue 31, item 1): the window asks
        # whether to start a new project; "" (as if cancelled) keeps everything as it was.
        if path and (not current or os.path.abspath(resolve_path(current))
                     != os.path.abspath(path)) and not self.confirm_other_data(path):
            return ""
        return path

    def read_data(self, path: Path, read: Callable[[], Any], done: Callable[[Any], None],
                  failed: Callable[[str, str], None], status: QLabel,
                  sync_bytes: int) -> None:
        """Read a data file at once when it is small, on the job runner when it is larger
        than ``sync_bytes`` (the window never freezes). ``read()`` must use only what it was
        given (it may run off the main thread); ``done(result)`` or ``failed(sentence, key)``
        run on the main thread; ``status`` says "Reading the file…" meanwhile, then whatever
        ``done`` says plus what was assumed to read the file (:func:`add_read_notes`)."""
        if self._read_job is not None:
            return
        if not (path.is_file() and path.stat().st_size > sync_bytes):
            try:
                result = read()
            except InputError as exc:
                failed(exc.one_line(), exc.key or "")
                return
            done(result)
            add_read_notes(status, path)
            return
        if self.runner.is_busy():
            show_status(status, "Another job is running; the file is read when it has "
                                "finished (or press Run).")
            return

        def finished(result) -> None:
            self._read_job = None
            done(result)
            add_read_notes(status, path)

        def stopped(error: JobError) -> None:
            self._read_job = None
            failed(error.message, error.key)

        show_status(status, "Reading the file…")
        self._read_job = self.runner.submit(lambda progress, cancel: read(), finished, stopped,
                                            label="Reading the records")

    def field_values(self) -> dict[str, Any]:
        """Every number field's text as a number where it is one, else as typed; text
        fields exactly as typed."""
        return {key: edit.text() if self.FIELDS[key].text
                else parse_value(edit.text(), self.FIELDS[key].integer)
                for key, edit in self.fields.items()}

    def apply_fields(self, config: dict, skip: Sequence[str] = ()) -> dict:
        """Write every field's value into ``config`` ("policy.fpr" into config["policy"]),
        except the keys in ``skip``; returns ``config``."""
        for key, value in self.field_values().items():
            if key not in skip:
                nested_set(config, key, value)
        return config

    def build_depth_box(self, layout: QVBoxLayout) -> QVBoxLayout:
        """"How thorough?": Quick look, Standard, Thorough — each with what it runs and its
        estimated time — or Custom (issue 20, presets). Returns the layout of the Custom panel,
        where the page puts its full list of attacks: shown only when Custom is chosen, so the
        officer picks a depth, not an attack. Choosing a preset sets its values
        (:mod:`engine.audits.presets`) and leaves every other setting as typed."""
        box = QFrame()
        box.setFrameShape(QFrame.Shape.StyledPanel)
        box_layout = QVBoxLayout(box)
        title = QLabel("How thorough should the audit be?")
        title.setStyleSheet("font-weight: bold;")
        box_layout.addWidget(title)
        self.depth_group = QButtonGroup(self)
        self.depth_buttons: dict[str, QRadioButton] = {}
        self.depth_notes: dict[str, QLabel] = {}
        choices = [(p.key, p.title, p.sentence) for p in presets(self.AUDIT_TYPE)]
        choices.append((CUSTOM, TITLES[CUSTOM], "Choose the attacks and sizes yourself."))
        for key, text, sentence in choices:
            button = QRadioButton(text)
            button.setToolTip(sentence)
            self.depth_group.addButton(button)
            self.depth_buttons[key] = button
            box_layout.addWidget(button)
            sentence_label = note(sentence)
            sentence_label.setContentsMargins(24, 0, 0, 4)
            self.depth_notes[key] = sentence_label
            box_layout.addWidget(sentence_label)
            button.toggled.connect(lambda on, key=key: on and self._depth_chosen(key))
        layout.addWidget(box)
        self.custom_panel = QWidget()
        custom_layout = QVBoxLayout(self.custom_panel)
        custom_layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.custom_panel)
        self._depth_estimates: dict[str, str] = {}
        return custom_layout

    def _depth_chosen(self, key: str) -> None:
        """A depth button was clicked (or set to match the form): apply a preset's values, or
        show the full list for Custom."""
        self.custom_panel.setVisible(key == CUSTOM)
        if key == CUSTOM or getattr(self, "_syncing_depth", False):
            return
        preset = next(p for p in presets(self.AUDIT_TYPE) if p.key == key)
        try:
            form = self.form_dict()
        except Exception:  # noqa: BLE001 - a half-built form: nothing to apply to yet
            return
        self._base_config = self.complete_config(apply_preset(form, preset))
        self._syncing_depth = True
        try:
            self.fill_form(self._base_config)
        finally:
            self._syncing_depth = False

    def sync_depth(self, config: dict | None = None) -> None:
        """Tick the depth the form's settings match (Custom when none), e.g. after a project is
        opened or a size is typed by hand."""
        buttons = getattr(self, "depth_buttons", None)
        if not buttons:
            return
        if config is None:
            try:
                config = self.form_dict()
            except Exception:  # noqa: BLE001 - a half-built form: try again later
                return
        key = matching_preset(self.AUDIT_TYPE, config)
        if not buttons[key].isChecked():
            self._syncing_depth = True
            try:
                buttons[key].setChecked(True)
            finally:
                self._syncing_depth = False
        self.custom_panel.setVisible(key == CUSTOM)

    def update_depth_estimates(self, form: dict) -> None:
        """Each preset's estimated time beside its name, from the engine's estimate of the
        config it would give (the same estimate the run bar shows)."""
        buttons = getattr(self, "depth_buttons", None)
        if not buttons:
            return
        from engine.estimates import duration_range, estimate
        for preset in presets(self.AUDIT_TYPE):
            try:
                config = self.CONFIG_CLASS.from_dict(apply_preset(form, preset),
                                                     source="settings")
                words = duration_range(estimate(config).expected_seconds)
            except Exception:  # noqa: BLE001 - no estimate for settings not yet valid
                words = ""
            buttons[preset.key].setText(preset.title + (f" — {words}" if words else ""))

    def build_policy_box(self, layout: QVBoxLayout) -> None:
        """A folded "Verdict policy" box with the ``policy.x`` fields of ``FIELDS`` and the
        rules they make, in words (every audit has a verdict policy)."""
        self.policy_toggle = QToolButton()
        self.policy_toggle.setText("Verdict policy — when is the risk high, medium or low?")
        self.policy_toggle.setCheckable(True)
        self.policy_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.policy_toggle.setArrowType(Qt.ArrowType.RightArrow)
        self.policy_toggle.setStyleSheet("QToolButton { border: none; font-weight: bold; }")
        self.policy_toggle.setToolTip("The thresholds that turn the measured attack success "
                                      "into a low, medium or high risk verdict.")
        self.policy_toggle.toggled.connect(self._toggle_policy)
        self.policy_box = QFrame()
        self.policy_box.setFrameShape(QFrame.Shape.StyledPanel)
        policy_form = QFormLayout(self.policy_box)
        for key in POLICY_KEYS:
            self.add_field_row(policy_form, key).textEdited.connect(self.update_policy_rules)
        self.policy_rules_label = note("")
        policy_form.addRow(self.policy_rules_label)
        self.policy_box.setVisible(False)
        layout.addWidget(self.policy_toggle)
        layout.addWidget(self.policy_box)

    def _toggle_policy(self, shown: bool) -> None:
        self.policy_box.setVisible(shown)
        self.policy_toggle.setArrowType(Qt.ArrowType.DownArrow if shown
                                        else Qt.ArrowType.RightArrow)

    def update_policy_rules(self) -> None:
        """Say in words what the policy fields make (or why they are not valid yet)."""
        label = getattr(self, "policy_rules_label", None)
        if label is None:
            return
        policy = self.form_dict().get("policy") or {}
        try:
            rules = VerdictPolicy.from_dict(policy).rules()
        except InputError as exc:
            label.setText(exc.one_line())
            return
        label.setText("\n".join(rules))

    def fill_fields(self, config: dict) -> None:
        """Show the values of ``config`` in the number fields ("a.b" reads config["a"]["b"])."""
        for key, edit in self.fields.items():
            edit.setText(format_value(nested_get(config, key)))
            clear_invalid(edit)

    def step_of_key(self, key: str) -> int | None:
        """The step that holds the setting ``key`` ("policy.fpr" falls back to "policy")."""
        if key in self.FIELDS:
            return self.FIELDS[key].step
        return self.KEY_STEPS.get(key.split(".")[0])

    def form_errors(self, form: dict) -> list[InputError]:
        """Every problem of the form at once (engine.results.config_fields.every_error)."""
        return every_error(self.CONFIG_CLASS.from_dict, form, source="settings")

    def show_form_errors(self, errors: list[InputError]) -> None:
        """Each problem under its field in the field's own words, every field without one
        cleared; problems of settings without a field go under the form (issue 21). Called as
        the form changes, so a corrected value loses its mark at once."""
        by_key = {e.key: e for e in errors if e.key}
        for key, edit in self.fields.items():
            error = by_key.pop(key, None)
            if error is not None:
                show_field_error(edit, field_sentence(str(error), key, self.FIELDS[key].label
                                                      if key in self.FIELDS else None))
            elif getattr(edit, "error_label", None) is not None or edit.styleSheet():
                clear_invalid(edit)
        rest = [plain_sentence(e.one_line()) for e in errors if not e.key or e.key in by_key]
        if rest:
            self.run_bar.show_error("\n".join(rest))
            self._settings_error_shown = True
        elif not errors and self._settings_error_shown:
            # What the run bar says about the settings goes once they are valid; a problem
            # found while running (a data file) stays until the next run.
            self.run_bar.clear_error()
            self._settings_error_shown = False

    def labelled_sentence(self, error: InputError) -> str:
        """"ε per observation: must be greater than 0 …" — the field's label, then the
        engine's sentence in the field's words; a setting without a field keeps its sentence."""
        spec = self.FIELDS.get(error.key or "")
        text = plain_sentence(error.one_line())
        if spec is None:
            return text
        sentence = field_sentence(text, error.key, spec.label).rstrip(".")
        return f"{spec.label}: {sentence[:1].lower()}{sentence[1:]}."

    def show_input_error(self, error: InputError) -> None:
        """Show the engine's sentence in red under the form, mark the field, go to its step."""
        self.show_error_at(error.one_line(), error.key or "")

    def show_error_at(self, text: str, key: str) -> None:
        """Show ``text`` under the form and mark the field of config ``key`` (if the page has
        one): used for bad settings and for input errors found while the audit runs (e.g. a
        data file that does not load)."""
        text = plain_sentence(text)
        self.run_bar.show_error(self.labelled_sentence(InputError(text, key=key or None)))
        step = self.step_of_key(key)
        if step is not None:
            self.step_list.setCurrentRow(step)
        self.reveal_key(key)
        edit = self.fields.get(key)
        if edit is not None:
            spec = self.FIELDS.get(key)
            show_field_error(edit, field_sentence(text, key, spec.label if spec else None))
            mark_invalid(edit)
        self.status_label.setText("Please correct the highlighted setting.")

    def clear_error(self) -> None:
        self.run_bar.clear_error()
        for edit in self.fields.values():
            clear_invalid(edit)

