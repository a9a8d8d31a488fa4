"""The disclosure rules (issue 34 item 2; engine.rules): each rule on a tiny hand-made table
whose answer is known by construction, the settings' checks, the per-target comparison and
the policy's verdict, and the typed reader (old results without the block included)."""

from __future__ import annotations

import numpy as np
import pytest

from engine.aggregates.queries import CountingQuery
from engine.data.errors import InputError
from engine.results.aggregates import load_theory
from engine.results.aggregates_rules import RulesBlock
from engine.rules import (
    RULES,
    RuleSettings,
    cells_from_counts,
    cells_from_microdata,
    checks,
    compare_targets,
    confident_right,
    disagreement,
    failures_by_cell,
    follow_policy,
    holding_cells,
    rules_block,
)
from engine.rules.differencing import nested, total_minus_siblings

# Columns: a (3 values, a quasi-identifier), b (2 values), s (sensitive, 2 values).
SIZES = (3, 2, 2)
A, B, S = 0, 1, 2


def q(label, **conds) -> CountingQuery:
    col = {"a": A, "b": B, "s": S}
    return CountingQuery(tuple((col[k], frozenset(v if isinstance(v, (set, frozenset))
                                                  else {v})) for k, v in conds.items()),
                         label=label, table=label.split(":")[0])


def records(*groups) -> np.ndarray:
    """Rows (a, b, s) repeated: records((0, 0, 1, 12), ...) = 12 people a=0, b=0, s=1."""
    return np.array([(a, b, s) for a, b, s, k in groups for _ in range(k)], dtype=np.int32)


def cells_of(queries, codes, values=None):
    return cells_from_microdata(queries, codes, S, SIZES[S], values=values)


def failing(found) -> dict[int, str]:
    return {f.cell: f.reason for f in found}


# ------------------------------------------------------------------- each rule

def test_threshold_flags_cells_of_one_to_threshold_minus_one_people():
    codes = records((0, 0, 0, 3), (1, 0, 0, 10), (2, 0, 0, 9))
    qs = [q("T: a=0", a=0), q("T: a=1", a=1), q("T: a=2", a=2), q("T: b=1", b=1)]
    found = failing(checks.threshold(cells_of(qs, codes), RuleSettings()))
    # 3 and 9 are under 10; 10 is not; the empty cell b=1 is the zeros rule's, not this one's
    assert set(found) == {0, 2}
    assert "3 people" in found[0] and "threshold of 10" in found[0]
    assert set(failing(checks.threshold(cells_of(qs, codes), RuleSettings(threshold=4)))) == {0}


def test_zeros_are_flagged_unless_the_officer_allows_them():
    codes = records((0, 0, 0, 12), (1, 0, 1, 12))
    qs = [q("T: a=0", a=0), q("T: a=2", a=2), q("T: a=0, s=1", a=0, s=1)]
    found = failing(checks.zeros(cells_of(qs, codes), RuleSettings()))
    assert set(found) == {1, 2}
    assert "do not have the value" in found[2]       # a zero naming a sensitive value
    assert checks.zeros(cells_of(qs, codes), RuleSettings(zeros_disclosive=False)) == []


def test_group_disclosure_when_everyone_in_the_group_shares_the_value():
    # a=0: 12 people, all s=1 (a group of 12: the threshold passes, the group rule fails);
    # a=1: 20 people, 10 and 10 (passes).
    codes = records((0, 0, 1, 12), (1, 0, 0, 10), (1, 1, 1, 10))
    qs = [q("T: a=0, s=1", a=0, s=1), q("T: a=1, s=1", a=1, s=1), q("T: a=0", a=0)]
    cells = cells_of(qs, codes)
    assert checks.threshold(cells, RuleSettings()) == []
    found = failing(checks.group(cells, RuleSettings()))
    assert set(found) == {0}                 # the cell without a sensitive value is not one
    assert "all 12 people" in found[0]
    assert checks.group(cells, RuleSettings(group_disclosure=False)) == []


def test_group_disclosure_from_published_counts_needs_the_group_shown():
    qs = [q("T: a=0, s=0", a=0, s=0), q("T: a=0, s=1", a=0, s=1),   # every value: group shown
          q("T: a=1, s=1", a=1, s=1)]                               # group not shown
    cells = cells_from_counts(qs, [0, 12, 15], S, SIZES[S])
    assert list(np.isnan(cells.group_count)) == [False, False, True]
    assert set(failing(checks.group(cells, RuleSettings()))) == {1}


def test_nested_cells_differing_by_a_small_group_both_fail():
    # A = a∈{0,1} (15 people) holds B = a=0 (12): A − B = 3 people with a=1.
    codes = records((0, 0, 0, 6), (0, 1, 1, 6), (1, 0, 0, 3), (2, 0, 0, 40))
    qs = [q("T: a=0|1", a={0, 1}), q("T: a=0", a=0), q("T: a=2", a=2)]
    cells = cells_of(qs, codes)
    found = failing(nested(cells, SIZES, None, 10))
    assert set(found) == {0, 1}
    assert "3 people" in found[0] and "T: a=0" in found[0]
    assert nested(cells, SIZES, None, 3) == []       # 3 is not under a threshold of 3
    # the total (|D| = 55) minus a=2 (40) leaves 15, minus the others more: not small
    assert set(failing(nested(cells, SIZES, 55.0, 10))) == {0, 1}
    # a cell holding all but 3 people of the total fails against the total
    assert set(failing(nested(cells, SIZES, 43.0, 10))) == {0, 1, 2}


def test_total_minus_published_siblings_recovers_the_suppressed_cell():
    # a=0 and a=1 are published (20 each), a=2 (2 people) is not: |D| − 20 − 20 = 2.
    codes = records((0, 0, 0, 20), (1, 0, 0, 20), (2, 1, 1, 2))
    qs = [q("T: a=0", a=0), q("T: a=1", a=1)]
    cells = cells_of(qs, codes)
    assert nested(cells, SIZES, 42.0, 10) == []      # no pair nests, the total minus one: 22
    found = failing(total_minus_siblings(cells, SIZES, 42.0, 10))
    assert set(found) == {0, 1} and "the total minus 2 published cells" in found[0]
    # a parent cell split along a: b=1 (27 people) holds a=0 (11) and a=1 (12), published,
    # and a=2 (4), not published
    qs2 = [q("T: b=1", b=1), q("T: b=1, a=0", b=1, a=0), q("T: b=1, a=1", b=1, a=1)]
    codes2 = records((0, 1, 0, 11), (1, 1, 0, 12), (2, 1, 1, 4), (2, 0, 0, 30))
    found2 = failing(total_minus_siblings(cells_of(qs2, codes2), SIZES, None, 10))
    assert set(found2) == {0} and "4 people" in found2[0]    # 27 − 11 − 12 = 4, on the parent


def test_dominance_and_p_ratio_on_cells_as_sums():
    codes = records((0, 0, 0, 3), (1, 0, 0, 12))
    values = np.array([100.0, 1.0, 1.0] + [10.0] * 12)
    qs = [q("T: a=0", a=0), q("T: a=1", a=1)]
    cells = cells_of(qs, codes, values)
    # a=0: the two largest make 101/102 = 99 % > 90 %; the rest 1 < 10 % of 100
    dom = failing(checks.dominance(cells, RuleSettings()))
    assert set(dom) == {0} and "99.0%" in dom[0]
    assert set(failing(checks.p_ratio(cells, RuleSettings()))) == {0}
    # a=1: twelve equal contributions, 20/120 = 17 %: passes both
    assert set(failing(checks.dominance(cells, RuleSettings(dominance_n=1, dominance_k=8.0)))
               ) == {0, 1}                  # the largest alone: 100/102 and 10/120 > 8 %
    assert checks.dominance(cells_of(qs, codes), RuleSettings()) is None   # no value column


# ------------------------------------------------------------------- settings

@pytest.mark.parametrize(("d", "key", "words"), [
    ({"threshold": 0}, "rules.threshold", "from 1 to 1000"),
    ({"threshold": 2.5}, "rules.threshold", "whole number"),
    ({"dominance_n": 11}, "rules.dominance_n", "from 1 to 10"),
    ({"dominance_k": 0}, "rules.dominance_k", "(0, 100]"),
    ({"p_ratio": 101}, "rules.p_ratio", "from 0 to 100"),
    ({"policy_follows": "officer"}, "rules.policy_follows", "attacks, rules, both"),
    ({"zeros_disclosive": "yes"}, "rules.zeros_disclosive", "true or false"),
    ({"value_column": 3}, "rules.value_column", "column name"),
    ({"thresold": 5}, "rules.thresold", "unknown key"),
])
def test_settings_out_of_range_name_the_key_and_the_range(d, key, words):
    with pytest.raises(InputError) as err:
        RuleSettings.from_dict(d, "config.toml")
    assert err.value.key == key and words in str(err.value) and key in str(err.value)


def test_settings_round_trip_and_acro_defaults():
    s = RuleSettings()
    assert (s.threshold, s.zeros_disclosive, s.dominance_n, s.dominance_k, s.p_ratio) == \
        (10, True, 2, 90.0, 10.0)
    t = RuleSettings.from_dict({"threshold": 5, "value_column": " income ",
                                "policy_follows": "both"})
    assert RuleSettings.from_dict(t.to_dict()) == t and t.value_column == "income"


def test_the_audit_config_checks_and_round_trips_the_rules():
    from engine.audits.aggregates import AggregatesConfig
    c = AggregatesConfig.from_dict({"rules": {"threshold": 5, "policy_follows": "rules"}})
    assert c.rules["threshold"] == 5 and c.rules["dominance_k"] == 90.0
    assert AggregatesConfig.from_dict(c.to_dict()).rules == c.rules
    assert AggregatesConfig().rules == RuleSettings().to_dict()
    with pytest.raises(InputError) as err:
        AggregatesConfig.from_dict({"rules": {"threshold": 0}})
    assert err.value.key == "rules.threshold"


# ------------------------------------------------------------------- rules vs attacks

def test_confident_right_needs_the_single_top_guess_and_most_of_the_weight():
    truth = np.array([0, 1, 1, 0])
    scores = {"coin": np.array([[0.6, 0.4], [0.5, 0.5], [0.0, 1.0], [0.2, 0.8]]),
              "data_only": np.array([[1.0, 0.0]] * 4)}
    found, who = confident_right(scores, truth, exclude=("data_only",))
    # 0.6 is right but not confident; a tie is no guess; 1.0 on the truth is; wrong is not
    assert found.tolist() == [False, False, True, False] and who[2] == "coin"
    found, who = confident_right(scores, truth)
    assert found.tolist() == [True, False, True, True] and who[0] == "data_only"


def test_targets_and_disagreement_counts():
    codes = records((0, 0, 1, 12), (1, 0, 0, 3), (1, 1, 1, 3), (2, 0, 0, 20), (2, 1, 1, 20))
    qs = [q("T: a=0, s=1", a=0, s=1), q("T: a=1", a=1), q("T: a=2", a=2)]
    cells = cells_of(qs, codes)
    checked = failures_by_cell(cells, RuleSettings(), SIZES, float(len(codes)))
    assert checked[0] == [["group"], ["threshold"], []]
    targets_codes = np.array([[0, 0, 1], [1, 0, 0], [2, 0, 0], [2, 1, 1]])
    holds = holding_cells(qs, targets_codes, S)
    assert holds.tolist() == [[True, False, False, False], [False, True, False, False],
                              [False, False, True, True]]
    proves = np.array([True, False, True, False])
    found = np.array([True, False, True, False])
    targets = compare_targets(["record 1", "record 13", "record 19", "record 40"], holds,
                              checked[0], cells.labels, cells.tables, proves, found,
                              [None, None, "desia", None])
    assert [t["agreement"] for t in targets] == ["both_flag", "rules_fail_no_attack",
                                                 "rules_pass_attack_proves", "both_pass"]
    assert targets[1]["failed"] == ["threshold"] and targets[1]["cells"] == ["T (1 cell)"]
    listed = compare_targets(["record 13"], holds[:, 1:2], checked[0], cells.labels,
                             cells.tables, proves[:1] & False, found[:1] & False, [None],
                             listed=True)
    assert listed[0]["cells"] == ["T: a=1"]
    d = disagreement(targets)
    assert (d["both_flag"], d["rules_pass_attack_proves"], d["rules_fail_no_attack"],
            d["both_pass"]) == (1, 1, 1, 1)
    block = rules_block(cells, RuleSettings(), checked, targets=targets, disagreement=d,
                        seconds=0.01)
    assert block["summary"]["failed_cells"] == 2 and not block["summary"]["passes"]
    assert block["summary"]["by_rule"]["dominance"] is None        # no value column
    assert [t["failed"] for t in block["tables"]] == [2]


def _block(passes: bool, follows: str) -> dict:
    return {"policy_follows": follows, "followed_sentence": "",
            "summary": {"passes": passes, "failed_cells": 0 if passes else 3}}


def test_the_attacks_verdict_is_never_replaced_silently():
    verdict = {"level": "low", "reasons": ["the attacks' reason"]}
    b = _block(False, "attacks")
    assert follow_policy(verdict, b) is verdict and "follows the attacks" in \
        b["followed_sentence"]
    b = _block(False, "both")
    out = follow_policy(verdict, b)
    assert out["level"] == "high" and out["decided_by"] == "rules"
    assert "the attacks alone: low" in out["reasons"][-1] and verdict["level"] == "low"
    # passing rules never lower the attacks' level, whichever the policy follows
    out = follow_policy({"level": "medium", "reasons": []}, _block(True, "rules"))
    assert out["level"] == "medium" and out["decided_by"] == "attacks"
    assert follow_policy(verdict, None) is verdict


# ------------------------------------------------------------------- the typed reader

def test_typed_reader_round_trip_and_old_results():
    codes = records((0, 0, 1, 12), (1, 0, 0, 3))
    qs = [q("T: a=0, s=1", a=0, s=1), q("T: a=1", a=1)]
    cells = cells_of(qs, codes)
    checked = failures_by_cell(cells, RuleSettings(), SIZES, 15.0)
    targets = compare_targets(["record 1"], holding_cells(qs, codes[:1], S), checked[0],
                              cells.labels, cells.tables, np.array([True]),
                              np.array([True]), [None])
    block = rules_block(cells, RuleSettings(), checked, targets=targets,
                        disagreement=disagreement(targets), seconds=0.5)
    b = RulesBlock.from_dict(block)
    assert b.to_dict() == block and b.seconds == 0.5
    assert b.summary.failed_cells == 2 and b.tables[0].count("threshold") == 1
    assert b.targets[0].agreement == "both_flag" and b.parameters.threshold == 10
    assert b.disagreement.both_flag == 1 and not b.summary.ran("p_ratio")
    theory = load_theory({"rules": block}, {})
    assert theory.rules == b
    assert load_theory({"game": {"sensitive": "s"}}, {}).rules is None     # an old result
    assert load_theory({"rules": None}, {}).rules is None                  # rules off
    assert [name for name, _ in RULES] == ["threshold", "zeros", "group", "differencing",
                                           "dominance", "p_ratio"]
