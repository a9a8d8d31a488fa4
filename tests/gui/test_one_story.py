"""One story on every page (issue 32 item 6): each contradiction the issue found between two
parts of the app, cross-read on ONE run — the results page's text (the widgets rendered
offscreen), result.json and the PDF's text — so a figure or a name told two ways fails here.

One small run per audit type, shared by module-scoped fixtures (the suite stays fast)."""

from __future__ import annotations

import re

import pytest

from engine.numbers import whole_percent


def pdf_text(result: dict, tmp_path_factory, name: str) -> str:
    from pypdf import PdfReader

    from engine.report import write_report

    path = tmp_path_factory.mktemp("one_story") / f"{name}.pdf"
    write_report(result, path)
    return "\n".join(page.extract_text() for page in PdfReader(str(path)).pages)


def shown(view_class, result: dict, qtbot):
    """A results view of ``view_class`` showing ``result``, owned by the test's qtbot."""
    view = view_class()
    qtbot.addWidget(view)
    view.set_result(result)
    return view


def flat(text: str) -> str:
    """PDF text as one line (the PDF breaks lines anywhere) with rich-text tags removed."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", text))


# --------------------------------------------------------------------------- mechanism

#: Seed 8 of this small game measures the best possible attacker at 68.35 %, above its exact
#: optimum of 67.45 %: sampling noise that used to be quoted as "at most 68 %" (the issue's
#: "right 80.1 %" beside the table's exact 79.0 %).
MECHANISM = dict(epsilon=0.3, observations=10, trials=2000, seed=8)


@pytest.fixture(scope="module")
def mechanism_run(tmp_path_factory):
    from engine.audits.mechanism import MechanismConfig, run

    result = run(MechanismConfig(**MECHANISM)).to_dict()
    return result, flat(pdf_text(result, tmp_path_factory, "mechanism"))


def test_no_simulated_figure_is_quoted_above_the_proven_maximum(mechanism_run, qtbot):
    from gui.widgets.mechanism_results import MechanismResultsView

    result, pdf = mechanism_run
    exact = result["theory"]["optimal_attacker"]["accuracy"]
    measured = next(a for a in result["attacks"] if a["name"] == "np_optimal")["accuracy"]
    # The run this test needs: the simulation above the exact optimum, in whole percent.
    assert whole_percent(measured) != whole_percent(exact)
    head = result["verdict"]["headline"]
    assert head["verdict_accuracy"] == pytest.approx(exact)
    at_most = f"correctly at most {whole_percent(exact)} of the time"
    view = shown(MechanismResultsView, result, qtbot)
    assert at_most in result["summary"]
    assert at_most in flat(view.verdict_banner.text())
    assert at_most in pdf
    for text in (result["summary"], flat(view.verdict_banner.text()), pdf):
        assert f"at most {whole_percent(measured)}" not in text


def test_one_name_for_the_best_possible_attacker(mechanism_run, qtbot):
    from gui.widgets.mechanism_results import MechanismResultsView

    result, pdf = mechanism_run
    view = shown(MechanismResultsView, result, qtbot)
    table = view.metrics_table
    rows = [table.cell_text(r, 0) for r in range(table.rowCount())]
    assert rows[0] == "Best possible attacker (exact theory)"
    assert "Best possible attacker (simulated)" in rows[1:]    # the same attacker, simulated
    assert "Best possible attacker (exact theory)" in view.roc_plot.curve_names()
    assert "Best possible attacker (exact theory)" in pdf
    for text in (" ".join(rows), " ".join(view.roc_plot.curve_names()), pdf):
        assert "Optimal attacker (exact" not in text


# --------------------------------------------------------------------------- location

LOCATION = dict(city_users=200, city_epochs=24, test_aggregates=800, shadow_aggregates=50,
                sweep_targets=0, attacks=("one_threshold", "likelihood_ratio"), aggregate_size=49,
                target="observations", target_observations=5, attacker="informed",
                repetitions=3, seed=4)


@pytest.fixture(scope="module")
def location_run(tmp_path_factory):
    from engine.audits import location as L

    result = L.run(L.LocationConfig(**LOCATION)).to_dict()
    return result, flat(pdf_text(result, tmp_path_factory, "location"))


@pytest.mark.long          # the shared run (3 repetitions and its PDF) takes about 17 s
def test_location_summary_quotes_the_mean_over_repetitions(location_run, qtbot):
    from gui.widgets.location_results import LocationResultsView

    result, pdf = location_run
    head = result["verdict"]["headline"]
    attack = next(a for a in result["attacks"] if a["label"] == head["label"])
    reps = attack["details"]["repetitions"]
    mean = f"right {reps['accuracy_mean']:.1%} of the time on average"
    spread = f"standard deviation {100 * reps['accuracy_sd']:.1f} points"
    view = shown(LocationResultsView, result, qtbot)
    for text in (result["summary"], flat(view.verdict_banner.text()), pdf):
        assert mean in text and spread in text


@pytest.mark.long
def test_location_says_releases_wherever_it_says_spots(location_run, qtbot):
    from engine.games.location_summary import RELEASE_MEMBERS
    from gui.widgets.location_results import LocationResultsView

    result, pdf = location_run
    view = shown(LocationResultsView, result, qtbot)
    banner = flat(view.verdict_banner.text())
    spots = [r for r in result["verdict"]["reasons"] if "spots" in r]
    assert spots, result["verdict"]["reasons"]
    for text in (*spots, banner, pdf):
        # The policy's own rules speak of people in general; what this run measured may not.
        assert not re.search(r"spots [\d.]+ ?% of the people present", text), text
    assert all(RELEASE_MEMBERS[0] in r for r in spots)
    if "spots" in result["summary"]:
        assert RELEASE_MEMBERS[0] in result["summary"]


# --------------------------------------------------------------------------- model defences

def test_the_estimate_counts_defence_settings_as_the_summary_does():
    from engine.audits.model import demo_config
    from engine.defences.audit import summary_sentence
    from engine.estimates import estimate

    config = demo_config()
    defended = len(config.defences.settings()) - 1
    assert defended > 1
    part = next(p for p in estimate(config).parts if p.what.startswith("Defences"))
    assert f"{defended} defence settings" in part.what
    assert f"{defended + 1} settings" not in part.what
    # The summary's count, from a defences block with one row per setting.
    rows = [{"defence": s.defence if hasattr(s, "defence") else "x", "index": i}
            for i, s in enumerate(config.defences.settings())]
    block = {"rows": rows, "recommendation": {"met": False, "not_measurable": []},
             "limit": {"text": "at most 5 %", "fpr": 0.01}, "attacks_run": ["a"]}
    try:
        sentence = summary_sentence(block)
    except (KeyError, TypeError):
        pytest.skip("the defences block needs more than this sketch")
    assert f"None of the {defended} defence settings" in sentence


# --------------------------------------------------------------------------- model features

def gappy_training_csv(path):
    """3 feature columns — a number with empty cells (filled, plus its "was missing" input), 2
    and 3 categories — so the model has 1 + 1 + 2 + 3 = 7 inputs; the editor once said 6."""
    rows = ["age,sex,colour,label"]
    for i in range(300):
        age = "" if i % 17 == 0 else str(18 + (i * 37) % 61)
        rows.append(f"{age},{'fm'[i % 2]},{('red', 'green', 'blue')[i % 3]},"
                    f"{('yes', 'no')[(i // 2 + i // 7) % 2]}")
    path.write_text("\n".join(rows) + "\n")
    return path


@pytest.fixture(scope="module")
def gappy_model_run(tmp_path_factory):
    from engine.audits.model import ModelConfig, run

    csv = gappy_training_csv(tmp_path_factory.mktemp("gappy") / "gaps.csv")
    result = run(ModelConfig(data=str(csv), label="label", family="logistic", shadow_models=2,
                             attacks=("btta", "confidence"), seed=3)).to_dict()
    return csv, result, flat(pdf_text(result, tmp_path_factory, "model"))


def test_features_are_counted_one_way_in_the_editor_results_and_report(gappy_model_run, qtbot):
    from engine.data.tabular import TabularSchema
    from gui.widgets.model_results import ModelResultsView
    from gui.widgets.model_schema_editor import COL_INPUTS, ModelSchemaEditor, read_training_file

    csv, result, pdf = gappy_model_run
    model = result["theory"]["model"]
    assert (model["feature_columns"], model["features"]) == (3, 7)
    said = "3 feature columns (7 inputs)"
    info = read_training_file(csv, None, label="label")
    editor = ModelSchemaEditor()
    qtbot.addWidget(editor)
    editor.set_schema(info.schema)
    editor.set_gap_counts(info.gaps)
    TabularSchema.from_dict(editor.schema_dict())          # the table as the audit reads it
    view = shown(ModelResultsView, result, qtbot)
    for text in (info.sentence, editor.status_label.text(), flat(view.gap_view.model_label.text()), pdf):
        assert said in text, text
        assert not re.search(r"\b[67] features\b|\(6 inputs\)", text), text
    assert sum(int(editor.table.item(r, COL_INPUTS).text())
               for r in range(editor.table.rowCount())
               if editor.table.item(r, COL_INPUTS).text().isdigit()) == model["features"]


# --------------------------------------------------------------------------- the PDF and the app

def test_the_decision_note_typed_before_export_is_in_the_pdf(main_window, mechanism_run,
                                                             tmp_path_factory):
    result, _ = mechanism_run
    page = main_window.mechanism_page
    page.load_state(page.config_for_saving(), result, [])
    page.results_view.note_edit.setPlainText("Approved with ε = 0.3 after review, 12 May.")
    exported = page.result_for_report()
    assert exported["decision_log"][-1]["text"] == "Approved with ε = 0.3 after review, 12 May."
    assert page.decision_log() == exported["decision_log"]            # the project keeps it
    text = flat(pdf_text(exported, tmp_path_factory, "decision"))
    assert "Decision log" in text and "Approved with ε = 0.3 after review, 12 May." in text


def test_the_long_run_question_and_the_status_line_give_one_estimate(main_window, qtbot,
                                                                     monkeypatch):
    import engine.estimates as est

    page = main_window.mechanism_page
    main_window.show_audit("mechanism")
    label = page.run_bar.estimate_label
    qtbot.waitUntil(lambda: label.text().startswith("Estimated:"), timeout=30_000)
    shown = label.text()
    # The machine's load moves between the estimate shown and the click on Run.
    monkeypatch.setattr(est, "machine_slowdown", lambda *a, **k: 3.7)
    monkeypatch.setattr(est, "CONFIRM_SECONDS", 0.0)
    asked = []
    monkeypatch.setattr(page, "confirm_long_run", lambda q: asked.append(q) or False)
    page.run_button.click()
    assert asked
    said = re.search(r"take (about .+? to [^;.]+|under 10 seconds|about [^;.]+)", asked[0])
    assert said, asked[0]
    assert said.group(1)[1:] in shown, (asked[0], shown)
    assert label.text() == shown


# --------------------------------------------------------------------------- one name, every page

def screen_text(view) -> str:
    """Every word the results page shows: section titles, labels, tooltips and table cells."""
    from PySide6.QtWidgets import QGroupBox, QLabel, QTableWidget

    out = [box.title() for box in view.findChildren(QGroupBox)]
    for label in view.findChildren(QLabel):
        out += [label.text(), label.toolTip()]
    for table in view.findChildren(QTableWidget):
        out += [table.item(r, c).text() for r in range(table.rowCount())
                for c in range(table.columnCount()) if table.item(r, c)]
    return flat(" ".join(out))


def strings_of(value) -> list[str]:
    """Every string in a result (what result.json says in words)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings_of(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in strings_of(v)]
    return []


#: "Best possible attacker" is the one name of the Neyman–Pearson test; "optimal" survives only
#: inside its technical name and in "optimal composition" (another thing).
SECOND_NAME = re.compile(r"(?<!Neyman–Pearson )\boptimal (\(?informed\)? )?(attack|one)",
                         re.IGNORECASE)


def test_the_best_possible_attacker_has_one_name_on_every_page(mechanism_run, qtbot):
    from gui.widgets.mechanism_results import MechanismResultsView

    result, pdf = mechanism_run
    view = shown(MechanismResultsView, result, qtbot)
    screen = screen_text(view)
    assert "What if? The best possible attacker as the setting changes" in screen
    from engine.audits.mechanism import MechanismConfig
    from engine.estimates import estimate

    asked = " ".join(p.what for p in estimate(MechanismConfig(**MECHANISM)).parts)
    for where, text in (("screen", screen), ("result.json", " ".join(strings_of(result))),
                        ("PDF", pdf), ("estimate", asked)):
        hit = SECOND_NAME.search(text)
        assert hit is None, (where, text[max(0, hit.start() - 80):hit.end() + 40])


# --------------------------------------------------------------------------- rates in %

def percent_text(text: str) -> str:
    """"56.0 %" (the results page) and "56.0%" (the PDF) read alike."""
    return re.sub(r"(\d) %", r"\1%", text)


#: A balanced accuracy or an accuracy bound written as a fraction ("0.560") where every other
#: place writes it in %.
ACCURACY_AS_FRACTION = re.compile(r"(?i)(balanced accuracy|accuracy of|at most|accuracy)"
                                  r"[:\s]*\(?0\.\d{3}\b")


def test_accuracies_are_in_percent_on_the_page_in_result_json_and_in_the_pdf(gappy_model_run,
                                                                            qtbot):
    from gui.widgets.model_results import ModelResultsView

    _, result, pdf = gappy_model_run
    view = shown(ModelResultsView, result, qtbot)
    screen, pdf = percent_text(screen_text(view)), percent_text(pdf)
    bound = result["theory"]["btta_bound"]
    statement = bound["roc"]["statement"]
    assert f"{bound['roc']['accuracy']:.1%}" in statement
    for where, text in (("screen", screen), ("statement", statement), ("PDF", pdf)):
        hit = ACCURACY_AS_FRACTION.search(text)
        assert hit is None, (where, text[max(0, hit.start() - 80):hit.end() + 40])
    for attack in result["attacks"]:
        said = f"{attack['accuracy']:.1%}"
        assert said in screen and said in pdf, (attack["name"], said)
    assert f"Thm 2 bound on balanced accuracy: {bound['balanced_accuracy_bound']:.1%}" in pdf


@pytest.mark.long
def test_location_report_writes_accuracies_and_names_as_the_page_does(location_run, qtbot):
    from gui.widgets.location_results import LocationResultsView

    result, pdf = location_run
    view = shown(LocationResultsView, result, qtbot)
    screen = screen_text(view)
    assert "Best possible attacker (exact theory)" in screen
    assert "Best possible attacker (exact theory)" in pdf
    for text in (screen, " ".join(strings_of(result))):
        assert not SECOND_NAME.search(text), SECOND_NAME.search(text)
    pdf = percent_text(pdf)
    hit = ACCURACY_AS_FRACTION.search(pdf)
    assert hit is None, pdf[max(0, hit.start() - 80):hit.end() + 40]
    screen = percent_text(screen)
    for attack in result["attacks"]:
        reps = attack["details"]["repetitions"]
        spread = f"{reps['accuracy_mean']:.1%} ± {100 * reps['accuracy_sd']:.1f} points"
        assert spread in pdf and spread in screen, spread      # the summary's words
    for text in (screen, " ".join(strings_of(result))):
        hit = ACCURACY_AS_FRACTION.search(percent_text(text))
        assert hit is None, text[max(0, hit.start() - 80):hit.end() + 40]
        assert not re.search(r"ranged 0\.\d{3}", text)
    assert not SECOND_NAME.search(pdf)


@pytest.mark.long
def test_the_estimate_says_the_target_k_the_run_finds(location_run):
    """The estimate shown before the run names the target's k as the run finds it when it is
    asked for, and only as a ceiling ("k up to …") when the most exposed person is wanted."""
    from engine.audits.location import LocationConfig
    from engine.estimates import estimate

    result, _ = location_run
    k = result["theory"]["observations"]

    def said(**changes) -> str:
        config = LocationConfig(**dict(LOCATION, **changes))
        return next(p.what for p in estimate(config).parts if "aggregates on" in p.what)

    assert f"(target with k = {k:,} observations)" in said()
    ceiling = re.search(r"target with k up to ([\d,]+) observations", said(target="most_exposed"))
    assert ceiling, said(target="most_exposed")
