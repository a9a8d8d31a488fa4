"""Plain words first, the science one click away (issue 20).

One Qt-free place for the words a privacy officer reads:

* :data:`ATTACKS` — every attack of the four audit types: a plain name, one line on what that
  attacker does and knows, and the technical name with its paper reference. The plain name is
  shown first (results tables, verdict banner, summary, the report's first page); the technical
  name and reference go in the GUI's tooltip, the report's methods appendix and result.json.
* :data:`GLOSSARY` — the terms of the results pages, each with one plain explanation (the "?"
  beside a term on screen, and a page of the report); :func:`glossary_for` adds an audit's own
  terms (the count tables' three measures of an attribute attack, :data:`COUNT_TABLE_TERMS`).
* :func:`first_time_notes` — one plain sentence for each reading that surprises a newcomer
  (a negative advantage, an interval that crosses zero, "-0.0", a row of "not measurable"),
  said once, the first time it appears in a table.

The attack names are those the attacks write into their result entries (``name``): the exact
key, or for the families that add a setting to it (``cbtta_ptl``, ``lira_online_global_var``,
``meta_classifier_large``, ``metric_entropy`` …) the longest key it starts with.

Imports nothing of the app, so every layer may read it (docs/dev/layers.md).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from engine.numbers import is_finite


@dataclass(frozen=True)
class AttackWords:
    """How one attack is named to a privacy officer, and to a reviewer."""

    plain_name: str        # shown first, e.g. "Copies-of-your-model attack"
    description: str       # what the attacker does and knows, one line
    technical: str         # the name in the literature
    reference: str         # the paper (and where in it), for the methods appendix

    def tooltip(self) -> str:
        """The science, one click away: technical name and reference."""
        return f"{self.technical}. {self.reference}"


_W = AttackWords

#: name (or name prefix) → words. Keys are the ``name`` of result entries (see module doc).
ATTACKS: dict[str, AttackWords] = {
    # --- every audit
    "random_guess": _W("Blind guess", "Guesses without looking at the release: the line every "
                       "attack must beat", "Random guess (no information)", "Baseline"),
    # --- DP mechanism audit
    "np_optimal": _W(
        # "(simulated)": its figures are measured on the game's trials, beside the exact row
        # "Best possible attacker (exact theory)" — one attacker, two ways of getting its figure.
        "Best possible attacker (simulated)",
        "Knows everyone else's data and the noise, and weighs every released value in the best "
        "possible way",
        "Neyman–Pearson optimal attacker (likelihood-ratio test)",
        "Nasr et al., tight auditing of DP (paper 002), Theorem 1"),
    "naive_sum": _W(
        "Adding-up attacker",
        "Knows everyone else's data and adds up the person's released values",
        "Naive sum attacker", "Paper 002 §3"),
    # --- location audit
    "one_threshold": _W(
        "Simple count check",
        "Knows the person's locations and calls them present when the counts where they go "
        "are high",
        "One-threshold attack", "Pyrgelis et al., location aggregates (paper 000), Alg. 2 + 3"),
    "two_threshold": _W(
        "Place-by-place count check",
        "Knows the person's locations and checks each place and hour against its own "
        "threshold before voting",
        "Two-threshold attack", "Paper 000, Alg. 4 + 5"),
    "reference": _W(
        "Comparison with a reference group",
        "Compares the release with the average of people like the person",
        "Reference attack", "Dwork et al. 2015; paper 000, App. C"),
    "likelihood_ratio": _W(
        "Noise-aware count check",
        "Knows the person's locations and the noise added, and weighs every count that "
        "could hold them",
        "Likelihood-ratio attack (per-cell likelihood ratio with the noise law)",
        "Beyond paper 000: the Neyman–Pearson test on each count"),
    "meta_classifier_100": _W(
        "Trained detector with a larger network",
        "Learns from many simulated releases, with and without the person, how the counts "
        "change when they are in",
        "MLP meta-classifier, k → 100 sigmoid → 1", "Earlier work cited by paper 000"),
    "meta_classifier": _W(
        "Trained detector",
        "Learns from many simulated releases, with and without the person, how the counts "
        "change when they are in",
        "MLP meta-classifier, k → k sigmoid → 1", "Paper 000 §2.3.3, Fig. 11(b)"),
    # --- count-table (aggregates) audit: attribute inference
    "desia_no_verification": _W(
        "Table rebuilder without the proof step",
        "Rebuilds the whole table from the counts, then votes, without first checking "
        "which values the counts prove",
        "DeSIA without the verification step", "Paper 003, Table 3 ablation"),
    "desia_no_uniqueness": _W(
        "Table rebuilder without the one-person rule",
        "Rebuilds the table from the counts without assuming the person is the only one "
        "with their known details",
        "DeSIA without the uniqueness constraint", "Paper 003, Table 3 ablation"),
    "desia_stochastic_only": _W(
        "Learned guesser from the counts",
        "Learns from similar public records how the counts change with the hidden value, "
        "then guesses",
        "DeSIA stochastic module only", "Paper 003, Table 3 ablation"),
    "desia_deterministic_only": _W(
        "Proof only",
        "Names the hidden value only where the counts prove it, and otherwise guesses blindly",
        "DeSIA deterministic module only, else a uniform guess", "Paper 003 §3"),
    "desia_synthetic": _W(
        "Synthetic-data guesser",
        "Makes synthetic records that fit the counts and reads the person's value from them",
        "Synthetic data + uniqueness instead of the solver", "Paper 003, Table 3 ablation"),
    "desia_mia_stochastic_only": _W(
        "Learned presence check from the counts",
        "Learns from similar public records how the counts change when a person is in the "
        "data, then decides",
        "DeSIA-MIA stochastic module only", "Paper 003 §6.2"),
    "desia_mia": _W(
        "Proof-then-learn presence check",
        "Checks whether the counts prove the person is in the data, and otherwise decides "
        "from what it learned on similar public records",
        "DeSIA-MIA: deterministic membership check, then the stochastic module",
        "Paper 003 §6.2"),
    "desia": _W(
        "Proof-then-learn table attack",
        "Knows the person's other details; first checks which values the counts prove, then "
        "guesses the rest from similar public records",
        "DeSIA: deterministic then stochastic module", "Annamalai et al. (paper 003) §3"),
    "best_of": _W(
        "Best of proofs, rebuilding and learning",
        "Knows the person's other details; takes the values the counts prove, and for the rest "
        "uses whichever of table rebuilding or learning from similar public records did "
        "better when it rehearsed on its own public records",
        "Deterministic proofs, then the better of DeSIA's stochastic module and CIP-rand, "
        "chosen on a shadow game",
        "Beyond paper 003: this auditor's combination of §3 and §2.5"),
    "best_of_mia": _W(
        "Best of the presence checks",
        "Takes what the counts prove about whether the person is in the data, and for the "
        "rest uses whichever of table rebuilding or learning from similar public records did "
        "better when it rehearsed on stand-ins from its own public records, never on the "
        "real people",
        "Deterministic membership check, then the better of DeSIA-MIA's stochastic module "
        "and the CIP-rand reconstruction MIA, chosen by AUC on a shadow game",
        "Beyond paper 003: this auditor's combination of §6.2 and §6.3"),
    "cip_rand_mia": _W(
        "Presence check by table rebuilding",
        "Rebuilds the whole table from the counts several times and counts how often the "
        "person appears",
        "CIP-rand reconstruction MIA", "Paper 003 §6.3"),
    "rap_rand_mia": _W(
        "Presence check by approximate table rebuilding",
        "Rebuilds an approximate table from the counts several times and counts how often "
        "the person appears",
        "RAP-rand reconstruction MIA", "Paper 003 §6.3"),
    "cip_rand": _W(
        "Table rebuilder",
        "Rebuilds the whole table from the counts, then votes among the people who look "
        "like the person",
        "CIP-rand reconstruction + neighbourhood vote", "Paper 003 §2.5"),
    "cip_init": _W(
        "Table rebuilder from public records",
        "Rebuilds the whole table from the counts starting from similar public records, then "
        "votes",
        "CIP-init reconstruction + neighbourhood vote", "Paper 003 §2.5"),
    "rap_rand": _W(
        "Approximate table rebuilder",
        "Rebuilds an approximate table that nearly fits the counts, then votes",
        "RAP-rand relaxed reconstruction + neighbourhood vote", "Paper 003 §2.5"),
    "rap_init": _W(
        "Approximate table rebuilder from public records",
        "Rebuilds an approximate table from the counts starting from similar public records, "
        "then votes",
        "RAP-init relaxed reconstruction + neighbourhood vote", "Paper 003 §2.5"),
    "likelihood": _W(
        "Count-by-count vote",
        "Asks of each released count which hidden value makes it most likely, then votes",
        "Likelihood attack: per-statistic Gaussian vote", "Paper 003 §7.2"),
    "data_only": _W(
        "Guess from similar people",
        "Ignores the counts and takes the most common value among similar public records",
        "Data-only guess", "Baseline of paper 003"),
    # --- model audit: membership
    "btta": _W(
        "Typical-output check",
        "Compares the model's answer on a record with what its own copies of the model give "
        "for records they saw and did not see",
        "Bayesian Take-the-Typical attack (BTTA)", "Paper 001, Alg. 1"),
    "cbtta": _W(
        "Typical-output check by group",
        "Like the typical-output check, but separately for groups of similar answers",
        "Categorical BTTA (CBTTA)", "Paper 001 §CBTTA"),
    "metric_correctness": _W(
        "Right-answer check",
        "Calls a record a member when the model answers it correctly",
        "Correctness (gap) attack", "Yeom et al. 2018; paper 004 §4.4.1"),
    "metric_confidence": _W(
        "Confidence check",
        "Calls a record a member when the model is very sure of its true answer, using "
        "copies of the model to set the bar for each answer",
        "Confidence in the true class, class thresholds", "Song & Mittal 2021; paper 004"),
    "metric_modified_entropy": _W(
        "Sureness-and-correctness check",
        "Combines how sure the model is with whether it is right, with a bar set per answer "
        "from copies of the model",
        "Modified entropy, class thresholds", "Song & Mittal 2021; paper 004"),
    "metric_entropy": _W(
        "Sureness check",
        "Calls a record a member when the model's answer is very certain, with a bar set per "
        "answer from copies of the model",
        "Prediction entropy, class thresholds", "Song & Mittal 2021; paper 004"),
    "metric_top1": _W(
        "Top-answer confidence check",
        "Calls a record a member when the model's most likely answer has a high probability",
        "Top-1 confidence", "Salem et al. 2019; paper 004 §4.4.1"),
    # Predictions files without shadow predictions: the same measures rank every record,
    # threshold-free (engine.attacks.model.metric.ranking_outcomes; issue 22 item 2).
    "confidence_all_records": _W(
        "Confidence ranking of every record",
        "Ranks all records by how sure the model is of their true answer; needs no copies of "
        "the model and no known members",
        "Confidence in the true class (the loss ranks the same), every record, no threshold",
        "Yeom et al. 2018; Song & Mittal 2021"),
    "entropy_all_records": _W(
        "Sureness ranking of every record",
        "Ranks all records by how certain the model's answer is; needs no copies of the model "
        "and no known members",
        "Prediction entropy, every record, no threshold", "Song & Mittal 2021"),
    "modified_entropy_all_records": _W(
        "Sureness-and-correctness ranking of every record",
        "Ranks all records by how sure and how right the model is; needs no copies of the "
        "model and no known members",
        "Modified entropy, every record, no threshold", "Song & Mittal 2021"),
    "top1_all_records": _W(
        "Top-answer ranking of every record",
        "Ranks all records by the probability of the model's most likely answer; needs no "
        "copies of the model and no known members",
        "Top-1 confidence, every record, no threshold", "Salem et al. 2019"),
    "ml_leaks": _W(
        "Learned detector on the model's answers",
        "Trains a detector on a copy of your model to tell members from the top answers it gives",
        "ML-Leaks adversary 1 (one attack model on the sorted top posteriors)",
        "Salem et al. 2019"),
    "shokri": _W(
        "Copies-of-your-model detector",
        "Trains copies of your model on similar data and learns, class by class, how members "
        "are answered",
        "Shadow-model attack, one attack model per class", "Shokri et al. 2017; paper 001"),
    "lira_online": _W(
        "Copies-of-your-model attack",
        "Trains copies of your model on similar data, with and without each record, and "
        "compares your model's answer with both",
        "LiRA online (likelihood-ratio attack)", "Carlini et al. 2022"),
    "lira_offline": _W(
        "Quick copies-of-your-model attack",
        "Trains copies of your model on similar data without each record, and checks how far "
        "your model's answer stands out",
        "LiRA offline (likelihood-ratio attack)", "Carlini et al. 2022"),
    "rmia": _W(
        "Comparison-with-other-records attack",
        "Trains copies of your model on similar data and compares how much your model prefers "
        "a record over other people's records",
        "RMIA (relative membership inference attack)", "Zarifzadeh et al. 2024"),
    "label_only_gap": _W(
        "Label-only right-answer check",
        "Sees only the model's chosen answer, and calls a record a member when it is right",
        "Label-only gap attack", "Yeom et al. 2018; paper 004 §4.4"),
    "attribute_inference": _W(
        "Hidden-detail guesser",
        "Knows a person's other details and uses the model's answers to guess a hidden one",
        "Attribute inference from the model's outputs (with a data-only baseline)",
        "Paper 004 §4.5"),
}

# Variants whose name adds a setting to a catalogue key, with the words the setting adds.
# Plain names carry no parentheses or commas, so a sentence can quote one whole.
_SUFFIX_WORDS = {"_global_var": "with one spread for every record",
                 "_large": "with more simulated releases to learn from"}


def attack_words(name: str | None, label: str | None = None) -> AttackWords:
    """The words for an attack's ``name`` (module doc); an unknown name gets its ``label`` as
    its plain name, so nothing is ever shown blank."""
    key = str(name or "")
    words = ATTACKS.get(key)
    if words is None:
        matches = [k for k in ATTACKS if key.startswith(k)]
        if matches:
            base = ATTACKS[max(matches, key=len)]
            extra = [w for suffix, w in _SUFFIX_WORDS.items() if key.endswith(suffix)]
            technical = label or base.technical
            plain = base.plain_name + (f" {extra[0]}" if extra else "")
            words = AttackWords(plain, base.description, technical, base.reference)
        else:
            shown = str(label or name or "attack")
            words = AttackWords(shown, "", shown, "")
    return words


def plain_name(attack: dict | str | None) -> str:
    """An attack entry's (or name's) plain name."""
    if isinstance(attack, dict):
        return attack_words(attack.get("name"), attack.get("label")).plain_name
    return attack_words(attack).plain_name


def describe(attack: dict | str | None) -> str:
    """An attack entry's (or name's) one line on what the attacker does and knows."""
    if isinstance(attack, dict):
        return attack_words(attack.get("name"), attack.get("label")).description
    return attack_words(attack).description


def shadow_choice_sentence(attack: dict) -> str | None:
    """One plain sentence on what a best-of attack chose, from its result entry's
    ``details.shadow_choice`` (engine.attacks.aggregates.best_of: the candidate with the
    higher AUC on the attacker's own stand-in targets); None for any other attack. The report
    and the results page both say it, in these words."""
    choice = (attack.get("details") or {}).get("shadow_choice")
    if not isinstance(choice, dict) or not choice.get("chosen"):
        return None
    combination, chosen = plain_name(attack), plain_name(choice["chosen"]).lower()
    aucs = {k: v for k, v in (choice.get("shadow_auc") or {}).items() if is_finite(v)}
    if choice["chosen"] not in aucs:
        return (f"The {combination.lower()} used the {chosen}: its rehearsal found no "
                "stand-ins to compare the two on, so it kept the first.")
    others = " and ".join(f"{aucs[k]:.2f} for the {plain_name(k).lower()}"
                          for k in aucs if k != choice["chosen"])
    return (f"The {combination.lower()} chose the {chosen} because it scored an AUC of "
            f"{aucs[choice['chosen']]:.2f} on {choice.get('judged_targets', 0):,} of the "
            "attacker's own stand-ins (people from its own sample, never the real targets)"
            + (f", against {others}." if others else "."))


def tooltip(attack: dict) -> str:
    """The tooltip of an attack's plain name: what it does, then the science."""
    w = attack_words(attack.get("name"), attack.get("label"))
    technical = attack.get("label") or w.technical
    lines = [w.description] if w.description else []
    lines.append(f"Technical name: {technical}" + (f" ({w.reference})" if w.reference else ""))
    return "\n".join(lines)


# --------------------------------------------------------------------------- glossary

#: term → plain explanation: the "?" beside a term on the results pages, and a report page.
GLOSSARY: dict[str, str] = {
    "Membership": "Whether a person's record is in the data behind the release (or used to "
                  "train the model). Learning it can itself be harmful: being in a "
                  "hospital's data says the person was a patient.",
    "Attribute inference": "Guessing a hidden detail of a person (for example their ethnicity) "
                           "from the release and what the attacker already knows about them.",
    "False-positive rate (FPR)": "The share of people who are not in the data that the "
                                 "attacker wrongly accuses of being in it. Low is what a "
                                 "careful attacker aims for: a false accusation gives them "
                                 "away.",
    "Members spotted while wrongly accusing 1 %": "How many of the people in the data the "
        "attacker finds when it may wrongly accuse only 1 % of the people who are not. "
        "This is the figure that shows harm to a few people, and the verdict's main measure.",
    "AUC": "Area under the curve: how well the attacker ranks people in the data above people "
           "not in it, over every possible decision threshold. 0.5 is a blind guess, 1.0 is "
           "perfect.",
    "Right … of the time (balanced accuracy)": "How often the attacker is right, counting "
                                               "people in and out of the data equally. 50 % "
                                               "is a blind guess.",
    "ε and δ": "The privacy budget of differential privacy. ε (epsilon) bounds how much one "
               "person can change what is released: smaller is more private. δ (delta) is "
               "the small chance that this bound does not hold.",
    "Confidence interval (CI)": "The range the true value lies in with 95 % confidence, given how "
                           "many test cases the audit ran. A wide range means more test cases "
                           "are needed for a firm figure.",
    "Not measurable": "A rate the audit had too few test cases to measure: to tell a 1 % "
                      "false-accusation rate apart from zero takes at least 300 people who are "
                      "not in the data. The figure is left out rather than guessed.",
    "Advantage": "How much better than a blind guess the attacker does: the share of members "
                 "it finds minus the share of non-members it wrongly accuses. 0 is a blind "
                 "guess, 1 is perfect.",
    "Verdict": "High, medium or low risk, decided by the policy's thresholds on the strongest "
               "attacker's figures.",
    "Evidence": "What a verdict rests on: only an attack that did measurably better than "
                "guessing, after allowing for how many attacks were run, can raise the level. "
                "The evidence line says how many tests there were, how many beat guessing, "
                "and how many test cases it would take to detect a given gain.",
    "One-sided test": "A check of one thing only: whether an attack does better than its "
                      "baseline (guessing, or the obvious guess), never worse. It answers yes "
                      "exactly when the attack's 95 % interval lies above the baseline.",
    "Holm correction": "With many attacks run, one of them beats guessing by luck alone far "
                       "more often than 1 time in 20. Holm's correction (Holm 1979) makes "
                       "each test stricter by the number of tests, so the chance of counting "
                       "any attack that carries nothing stays below 2.5 % in all.",
    "Cannot be told from guessing": "An attack whose figures, after Holm's correction, are "
                                    "not measurably better than its baseline. It is listed "
                                    "but raises no level: more test cases could still "
                                    "reveal a small gain.",
    # The disclosure rules officers apply, beside the attacks (engine.rules, issue 34 item 2).
    "Threshold rule": "A published cell must count at least a set number of people (ACRO's "
                      "default 10); a smaller one could point at someone.",
    "Dominance rule": "For a table of sums (incomes, turnover): the n largest contributors may "
                      "not make more than k % of a cell's total (ACRO: n = 2, k = 90 %), or "
                      "the total gives their values away.",
    "p-ratio rule": "For a table of sums: what is left after the two largest contributions "
                    "must be at least p % of the largest (ACRO: 10 %), or the second largest "
                    "can work out the largest closely.",
    "Group disclosure": "Everyone in a group the table shows has the same sensitive value, so "
                        "knowing a person is in the group tells their value, however large "
                        "the group.",
    "Differencing": "Recovering a small group by subtracting published cells from each other "
                    "(or from the total), when no single cell shows it.",
    "Rules vs attacks": "Where the rules officers apply and the attacks disagree about a "
                        "person: the rules pass yet the counts prove the person's value, or a "
                        "rule fails yet no attack could use it. The report says which of the "
                        "two verdicts the policy follows.",
}


# --------------------------------------------------------------------------- count tables

#: An attribute attack on count tables is measured three ways, and with similar names they
#: read as one measure with two values (issue 20, walk-through 2026-11-26: "Balanced accuracy
#: 56.1 %" in the results table beside the verdict's "51.4 %"). Each has one plain name,
#: written the same in the results table, the summary, the verdict's reasons and the report,
#: and its technical name behind it (the column's tooltip, the glossary):
#:
#: * the share of targets whose true value the attack names first — top-1 accuracy
#:   (engine.games.aggregates.evaluate, ``details.top1_accuracy``);
#: * that share on the scale the verdict policy reads, a blind guess 50 % and always right
#:   100 % — chance-corrected top-1 accuracy (engine.audits.aggregates
#:   .chance_corrected_accuracy), the verdict's figure;
#: * how often the attack's yes/no on every (target, value) pair is right, true and wrong
#:   values weighted equally — the balanced accuracy of ARCHITECTURE §5 at a threshold chosen
#:   on other data, over the pooled one-vs-rest pairs (the attack entry's ``accuracy``).
BEST_GUESS_RIGHT = "Best guess right"
BEST_GUESS_SCORE = "Best-guess score"
VALUE_CHECKS_RIGHT = "Yes or no for each value"
#: The officer's own question beside the game's figures (issue 32 item 1;
#: engine.attacks.real_people): the attack on the people's real values, against the obvious
#: guess and the data-only guess, and the score scaled between the obvious guess and a sure
#: answer. Used by the count-table and model audits' attribute results.
RIGHT_ON_REAL_PEOPLE = "Right on real people"
OBVIOUS_GUESS = "Obvious guess"
DATA_ONLY_GUESS = "Data-only guess"
SCALED_SCORE = "Scaled score"

#: The scale of the verdict's score, said wherever the score is quoted.
BEST_GUESS_SCALE = "a blind guess scores 50% and a sure answer 100%"

COUNT_TABLE_TERMS: dict[str, str] = {
    BEST_GUESS_RIGHT: "How often the value the attacker names first (its best guess) is the "
                      "person's true value. A blind guess is right once in as many tries as "
                      "there are possible values. Technical name: top-1 accuracy.",
    BEST_GUESS_SCORE: "How often the best guess is right, put on the scale the verdict's "
                      f"thresholds use, where {BEST_GUESS_SCALE}, so that a detail with 2 "
                      "possible values and one with 7 are judged alike. The verdict reads "
                      "this score. Technical name: chance-corrected top-1 accuracy, "
                      "0.5 + (top-1 − chance) / (2 × (1 − chance)).",
    VALUE_CHECKS_RIGHT: "For every person and every value they could have, the attack answers "
                        "yes (this is their value) or no, with a cut-off chosen on other test "
                        "cases; this is how often those answers are right, counting true and "
                        "wrong values equally, so a blind guess scores 50 %. It judges every "
                        "value, not only the best guess, so it differs from the best-guess "
                        "score. Technical name: balanced accuracy of the one-vs-rest "
                        "decisions.",
}

#: The real-people terms (issue 32 item 1), in the glossary of every audit (the model audit's
#: attribute inference uses them too).
REAL_PEOPLE_TERMS: dict[str, str] = {
    RIGHT_ON_REAL_PEOPLE: "How often the attacker's best guess is a person's real value, "
                          "using the release as it was actually published. The best guess "
                          "right and best-guess score are measured in a game where each "
                          "person's value is replaced by a random draw; this figure is about "
                          "the real people, so compare it with the obvious guess, not with "
                          "blind guessing.",
    OBVIOUS_GUESS: "Answering the most common value among the people in the data for "
                   "everyone. On a skewed attribute it is right most of the time without "
                   "reading anything released.",
    DATA_ONLY_GUESS: "The attacker's guess from everyone else's records alone, without the "
                     "release: what the data already tells about a person.",
    SCALED_SCORE: "How far the attacker's hit rate on the real people goes from the obvious "
                  "guess (0) to a sure answer (1): (right on real people − obvious guess) / "
                  "(1 − obvious guess). Below 0 is worse than the obvious guess. Its interval "
                  "is exact; an interval above 0 means the release measurably helps the "
                  "attacker beyond the obvious guess (one-sided exact sign test on the people "
                  "where exactly one of the two guesses is right).",
}


# --------------------------------------------------------------------------- technical terms

#: The technical words the results pages and the report's first pages still carry (the methods
#: and the settings name the science; issue 32 item 7): each explained in one plain sentence,
#: its abbreviation in the term's name, so a reader who meets "TPR" or "LiRA" finds it on the
#: glossary page and behind the "?" strip. :func:`glossary_for` adds the terms of one audit
#: type; tests/gui/test_glossary_scan.py scans the pages of every audit type for a term that
#: has none.
_TPR = ("True-positive rate (TPR)",
        "The share of the people in the data that the attacker correctly spots. Read at a low "
        "false-positive rate, it says how many people an attacker can name while rarely "
        "accusing anyone wrongly.")
_NEGATIVES = ("True- and false-negative rates (TNR, FNR)",
              "The share of people not in the data that the attacker rightly clears (TNR), and "
              "the share of people in the data that it misses (FNR).")
_ROC = ("ROC curve",
        "The attacker's true-positive rate against its false-positive rate, for every decision "
        "threshold it could use. The diagonal is a blind guess; a curve that rises steeply at "
        "the left is an attacker that finds people while rarely accusing anyone wrongly.")
_EMPIRICAL_EPS = ("Empirical ε",
                  "The privacy budget ε that the attacks' measured success proves, with 95 % "
                  "confidence: a release with a smaller true ε could not have let them do this "
                  "well (Nasr et al., paper 002, Theorem 1). It is a lower bound on the true ε, "
                  "not the true ε itself.")
_DP = ("Differential privacy (DP)",
       "A mathematical promise, measured by ε and δ, that adding or removing one person changes "
       "what is released only a little, even for an attacker who knows everyone else.")
_SHA = ("SHA-256 fingerprint",
        "A 64-character code computed from a file's exact contents: if one byte changes, the "
        "code changes, so it records exactly which files and settings were audited.")
_SIGNOFF = ("Sign-off",
            "The officer's recorded decision on one result — approve, approve with conditions, "
            "or reject — with the reviewer's name and role, the date and the reasons. "
            "It names the result it judges by the result hash, so a result changed afterwards "
            "is no longer signed.")
_RESULT_HASH = ("Result hash",
                "The SHA-256 fingerprint of a result: computed from every figure and setting of "
                "the result (the decision log and the sign-off left out). The same result "
                "always gives the same hash; a sign-off holds only while the result's hash "
                "matches the one it recorded.")
#: The officer's frame (issue 34 item 4; engine.findings.article29): the three risks of the
#: Article 29 opinion and the impact assessment they feed, on every audit's results page.
ARTICLE29_TERMS: dict[str, str] = {
    "Article 29 opinion on anonymisation (WP216)": "The opinion of the EU's Article 29 Working "
        "Party (Opinion 05/2014, WP216) on when anonymised data can be released: it judges a "
        "release by three risks — singling out, linkability and inference.",
    "Singling out": "Isolating some or all of the records of one person in the release (WP216 "
                    "§3): for example a count of 1, or tables that leave only one possible "
                    "record for someone.",
    "Linkability": "Linking records of the same person, within the release or with other data "
                   "(WP216 §3); here, telling whether a known person is in the release (the "
                   "membership game).",
    "Inference": "Deducing, with significant probability, a person's value of one attribute "
                 "from their other attributes (WP216 §3), such as their diagnosis from their "
                 "age, sex and block.",
    "Data-protection impact assessment (DPIA)": "The assessment the GDPR (Art. 35) requires "
        "before processing likely to put people at high risk: it describes the risks, the "
        "measures considered, the risk that remains and the decision taken.",
}
_CLOPPER = ("Clopper–Pearson interval",
            "An exact 95 % confidence interval for a share counted out of a known number of "
            "test cases, built so that it is never narrower than the counts allow.")
_SENSITIVITY = ("Sensitivity (∆)",
                "The most that one person can change the released values; the noise is scaled "
                "to it.")
_NOISE = ("Laplace and Gaussian noise",
          "Two kinds of random noise added to each released value to give differential "
          "privacy; their spread (the noise scale) is set from ε and the sensitivity.")
_NEYMAN = ("Neyman–Pearson likelihood-ratio test",
           "The best possible way to decide between two explanations of what was released: "
           "compare how likely the release is with the person and without them. No attacker "
           "can do better at any false-positive rate (Nasr et al., paper 002, Theorem 1).")
_KOV = ("Kairouz–Oh–Viswanath bound",
        "The most that any attacker can learn from several releases that each give ε; it "
        "shows what the claimed ε allows, whatever the noise (paper 000, Theorem 1).")
_ACCOUNTANT = ("Privacy accountant (privacy-loss distribution, PLD)",
               "The calculation that adds up the privacy loss of many releases, or many "
               "training steps, into one ε for the whole; the privacy-loss-distribution method "
               "gives a pessimistic and an optimistic value around the true ε.")
_CONVOLUTION = ("Numerical convolution",
                "How the audit computes exactly the law of a sum of noisy values, on a fine "
                "grid, instead of simulating it.")
_SHADOW = ("Shadow data",
           "Releases or models the attacker simulates from its own data, where it knows who is "
           "in, to learn what a release or model looks like with and without a person.")
_AUXILIARY = ("Auxiliary data",
              "The attacker's own records of similar people, separate from the protected data; "
              "it builds its shadow data from them.")

_MECHANISM_LIKE = dict([_NOISE, _SENSITIVITY, _NEYMAN, _KOV, _ACCOUNTANT, _CONVOLUTION])

TECHNICAL_TERMS: dict[str, dict[str, str]] = {
    "mechanism": {
        **_MECHANISM_LIKE,
        **dict([_NEGATIVES]),
        "DeLong interval": "The 95 % confidence interval of an AUC, from how much the ranking "
                           "of the test cases would vary with other test cases (DeLong et al. "
                           "1988).",
        "MOVER interval": "A way to combine two exact intervals into the interval of their "
                          "difference or average, used when the groups with and without the "
                          "person differ in size.",
    },
    "location": {
        **_MECHANISM_LIKE,
        **dict([_SHADOW, _AUXILIARY]),
        "Clipping": "Counting each person in at most a fixed number of places per hour (C), so "
                    "that one person can change each hour's counts by a known, limited amount.",
        "Randomised response": "The simplest mechanism that gives ε: answer truthfully with a "
                               "fixed chance and flip the answer otherwise; its worst case "
                               "bounds every ε-private release.",
        "Informed attacker (θ)": "An attacker who knows the traces of everyone in the release "
                                 "but the target (θ = 1 in paper 000): the worst case "
                                 "differential privacy protects against.",
    },
    "aggregates": {
        **dict([_SENSITIVITY, _AUXILIARY]),
        "Protected records (|D|)": "The people in the data the released tables are computed "
                                   "from.",
        "Quasi-identifiers": "Details the attacker already knows about a person, such as "
                             "their block, sex and age, which together may single them out.",
        "Sensitive column": "The one detail the attacker tries to learn about a person from "
                            "the tables, such as a diagnosis or an income band.",
        "Marginals (1- and 2-way)": "Count tables of one column, or of every pair of "
                                    "columns: the tables a new file gets by default, built "
                                    "from the columns it uses.",
        "Contingency tables": "Tables of counts of people by combinations of their details, "
                              "such as the census tables of people by sex and age.",
        "Table reconstruction (CIP, RAP)": "Rebuilding a whole table of records that fits the "
                                           "released counts exactly (CIP) or nearly (RAP), "
                                           "then reading the person's hidden value from it "
                                           "(paper 003 §2.5).",
        "CP-SAT solver": "The constraint solver (from Google's OR-Tools) that searches for "
                         "tables fitting the counts, and proves which values they force; a "
                         "solve that runs out of time proves nothing.",
        "Stochastic module and deterministic module": "The two halves of the proof-then-learn "
            "table attack: the deterministic module finds the values the counts prove, the "
            "stochastic module learns from simulated releases (a logistic model) to guess the "
            "rest (paper 003 §3).",
        "CSV file": "A plain table saved as text, one record per line and the columns "
                    "separated by commas.",
    },
    "model": {
        **dict([_SHADOW, _ACCOUNTANT]),
        "Neural network (MLP) and its settings (relu, adam, lr)": "A multilayer perceptron, "
            "the kind of model audited here; its settings name the layer sizes, the activation "
            "(relu), the training method (adam, sgd) with its learning rate (lr), the number "
            "of passes over the data (epochs) and of records per step (batch).",
        "BTTA and CBTTA": "The typical-output check (Bayesian Take-the-Typical attack) and its "
                          "by-group version (Categorical BTTA), which apply Bayes' rule to the "
                          "model's answers (paper 001, Algorithm 1).",
        "CBTTA groups (PTL, PPL, PTC, PPC)": "How the by-group check splits the records: by "
                                             "true label, predicted label, true-class "
                                             "confidence or predicted-class confidence.",
        "LiRA": "The copies-of-your-model attack (likelihood-ratio attack, Carlini et al. "
                "2022).",
        "RMIA": "The comparison-with-other-records attack (relative membership inference "
                "attack, Zarifzadeh et al. 2024).",
        "ML-Leaks": "The learned detector on the model's answers (Salem et al. 2019).",
        "Shadow-model attack (SMA)": "The copies-of-your-model detector: copies of the model "
                                     "trained on similar data teach one detector per class "
                                     "(Shokri et al. 2017).",
        "Generalization gap": "How much better the model does on its training records than on "
                              "records it never saw; a large gap is what membership attacks "
                              "feed on.",
        "Precision and recall": "Of the records an attack calls members, the share that are "
                                "(precision); of the members, the share it finds (recall).",
        "Posteriors and entropy": "The model's probabilities for each possible answer, and how "
                                  "spread out they are (entropy): a sure answer has low "
                                  "entropy.",
        "Purchase100": "A public research data set of shoppers' purchases with 100 classes; "
                       "the bundled sample is made like it.",
        "KCD (knowledge cross-distillation, α)": "A defence: teachers trained on parts of the "
            "data teach a student model on the records they did not see; α weighs their "
            "answers against the true labels (paper 004).",
        "DMP (distillation on reference data, T)": "A defence: the model's answers on other, "
            "unlabelled records, softened by a temperature T, train a new model that never "
            "sees the private records (Shejwalkar and Houmansadr 2021).",
        "DP-SGD (noise multiplier σ)": "A defence: training that clips each record's influence "
                                       "and adds noise of size σ at every step, so the model "
                                       "has a proven ε (Abadi et al. 2016).",
    },
}


# The terms of a comparison of candidate releases (engine.compare, issue 34 item 1): the
# comparison report's glossary and the Compare step's "?" strip.
COMPARE_TERMS: dict[str, str] = {
    "Candidate release": "One of the releases you could publish — the same data with a "
                         "different ε or noise, different tables, fewer observations per "
                         "person or a defended model — audited the same way and with the same "
                         "random draws as the others, so the comparison shows what the choice "
                         "changes.",
    "Cannot be told apart": "Two candidates whose risk intervals overlap: at this many test "
                            "cases the difference between them may be chance. More test cases "
                            "narrow both intervals and may then separate them.",
    "Cost to users": "What a candidate takes away from the people who use the data, measured "
                     "from its result: how far the noise moves each released count and how "
                     "many counts it changes, the cells withheld, or the model's accuracy.",
}


def glossary_for(audit_type: str | None) -> dict[str, str]:
    """The terms of one audit's results, each with its plain explanation: :data:`GLOSSARY`,
    for the count tables (``"aggregates"``) :data:`COUNT_TABLE_TERMS`, the real-people terms,
    then the technical terms every audit's pages carry and its own :data:`TECHNICAL_TERMS`
    (issue 32 item 7). The results page's
    "?" strip and the report's glossary page both read it."""
    return {**GLOSSARY, **(COUNT_TABLE_TERMS if audit_type == "aggregates" else {}),
            **(REAL_PEOPLE_TERMS if audit_type in ("aggregates", "model") else {}),
            **dict([_TPR, _ROC, _EMPIRICAL_EPS, _DP, _CLOPPER, _SHA, _SIGNOFF, _RESULT_HASH]),
            **ARTICLE29_TERMS,
            **TECHNICAL_TERMS.get(str(audit_type), {})}


# --------------------------------------------------------------------------- first-time notes

NEGATIVE_ADVANTAGE = ("A negative advantage means the attack did worse than a blind guess on "
                      "these test cases: by chance, not by insight — read it as no advantage.")
CROSSES_ZERO = ("An interval that includes zero means the audit cannot tell this attack from a "
                "blind guess: it may have no advantage at all.")
MINUS_ZERO = ("“-0.0” is a value that rounds to zero from below: the same as no advantage.")
NOT_MEASURABLE = ("“not measurable” means the audit had too few test cases without the person "
                  "to measure that rate; it is left out rather than guessed (see the glossary).")


def first_time_notes(attacks: Iterable[dict]) -> list[str]:
    """The plain sentences a results table needs under it, each once, in the order the
    surprising readings first appear across ``attacks`` (result entries)."""
    found: list[str] = []

    def add(note: str) -> None:
        if note not in found:
            found.append(note)

    for a in attacks:
        if not isinstance(a, dict):
            continue
        adv = a.get("advantage")
        if is_finite(adv) and adv < 0:
            add(MINUS_ZERO if round(adv, 3) == 0 else NEGATIVE_ADVANTAGE)
        for key in ("advantage_ci",):
            ci = a.get(key)
            if isinstance(ci, (list, tuple)) and len(ci) == 2 and all(is_finite(v) for v in ci) \
                    and ci[0] < 0 < ci[1]:
                add(CROSSES_ZERO)
        for row in a.get("tpr_at_fpr") or []:
            if isinstance(row, dict) and row.get("measurable") is False:
                add(NOT_MEASURABLE)
    return found
