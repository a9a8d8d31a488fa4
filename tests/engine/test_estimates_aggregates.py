"""The count-tables audit's cost estimate (engine/estimates/aggregates.py, issue 11): finite for
the demo, growing with every size that drives the run, a run that cannot fit refused with the
setting to lower. Nothing is run here; how close the estimates come to measured runs is
bench/bench_estimates.py's job."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.audits.registry import demo_config
from engine.estimates import estimate, preflight
from engine.estimates.aggregates import released, shape, targets


@pytest.fixture(scope="module")
def demo():
    return demo_config("aggregates")


def _synthetic(demo, **kw):
    """The demo's settings on the synthetic census block (sizes set in the config)."""
    return replace(demo, data="", auxiliary="", schema={}, sensitive="", release_options={},
                   **kw)


def test_the_demo_has_a_finite_estimate_with_every_step(demo):
    cost = estimate(demo)
    assert cost.audit_type == "aggregates"
    assert 0 < cost.seconds < 3600 and 0 < cost.peak_bytes < 16e9
    names = {p.name for p in cost.parts}
    assert {"deterministic", "stochastic", "cip", "membership",
            "membership_stochastic"} <= names
    assert all(p.what and p.setting and p.seconds >= 0 and p.bytes >= 0 for p in cost.parts)
    assert cost.sentence().startswith(("About ", "Under 10 seconds"))


def test_sizes_come_from_the_config_and_the_release(demo):
    sh = shape(demo)                                   # the bundled CSV's first megabyte
    assert sh.n == 450 and sh.n_aux == 4000 and sh.k == 2
    assert sh.candidates == 460                        # P12, P12A–G, P12H, P12I × 46 cells
    assert released(sh, demo.fraction) == 112          # m = 0.25·|D|
    assert released(sh, 0.0) == 460
    assert targets(demo, sh) == demo.max_targets
    syn = shape(_synthetic(demo, census_records=1000, census_auxiliary=9000))
    assert syn.n == 1000 and syn.n_aux == 9000 and syn.k == 7 and syn.candidates == 368


def test_estimates_grow_with_what_drives_them(demo):
    base = estimate(demo)
    grows = [dict(n_shadow=4 * demo.n_shadow), dict(max_targets=2 * demo.max_targets),
             dict(reconstructions=5 * demo.reconstructions), dict(fraction=1.0),
             dict(attacks=(*demo.attacks, "rap_rand")), dict(attacks=(*demo.attacks,
                                                                       "likelihood")),
             dict(sweep_fractions=(0.1, 0.5)), dict(sweep_epsilons=(1.0, 0.1)),
             dict(mia_attacks=(*demo.mia_attacks, "rap_rand_mia"))]
    for kw in grows:
        assert estimate(replace(demo, **kw)).seconds > base.seconds, kw
    assert estimate(replace(demo, membership=False)).seconds < base.seconds
    assert estimate(replace(demo, mechanism="laplace")).seconds >= base.seconds   # CIP's L1
    assert estimate(replace(demo, n_shadow=10 * demo.n_shadow)).peak_bytes > base.peak_bytes
    small = estimate(_synthetic(demo, census_records=300, census_auxiliary=2700))
    big = estimate(_synthetic(demo, census_records=3000, census_auxiliary=27000))
    assert big.seconds > small.seconds and big.peak_bytes > small.peak_bytes


def test_a_solver_time_limit_bounds_the_solver_steps(demo):
    slow = replace(demo, attacks=("desia", "cip_rand"), membership=False)
    free = estimate(replace(slow, solver_time_limit=3600)).seconds_of("deterministic", "cip")
    capped = estimate(replace(slow, solver_time_limit=0.1)).seconds_of("deterministic", "cip")
    assert capped <= free


def test_a_published_table_has_an_estimate(demo):
    config = replace(demo, release="published", data="resources/aggregates/sample_auxiliary.csv",
                     auxiliary="", published_records=450,
                     release_options={"path": "resources/aggregates/sample_published_p_tables.csv"})
    cost = estimate(config)
    assert "published" in {p.name for p in cost.parts}
    assert "membership" not in {p.name for p in cost.parts}
    assert 0 < cost.seconds < 3600


def test_a_huge_run_is_refused_naming_the_setting_to_lower(demo):
    # Every 1- and 2-way marginal (1,563 counts) and a million shadow datasets: the shadows
    # hold only each target's own cells (issue 22 item 5), about 2 GB with the classifier's
    # copies rather than the 12.5 GB of whole tables, so a machine with 1 GB free refuses it.
    shadows = replace(demo, n_shadow=1_000_000, fraction=0.0, release="marginals",
                      release_options={})
    check = preflight(estimate(shadows), available=1e9)
    assert check.refusal is not None and check.refusal.key == "n_shadow"
    rap = _synthetic(demo, census_records=50_000, census_auxiliary=450_000, fraction=0.25,
                     attacks=("desia", "rap_rand"), membership=False, reconstructions=1000)
    check = preflight(estimate(rap), available=16e9)
    assert check.refusal is not None and check.refusal.key == "reconstructions"
    assert preflight(estimate(demo), available=16e9).refusal is None


def _zip_files(tmp_path, values: int, rows: int = 1000):
    """A CSV (and an auxiliary one) whose 'zip' column is a whole number drawn from ``values``
    consecutive ones: the audit's inferred schema sizes it by its range."""
    import numpy as np

    paths = []
    for name, seed in (("people.csv", 1), ("aux.csv", 2)):
        g = np.random.default_rng(seed)
        lines = ["zip,sex,smoker"] + [f"{10_000 + z},{s},{k}" for z, s, k in zip(
            g.integers(0, values, rows), g.choice(["F", "M"], rows),
            g.choice(["yes", "no"], rows), strict=True)]
        (tmp_path / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(str(tmp_path / name))
    return paths


def _marginals(demo, data, aux, **kw):
    return replace(demo, data=data, auxiliary=aux, **{"schema": {}, **kw}, sensitive="smoker",
                   release="marginals", release_options={"ways": [1, 2]})


def _zip_as_quasi_identifier(data, aux) -> dict:
    from engine.data.microdata import infer_schema_from_csvs
    return infer_schema_from_csvs([data, aux]).with_roles(
        sensitive="smoker", quasi_identifiers=["zip", "sex"]).to_dict()


def test_without_a_schema_the_estimate_sizes_the_roles_the_run_will_propose(demo, tmp_path):
    """Issue 33 item 4: a config without a [schema] gets the roles the count-table page
    proposes for the file; the 10,000-value zip is left out by the run (its warning says so)
    and so by the estimate (no warning about it, no record space multiplied by it)."""
    from engine.games.aggregates_data import load_data
    data, aux = _zip_files(tmp_path, 10_000)
    config = _marginals(demo, data, aux)
    sh = shape(config)
    assert "zip" not in dict(sh.qi_domains) and sh.record_space == 2 * 2    # sex × smoker
    assert not [n for n in preflight(estimate(config)).notes if "Column 'zip'" in n]
    loaded = load_data(config)
    assert loaded.protected.schema.quasi_identifiers == ("sex",)
    said = " ".join(loaded.inputs[0]["read_as"])
    assert "no [schema]" in said and "left out: zip" in said and "smoker" in said


def test_a_quasi_identifier_with_10000_values_is_warned_about_before_the_run(demo, tmp_path):
    """Issue 18: a 10,000-value quasi-identifier was accepted silently and ran far past its
    estimate. Without a schema the estimate left the column out (a value in nearly every row
    of the sample) although the audit's inferred schema keeps it as a whole number over its
    range; now the estimate sizes it as the audit will and says to bin it."""
    data, aux = _zip_files(tmp_path, 10_000)
    # Chosen as a quasi-identifier (without a [schema] the roles proposed for the file leave
    # a 10,000-value column out: the next test).
    config = _marginals(demo, data, aux, schema=_zip_as_quasi_identifier(data, aux))
    sh = shape(config)
    zip_values = dict(sh.qi_domains)["zip"]
    assert 9_000 < zip_values <= 10_000
    assert sh.record_space == zip_values * 2 * 2            # zip × sex × smoker
    check = preflight(estimate(config))
    said = [n for n in check.notes if "Column 'zip' has" in n]
    assert len(said) == 1 and f"{zip_values:,} different values" in said[0]
    assert "most people are unique on it" in said[0] and "bins" in said[0]
    assert check.question is None or said[0] in check.question
    # The solver steps follow the number of values: ten times fewer, far shorter.
    (tmp_path / "few").mkdir()
    few = _zip_files(tmp_path / "few", 1_000)
    fewer = estimate(_marginals(demo, *few, schema=_zip_as_quasi_identifier(*few)))
    assert fewer.seconds_of("deterministic") * 10 < estimate(config).seconds_of("deterministic")
    assert not [n for n in fewer.notes if "Column 'zip'" in n]


def test_a_schema_with_many_categories_is_warned_about_and_the_demo_is_not(demo):
    assert estimate(demo).notes == ()                        # age 0–115, 116 values: fine
    config = replace(demo, schema=_many_zip_schema(), sensitive="smoker", release="marginals",
                     release_options={"ways": [1, 2]})
    notes = estimate(config).notes
    assert len(notes) == 1 and notes[0].startswith("Column 'zip' has 2,000 different values")
    # 450 records over 2,000 values: exp(−449/2000) ≈ 0.8 of them alone on their value.
    assert "most people are unique on it" in notes[0]


def _many_zip_schema(values: int = 2_000) -> dict:
    return {"schema_version": 1, "columns": [
        {"name": "zip", "role": "quasi_identifier", "kind": "categorical",
         "categories": [f"z{i:05d}" for i in range(values)]},
        {"name": "sex", "role": "quasi_identifier", "kind": "categorical",
         "categories": ["F", "M"]},
        {"name": "smoker", "role": "sensitive", "kind": "categorical",
         "categories": ["no", "yes"]}]}


def test_the_command_line_prints_the_warning_before_the_run(demo, tmp_path, monkeypatch,
                                                            capsys):
    import engine.estimates as est
    import main
    from engine.project import config_to_toml

    config = replace(demo, schema=_many_zip_schema(), sensitive="smoker", release="marginals",
                     release_options={"ways": [1, 2]})
    path = tmp_path / "zip.toml"
    path.write_text(config_to_toml(config.to_dict()), encoding="utf-8")
    monkeypatch.setattr(est, "CONFIRM_SECONDS", 0.0)      # stop before the run: no --yes
    assert main.main(["run", str(path), "--out", str(tmp_path / "out"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "warning: Column 'zip' has 2,000 different values" in err and "bins" in err
    assert not (tmp_path / "out").exists()


def _deterministic(cost) -> float:
    return sum(p.seconds for p in cost.parts if p.name == "deterministic")


def test_an_exact_release_is_estimated_with_the_shortcuts_costs_and_a_noisy_one_without(
        demo, monkeypatch):
    # An exact release's targets take the auditor's shortcut from the true table (its own
    # measured table, witness_seconds); a noisy release solves as published (det_seconds).
    from engine.estimates import calibration

    exact = _synthetic(demo, mechanism="none", attacks=["desia"])
    noisy = _synthetic(demo, mechanism="laplace", epsilon=1.0, attacks=["desia"])
    before = _deterministic(estimate(exact)), _deterministic(estimate(noisy))
    monkeypatch.setitem(calibration.AGGREGATES, "witness_seconds",
                        [[w, 3.0 * t] for w, t in calibration.AGGREGATES["witness_seconds"]])
    after = _deterministic(estimate(exact)), _deterministic(estimate(noisy))
    assert after[0] == pytest.approx(3.0 * before[0], rel=1e-9)
    assert after[1] == before[1]


def test_the_membership_best_of_counts_its_rehearsal_on_the_attackers_stand_ins():
    """best_of_mia plays its two candidates on the targets and, first, the membership check
    and both candidates on 30 stand-ins of the attacker's own (engine.games.aggregates
    .choose_membership_on_shadow_game): the estimate names that rehearsal and costs more than
    the candidates alone."""
    config = demo_config("aggregates")
    candidates = replace(config, mia_attacks=("desia_mia_stochastic_only", "cip_rand_mia"))
    combined = replace(config, mia_attacks=("best_of_mia",))
    plain = estimate(candidates, slowdown=1.0, machine=False)
    best = estimate(combined, slowdown=1.0, machine=False)
    assert best.seconds > plain.seconds
    assert any(p.what.startswith("Best-of rehearsal: Membership game") for p in best.parts)


@pytest.mark.parametrize("case", ["sample", "census Laplace", "census 2-way marginals",
                                  "sample 2-way marginals with noise"])
def test_the_targets_estimated_are_the_targets_the_game_attacks(demo, case):
    """Issue 33 item 5: the estimate assumed 29 unique targets where the game attacked 49 —
    now they are counted on the data as the game loads it (engine.games.aggregates.setup_game),
    here with no limit on the targets and with one below their number."""
    from engine.games.aggregates import setup_game

    marginals = dict(release="marginals", release_options={"ways": [1, 2]})
    config = {"sample": replace(demo, max_targets=10_000),
              "census Laplace": _synthetic(demo, census_records=300, census_auxiliary=2700,
                                           mechanism="laplace", max_targets=10_000),
              "census 2-way marginals": replace(
                  _synthetic(demo, census_records=150, census_auxiliary=1350,
                             max_targets=10_000), **marginals),
              "sample 2-way marginals with noise": replace(
                  demo, mechanism="laplace", max_targets=10_000, **marginals)}[case]
    game, _ = setup_game(config, "aggregates-aia")
    assert targets(config, shape(config)) == game.targets.size == game.unique_records
    fewer = replace(config, max_targets=game.targets.size // 2)
    assert targets(fewer, shape(fewer)) == setup_game(fewer, "aggregates-aia")[0].targets.size


def test_solves_on_marginals_cost_more_than_on_the_p_tables_of_the_same_size(demo):
    """One solve on 1- and 2-way marginals took ~7.5 times the P-tables' at the same model
    size (engine.estimates.aggregates.MARGINALS_SOLVE_FACTOR): the solver steps count it."""
    from engine.estimates.aggregates import MARGINALS_SOLVE_FACTOR, cip_seconds, infer_seconds

    tables = replace(demo, mechanism="laplace")
    marginals = replace(tables, release="marginals", release_options={"ways": [1, 2]})
    sh_t, sh_m = shape(tables), shape(marginals)
    assert sh_t.solve_factor == 1.0 and sh_m.solve_factor == MARGINALS_SOLVE_FACTOR
    same = replace(sh_t, solve_factor=MARGINALS_SOLVE_FACTOR)
    assert cip_seconds(same, 100, 1e9, True) == pytest.approx(
        MARGINALS_SOLVE_FACTOR * cip_seconds(sh_t, 100, 1e9, True))
    assert infer_seconds(same, 100, 1e9) == pytest.approx(
        MARGINALS_SOLVE_FACTOR * infer_seconds(sh_t, 100, 1e9))
    # ... up to the solver's time limit: a solve never counts more than its limit and build.
    assert cip_seconds(same, 100, 1e-3, True) <= cip_seconds(same, 100, 1e9, True)
