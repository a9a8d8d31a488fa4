"""The combination attack on count tables (engine.attacks.aggregates.best_of, issue 22 item 3):
proofs first, then the better of the stochastic module and CIP-rand, chosen on a shadow game
the attacker plays on its auxiliary sample — never on the targets."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from engine.attacks.aggregates import ATTRIBUTE_ATTACKS, BestOf, best_of
from engine.audits.aggregates import AggregatesConfig
from engine.games.aggregates import (
    choose_on_shadow_game,
    game_view,
    play_aia,
    record_space,
    released_per_target,
    setup_game,
)
from engine.wording import ATTACKS as WORDS

SMALL = dict(census_records=80, census_auxiliary=600, max_targets=6, n_shadow=300,
             reconstructions=2, solver_time_limit=2.0)


def test_choose_takes_the_candidate_with_the_higher_auc_on_the_open_stand_ins():
    truth = np.array([0, 1, 2, 0])
    right = np.eye(3)[truth]                       # ranks every truth first
    wrong = np.eye(3)[(truth + 1) % 3]             # ranks every truth last among the hits
    choice = best_of.choose({"a": wrong, "b": right}, truth, np.full(4, -1))
    assert choice.name == "b" and choice.judged_targets == 4
    assert choice.shadow_auc["b"] == 1.0 > choice.shadow_auc["a"]


def test_choose_judges_only_the_stand_ins_the_proofs_leave_open():
    truth = np.array([0, 1, 2, 0])
    # "a" is right on the two proved stand-ins only, "b" on the two open ones only.
    a = np.eye(3)[np.where([True, True, False, False], truth, (truth + 1) % 3)]
    b = np.eye(3)[np.where([True, True, False, False], (truth + 1) % 3, truth)]
    proved = np.array([0, 1, -1, -1])
    choice = best_of.choose({"a": a, "b": b}, truth, proved)
    assert choice.name == "b"
    assert (choice.judged_targets, choice.proved_targets) == (2, 2)


def test_a_tie_keeps_the_first_candidate():
    truth = np.array([0, 1, 2])
    same = np.full((3, 3), 1 / 3)
    assert best_of.choose({"a": same, "b": same.copy()}, truth, np.full(3, -1)).name == "a"
    assert best_of.choose({"b": same, "a": same.copy()}, truth, np.full(3, -1)).name == "b"


def test_combine_makes_proved_values_certain_and_keeps_the_rest():
    scores = np.array([[0.2, 0.5, 0.3], [0.6, 0.3, 0.1]])
    out = best_of.combine(np.array([2, -1]), scores)
    assert out[0].tolist() == [0.0, 0.0, 1.0]
    assert out[1].tolist() == scores[1].tolist()
    assert scores[0].tolist() == [0.2, 0.5, 0.3]          # the input is not changed


def test_the_combination_is_registered_named_and_in_the_standard_and_thorough_lists():
    from engine.audits import aggregates, presets

    entry = ATTRIBUTE_ATTACKS["best_of"]
    assert isinstance(entry, BestOf)
    assert set(entry.candidates) <= set(ATTRIBUTE_ATTACKS)
    assert WORDS["best_of"].plain_name.startswith("Best of proofs")
    table = {p.key: p for p in presets.presets("aggregates")}
    assert "best_of" in table["standard"].settings["attacks"]
    assert "best_of" in table["thorough"].settings["attacks"]
    assert "best_of" in aggregates.AggregatesConfig().attacks


def _shadow_game_inputs(seed=7):
    config = AggregatesConfig(**SMALL, seed=seed, attacks=("best_of",))
    game, g = setup_game(config, "aggregates-aia")
    s = game.codes.shape[1] - 1
    truth = g.integers(0, game.domain.sizes[s], game.targets.size)
    return config, game, truth


def test_the_stand_in_targets_are_unique_on_their_quasi_identifiers_and_seeded():
    config, game, truth = _shadow_game_inputs()
    view = game_view(config, game, released_per_target(config, game, truth), game.codes.shape[0])
    one = best_of.shadow_game(view, None, 10, config.seed)
    two = best_of.shadow_game(view, None, 10, config.seed)
    assert one is not None and one.truth.size == min(10, one.unique_records)
    assert np.array_equal(one.view.released, two.view.released)
    assert np.array_equal(one.truth, two.truth)
    s = view.sensitive_column
    # Each stand-in's release counts it with its re-drawn value: the stand-ins differ from
    # the real targets' releases, which the shadow game never reads.
    assert one.view.released.shape == (one.truth.size, len(view.queries))
    assert one.view.target_codes.shape[1] == s + 1


def test_stand_ins_come_from_several_datasets_when_one_has_too_few_unique_records():
    """An auxiliary sample that repeats records (the audit's default resamples the protected
    records with replacement) leaves few unique records in any one drawn dataset; the shadow
    game draws more datasets until it has its stand-ins (one dataset gave 2 to 5 of 30 on the
    public census table, and the choice went wrong in 2 of 7 repetitions)."""
    config, game, truth = _shadow_game_inputs()
    view = game_view(config, game, released_per_target(config, game, truth), game.codes.shape[0])
    # 300 records drawn from 9 copies of 80: ~4 copies of each, so ~7 unique a dataset.
    repeated = replace(view, aux_codes=np.repeat(game.codes, 9, axis=0), n_records=300)
    one = best_of.shadow_game(repeated, None, 20, config.seed)
    assert one is not None and one.truth.size == 20
    s = view.sensitive_column
    assert one.view.released.shape == (20, len(view.queries))
    # Each stand-in is unique in its own dataset: its release counts it once in the
    # quasi-identifier cells; the stand-ins' records are records of the auxiliary sample.
    aux_rows = {tuple(r) for r in repeated.aux_codes[:, :s]}
    assert all(tuple(r) in aux_rows for r in one.view.target_codes[:, :s])


def test_the_choice_never_reads_the_targets_values_or_releases():
    """Permuting the targets' secret values (so their releases change) leaves the shadow
    game's choice and everything it measured unchanged: the choice is made on the attacker's
    own stand-in targets only."""
    config, game, truth = _shadow_game_inputs()
    attack = replace(ATTRIBUTE_ATTACKS["best_of"], shadow_targets=8)
    space = record_space(game.domain)
    masks = [space.matches(q.conditions) for q in game.queries]
    n = game.codes.shape[0]
    other = (truth + 1 + np.arange(truth.size)) % game.domain.sizes[-1]
    assert not np.array_equal(truth, other)
    choices = []
    for values in (truth, other):
        view = game_view(config, game, released_per_target(config, game, values), n)
        choices.append(choose_on_shadow_game(config, game, view, attack, space,
                                             masks).to_dict())
    assert choices[0] == choices[1]
    assert choices[0]["shadow_targets"] == 8


def test_same_seed_same_combination_and_its_choice_is_reported():
    from engine.games.aggregates_scoring import evaluate

    config = AggregatesConfig(**SMALL, attacks=("desia", "best_of"))
    a, b = play_aia(config), play_aia(config)
    assert np.array_equal(a.scores["best_of"], b.scores["best_of"])
    assert a.details["best_of_choices"] == b.details["best_of_choices"]
    # Proved targets are certain, as in DeSIA.
    assert (a.scores["best_of"][a.determined].max(axis=1) == 1.0).all()
    entry = {e["name"]: e for e in evaluate(config, a)}["best_of"]
    chosen = entry["details"]["shadow_choice"]["chosen"]
    assert chosen in ATTRIBUTE_ATTACKS["best_of"].candidates
    # Only the attacks asked for are returned, though the candidates were played.
    assert set(a.scores) == {"desia", "best_of"}


# --------------------------------------------------------------------------- membership game

def test_membership_stand_ins_are_seeded_and_each_release_leaves_one_record_out():
    """The membership shadow game (Fig. 9 on the attacker's records): both bits drawn, each
    release exact counts on |D| records (one of the |D| + 1 drawn left out), the stand-ins records of
    the auxiliary sample, the same with the same seed; it reads neither the targets' records
    nor their releases (other ones give the same game)."""
    config, game, truth = _shadow_game_inputs()
    n = game.codes.shape[0] - 1
    view = game_view(config, game, released_per_target(config, game, truth), n)
    one = best_of.membership_shadow_game(view, None, 12, config.seed)
    two = best_of.membership_shadow_game(
        replace(view, released=view.released[::-1] + 1, target_codes=view.target_codes[::-1]),
        None, 12, config.seed)
    assert one is not None and one.truth.size == 12 and 0 < one.truth.sum() < 12
    assert np.array_equal(one.view.released, two.view.released)
    assert np.array_equal(one.truth, two.truth)
    # Exact counts on |D| records: whole numbers, none above |D|.
    released = one.view.released
    assert np.array_equal(released, np.round(released)) and released.max() <= n
    aux_rows = {tuple(r) for r in view.aux_codes}
    assert all(tuple(r) in aux_rows for r in one.view.target_codes)


def test_membership_choice_takes_the_higher_auc_on_the_open_stand_ins():
    member = np.array([1, 0, 1, 0, 1, 0])
    right, wrong = member.astype(float), 1.0 - member
    # "a" is right on the two proved stand-ins only, "b" on the four open ones.
    a = np.where([1, 1, 0, 0, 0, 0], right, wrong)
    b = np.where([1, 1, 0, 0, 0, 0], wrong, right)
    proved = np.array([1, 0, -1, -1, -1, -1])
    choice = best_of.choose_membership({"a": a, "b": b}, member, proved)
    assert choice.name == "b" and choice.shadow_auc["b"] == 1.0 > choice.shadow_auc["a"]
    assert (choice.judged_targets, choice.proved_targets) == (4, 2)
    tie = best_of.choose_membership({"b": right, "a": right.copy()}, member, np.full(6, -1))
    assert tie.name == "b"


def test_membership_combination_is_certain_where_proved():
    out = best_of.combine_membership(np.array([1, -1, 0]), np.array([0.2, 0.7, 0.9]))
    assert out.tolist() == [1.0, 0.7, 0.0]


# --------------------------------------------------------------------------- membership game, played
# best_of_mia in play_mia (issue 22 item 3): the proofs, then the better of DeSIA-MIA's
# stochastic module and CIP-rand's reconstruction share, chosen on the attacker's stand-ins.

MIA_SMALL = dict(census_records=80, census_auxiliary=600, n_shadow=300, reconstructions=2,
                 solver_time_limit=2.0)
MIA_CANDIDATES = ("desia_mia_stochastic_only", "cip_rand_mia")


def test_the_membership_combination_is_registered_named_and_offered():
    from engine.attacks.aggregates import MEMBERSHIP_ATTACKS
    from engine.audits import aggregates

    entry = MEMBERSHIP_ATTACKS["best_of_mia"]
    assert isinstance(entry, BestOf) and entry.candidates == MIA_CANDIDATES
    assert "best_of_mia" in aggregates.MIA_ATTACKS
    assert WORDS["best_of_mia"].plain_name == "Best of the presence checks"
    config = AggregatesConfig.from_dict({"mia_attacks": ["best_of_mia"]})
    assert config.mia_attacks == ("best_of_mia",)


def test_the_membership_combination_played_is_never_below_its_weaker_candidate():
    """Played end to end on a small table with both candidates beside it: its scores are the
    chosen candidate's with the proofs certain, its AUC on the targets is at least the chosen
    candidate's (the auditor's proofs are right, so they can only help) and so never below
    the weaker candidate's by more than its interval, and the entry keeps what it chose."""
    from engine.games.aggregates_membership import play_mia
    from engine.games.aggregates_scoring import evaluate_mia

    config = AggregatesConfig(**MIA_SMALL, max_targets=24, fraction=1.0,
                              mia_attacks=("best_of_mia", *MIA_CANDIDATES))
    outcome = play_mia(config)
    entries = {e["name"]: e for e in evaluate_mia(config, outcome)}
    choice = entries["best_of_mia"]["details"]["shadow_choice"]
    assert choice == outcome.details["best_of_choices"]["best_of_mia"]
    assert choice["chosen"] in MIA_CANDIDATES and set(choice["shadow_auc"]) == set(MIA_CANDIDATES)
    assert choice["shadow_targets"] == 30
    assert np.array_equal(outcome.scores["best_of_mia"], best_of.combine_membership(
        outcome.determined_value, outcome.scores[choice["chosen"]]))
    assert outcome.determined.any()          # the proofs settle some targets here
    best = entries["best_of_mia"]
    assert best["auc"] >= entries[choice["chosen"]]["auc"]
    weaker = min(entries[c]["auc"] for c in MIA_CANDIDATES)
    assert best["auc"] >= weaker - (best["auc_ci"][1] - best["auc_ci"][0]) / 2


def test_the_membership_choice_never_reads_the_targets_bits():
    """Shuffling the real targets' secret bits (so who is left out of each release changes)
    leaves the rehearsal's choice and everything it measured unchanged."""
    from engine.attacks.aggregates import MEMBERSHIP_ATTACKS
    from engine.attacks.aggregates import desia_witness as dw
    from engine.games.aggregates_membership import (
        choose_membership_on_shadow_game,
        released_per_member,
    )
    from engine.runtime import rng

    config = AggregatesConfig(**MIA_SMALL, max_targets=12, mia_attacks=("best_of_mia",))
    game, g = setup_game(config, "aggregates-mia")
    member = g.integers(0, 2, game.targets.size).astype(bool)
    shuffled = rng(99, "test-shuffle").permutation(member)
    assert not np.array_equal(member, shuffled)
    attack = replace(MEMBERSHIP_ATTACKS["best_of_mia"], shadow_targets=10)
    space = record_space(game.domain)
    masks = [space.matches(q.conditions) for q in game.queries]
    layout = dw.ReleaseLayout.of(space, masks, game.codes.shape[1] - 1)
    n = game.codes.shape[0] - 1
    choices, releases = [], []
    for bits in (member, shuffled):
        released, _ = released_per_member(config, game, bits, rng(config.seed, "test-drops"))
        releases.append(released)
        view = game_view(config, game, released, n)
        choices.append(choose_membership_on_shadow_game(config, game, view, attack, space,
                                                        masks, layout).to_dict())
    assert not np.array_equal(releases[0], releases[1])
    assert choices[0] == choices[1]
    assert choices[0]["shadow_targets"] == 10 and choices[0]["shadow_auc"]


def test_same_config_and_seed_give_the_same_membership_combination():
    from engine.games.aggregates_membership import play_mia

    config = AggregatesConfig(**MIA_SMALL, max_targets=12, mia_attacks=("best_of_mia",))
    a, b = play_mia(config), play_mia(config)
    assert np.array_equal(a.scores["best_of_mia"], b.scores["best_of_mia"])
    assert a.details["best_of_choices"] == b.details["best_of_choices"]
    assert a.details["best_of_choices"]["best_of_mia"]["shadow_auc"]
    # Only the attacks asked for are returned, though the candidates were played.
    assert set(a.scores) == {"best_of_mia"}


def test_cancel_stops_the_membership_rehearsal():
    """Cancel pressed while the combination rehearses on its stand-ins stops the game there:
    no later step of the rehearsal reports progress."""
    import pytest

    from engine.games.aggregates_membership import play_mia
    from engine.runtime import CancelToken, JobCancelled, Progress

    token = CancelToken()
    after: list[str] = []

    def seen(_fraction, message):
        if token.cancelled:
            after.append(message)
        elif "stand-ins" in message:
            token.cancel()

    config = AggregatesConfig(**MIA_SMALL, max_targets=12, mia_attacks=("best_of_mia",))
    with pytest.raises(JobCancelled):
        play_mia(config, progress=Progress(seen), cancel=token)
    assert token.cancelled
    assert not any("Stochastic" in m or "CIP" in m for m in after)


def test_the_membership_choice_is_in_result_json_and_said_in_the_report(tmp_path):
    """A real tiny audit with the combination: its result.json entry (under the membership
    game) keeps the choice and the stand-ins' AUCs, and the report says in one plain sentence
    which candidate it chose and why."""
    import json

    from engine.audits.aggregates import run
    from engine.report.pdf import build_story
    from engine.wording import shadow_choice_sentence
    from tests.engine.test_report_aggregates import story_text

    config = AggregatesConfig(**MIA_SMALL, max_targets=12, attacks=("desia_deterministic_only",),
                              mia_attacks=("best_of_mia", "desia_mia"))
    result = json.loads(json.dumps(run(config).to_dict()))
    entries = {a["name"]: a for a in result["theory"]["membership"]["attacks"]}
    choice = entries["best_of_mia"]["details"]["shadow_choice"]
    assert choice["chosen"] in MIA_CANDIDATES
    assert set(choice["shadow_auc"]) == set(MIA_CANDIDATES)
    assert "shadow_choice" not in entries["desia_mia"]["details"]
    sentence = shadow_choice_sentence(entries["best_of_mia"])
    chosen_words = WORDS[choice["chosen"]].plain_name.lower()
    assert sentence.startswith(f"The best of the presence checks chose the {chosen_words} "
                               "because it scored an AUC of")
    assert f"{choice['shadow_auc'][choice['chosen']]:.2f}" in sentence
    assert "never the real targets" in sentence
    assert build_story(result, False)
    assert sentence in story_text(result)


def test_the_membership_rehearsal_runs_on_the_games_executor_in_any_order():
    """The rehearsal's proofs, stochastic modules and reconstructions are units on the
    executor the game is given (each seeded by the config's seed and its own index): run last
    first on pickled copies they give the in-process numbers and the same choice."""
    from engine.games.aggregates_membership import play_mia
    from tests.engine.test_compute_units import ShuffledExecutor

    class Recording(ShuffledExecutor):
        def __init__(self):
            self.messages = []

        def map(self, unit, count, shared, **kwargs):
            self.messages.append(kwargs.get("message", ""))
            return super().map(unit, count, shared, **kwargs)

    config = AggregatesConfig(**MIA_SMALL, max_targets=12, mia_attacks=("best_of_mia",))
    executor = Recording()
    here, there = play_mia(config), play_mia(config, executor=executor)
    assert np.array_equal(here.scores["best_of_mia"], there.scores["best_of_mia"])
    assert here.details == there.details and there.computed_on == "a test executor"
    rehearsal = [m for m in executor.messages if "stand-ins" in m]
    assert rehearsal == ["Rehearsal on the attacker's own stand-ins: proofs"]
    # After the stand-ins' proofs, both candidates' units (stochastic, reconstructions).
    start = executor.messages.index(rehearsal[0])
    assert executor.messages[start + 1:] == ["Learning from similar public records: targets",
                                             "Reconstructions: targets"]


def test_the_attribute_combinations_choice_is_said_in_the_report_too():
    """The attribute game's best_of kept its choice in result.json only; the report now says
    it under the ranking table, in the same words as the membership one."""
    from tests.engine.test_report_aggregates import contract_result, story_text

    result = contract_result()
    entry = result["attacks"][0]
    entry["name"] = "best_of"
    entry["details"]["shadow_choice"] = {
        "chosen": "cip_rand", "shadow_auc": {"desia_stochastic_only": 0.6, "cip_rand": 0.7},
        "shadow_targets": 30, "judged_targets": 25, "proved_targets": 5}
    assert ("The best of proofs, rebuilding and learning chose the table rebuilder because it "
            "scored an AUC of 0.70 on 25 of the attacker's own stand-ins (people from its own "
            "sample, never the real targets), against 0.60 for the learned guesser from the "
            "counts.") in story_text(result)
