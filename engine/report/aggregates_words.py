"""Words and small readers shared by the count-tables report's sections (paper 003;
engine/report/aggregates.py has the hooks): the plain words for each release, mechanism,
auxiliary sample and attack, which attacks a chart draws, and the readers every section uses —
the attribute-game and membership attacks of a loaded result, the chance-corrected top-1
accuracy and the sentence saying what was released. Split out of engine/report/aggregates.py
(issue 33 item 2); every reader reads the typed result (engine.results.aggregates, issue 33
item 1)."""

from __future__ import annotations

from engine.numbers import is_finite
from engine.report import styles as st
from engine.report.sections import markup, short_attack_label
from engine.report.styles import fmt_count, fmt_eps, fmt_num
from engine.results.aggregates import AggregatesTheory, CountDetails
from engine.results.blocks import AttackEntry
from engine.results.loaded import LoadedResult, load_result

RELEASE_WORDS = {
    "p_tables": "Census-style contingency tables (the P-tables of paper 003 Table 1: sex by age, "
                "race, Hispanic origin)",
    "marginals": "marginal tables (counts for every combination of values of one or two "
                 "attributes; the ACS setting of paper 003 §5.5)",
    "custom": "tables of custom counting queries read from a file",
    "published": "an already-published table",
}

MECHANISM_WORDS = {
    "none": "no noise",
    "laplace": "Laplace noise",
    "discrete_laplace": "discrete Laplace noise",
    "discrete_gaussian": "discrete Gaussian noise",
}

RELEASE_SHORT = {"p_tables": "Census P-tables", "marginals": "marginals",
                 "custom": "custom queries", "published": "published table"}

AUXILIARY_WORDS = {
    "file": "read from the auxiliary CSV",
    # Not the records themselves: 9·|D| draws, with repeats, from the non-targets
    # (engine.games.aggregates.resampled_auxiliary), so "4,806 records" of a 534-row table is
    # true only said this way (issue 32 item 6).
    "protected_records": "drawn at random, with repeats, from the protected records that are "
                         "not targets: nine draws per person in the data",
    "synthetic": "generated with the synthetic census blocks",
    "published_sample": "the part of the attacker's sample that does not stand in for the "
                        "people behind the published table",
}

#: How each attack decides, in plain words (section 4).
ATTACK_WORDS = {
    "desia": "Where the tables leave only one possible value, the deterministic module proves "
             "it (certain); for every other target the stochastic module's probabilities are "
             "the scores.",
    "desia_no_verification": "The solver's first consistent value is taken as certain without "
                             "checking that it is the only one; elsewhere the stochastic "
                             "module.",
    "desia_no_uniqueness": "As DeSIA, but the solver is not told that the target is the only "
                           "person with its quasi-identifiers.",
    "desia_stochastic_only": "The stochastic module alone: a classifier trained on shadow "
                             "datasets simulated from the auxiliary sample.",
    "desia_deterministic_only": "The proof alone: certain where the tables determine the value, "
                                "a uniform guess elsewhere.",
    "desia_synthetic": "Synthetic data instead of the solver (Table 3, fourth row): in each "
                       "of K RAP reconstructions that holds exactly one record with the "
                       "target's quasi-identifiers (the uniqueness the attacker knows), that "
                       "record's value is a vote; no verification, no stochastic module.",
    "likelihood": "Each released count that can count the target votes for the value under "
                  "which its released value is most likely (a Gaussian fitted on shadow "
                  "datasets); the votes are shared out as scores.",
    "cip_rand": "K reconstructions of the whole dataset by the integer solver, from random "
                "starts with different seeds and constraint orders; the value is the majority "
                "among reconstructed records closest to the target's quasi-identifiers.",
    "cip_init": "As CIP-rand, with the solver started from the auxiliary sample.",
    "rap_rand": "K relaxed reconstructions (relaxed adaptive projection, gradient descent) from "
                "random starts; the same neighbourhood vote.",
    "rap_init": "As RAP-rand, started from the auxiliary sample.",
    "best_of": "Where the tables leave only one possible value, the deterministic module "
               "proves it (certain); for every other target, the scores of DeSIA's stochastic "
               "module or of CIP-rand, whichever ranked the truth better on a rehearsal the "
               "attacker plays on its own auxiliary sample (never on the targets).",
    "data_only": "Ignores the tables: the most frequent value among auxiliary records most "
                 "similar to the target. It shows how much of an attack's success comes from "
                 "the data rather than from the release.",
    "desia_mia": "Where the tables prove the target in or out, that answer (certain); "
                 "elsewhere the stochastic module's probability that the target is in.",
    "desia_mia_stochastic_only": "The stochastic module alone, trained on shadow datasets "
                                 "with and without the target.",
    "best_of_mia": "Where the tables prove the target in or out, that answer (certain); for "
                   "every other target, the stochastic module's probability or the share of "
                   "CIP-rand reconstructions holding the record, whichever separated members "
                   "from non-members better (AUC) on a rehearsal of the membership game the "
                   "attacker plays on stand-ins from its own auxiliary sample (never on the "
                   "targets).",
    "cip_rand_mia": "The share of K solver reconstructions that contain the target's record.",
    "rap_rand_mia": "The share of K relaxed reconstructions that contain the target's record.",
}

#: Which attacks the ROC chart draws first (it has five distinct line styles).
CHART_ORDER = ("desia", "best_of", "desia_stochastic_only", "cip_rand", "rap_rand", "likelihood",
               "data_only", "desia_no_verification", "desia_no_uniqueness", "cip_init",
               "rap_init", "desia_deterministic_only", "desia_synthetic")
MAX_CHART_ATTACKS = 5
MAX_LISTED_RECORDS = 200
MAX_LISTED_CELLS = 8
PREVIEW_ROWS = 12


# --------------------------------------------------------------------------- small helpers

def loaded(result) -> LoadedResult:
    """``result`` (a result dict or an already loaded result) read once by the loader."""
    return load_result(result)


def theory_of(r: LoadedResult) -> AggregatesTheory:
    """The count-tables part of ``r`` (an empty one for a result of another audit type)."""
    return r.theory if isinstance(r.theory, AggregatesTheory) else AggregatesTheory()


def details(r: LoadedResult, a: AttackEntry) -> CountDetails:
    """The typed details of the attack ``a`` of ``r``."""
    return theory_of(r).details_of(a)


def aia_attacks(result) -> list[AttackEntry]:
    """The attribute-game attacks (``attacks``; MIA entries live in theory.membership)."""
    r = loaded(result)
    return [a for a in r.attacks if not details(r, a).membership_game]


def mia_attacks(result) -> list[AttackEntry]:
    """The membership game's attacks (theory.membership)."""
    mem = theory_of(loaded(result)).membership
    return list(mem.attacks) if mem is not None else []


def as_dicts(attacks) -> list[dict]:
    """The entries as result.json holds them, for the shared readers that take dicts."""
    return [a.to_dict() for a in attacks]


def chance_corrected(top1, chance) -> float | None:
    """0.5 + (top1 − chance) / (2 (1 − chance)): 0.5 at chance, 1 when always right. It puts
    a guess among |V| values on the balanced-accuracy scale of the verdict policy; below
    chance counts as chance, as in the verdict (engine.audits.aggregates)."""
    if not (is_finite(top1) and is_finite(chance)) or chance >= 1:
        return None
    return 0.5 + max(0.0, top1 - chance) / (2.0 * (1.0 - chance))


def top1(d: CountDetails) -> tuple[float | None, tuple | None, float | None]:
    """An attack's top-1 accuracy, its interval and the chance level 1/|V|."""
    return d.top1_accuracy, d.top1_accuracy_ci, d.chance


def pct_ci(ci) -> str:
    return st.fmt_ci(ci, st.fmt_pct)


def label(a: AttackEntry) -> str:
    """An attack's plain name, as markup."""
    return markup(short_attack_label(a.to_dict()))


def sensitive(r: LoadedResult) -> str:
    """The sensitive attribute's name as the sentences say it."""
    return str(theory_of(r).sensitive or "sensitive attribute")


def n_values(r: LoadedResult) -> int | None:
    """|V|, or None when the game does not list the values."""
    values = theory_of(r).game.values
    return len(values) if values else None


def chart_attacks(attacks: list[AttackEntry]) -> tuple[list[AttackEntry], list[AttackEntry]]:
    """At most five attacks for one chart (five line styles), the most telling first."""
    rank = {n: i for i, n in enumerate(CHART_ORDER)}
    order = sorted(range(len(attacks)),
                   key=lambda i: (rank.get(str(attacks[i].name), len(rank)), i))
    keep = sorted(order[:MAX_CHART_ATTACKS])
    return ([attacks[i] for i in keep],
            [attacks[i] for i in range(len(attacks)) if i not in keep])


def _or(value, fallback):
    """``value``, or ``fallback`` where the result did not record it."""
    return fallback if value is None else value


def release_words(result) -> str:
    """One plain sentence (markup): what was released, how much of it, with what noise."""
    r = loaded(result)
    th = theory_of(r)
    rel, game, dp, cfg = th.release, th.game, th.dp, th.settings
    kind = str(rel.kind or cfg.release or "")
    n_tables = len(rel.tables)
    m, cand = rel.queries, rel.candidates
    n = game.records
    if kind == "published":
        pub = th.published
        what = (f"an already-published table of "
                f"{fmt_count(_or(pub.rows if pub else None, m))} counts about "
                f"|D| = {fmt_count(_or(pub.records if pub else None, n))} people")
    else:
        family = markup(RELEASE_WORDS.get(kind, kind or "count tables"))
        frac = rel.fraction
        of_tables = f"{fmt_count(n_tables)} " if n_tables else ""
        if is_finite(frac):
            what = (f"<b>{fmt_count(m)} counts</b> drawn at random from the "
                    f"{fmt_count(cand)} cells of {of_tables}{family} — m/|D| = "
                    f"{fmt_num(frac)} for |D| = {fmt_count(n)} people")
        else:
            what = (f"<b>all {fmt_count(m)} counts</b> of {of_tables}{family}, computed from "
                    f"|D| = {fmt_count(n)} people")
    mech = str(rel.mechanism or cfg.mechanism or "none")
    if mech == "none":
        noise = ("as exact counts: no noise was added, so the release has no "
                 "differential-privacy guarantee")
    else:
        eps = _or(rel.epsilon, cfg.epsilon)
        budget = _or(rel.budget, cfg.budget)
        per = ("per released count, the per-statistic budget of paper 003 §5.6"
               if budget == "per_query" else "for the whole release")
        noise = (f"with {markup(MECHANISM_WORDS.get(mech, mech))} of scale "
                 f"{fmt_num(rel.noise_scale)} on every count (ε = {fmt_eps(eps)} {per}), "
                 "rounded to whole numbers and never below zero")
    text = f"<b>What was released:</b> {what}, {noise}."
    sens = rel.sensitivity
    if is_finite(sens):
        text += (f" One person can change at most Δ = {fmt_num(sens)} released count"
                 f"{'s' if sens != 1 else ''} by one each (the release's sensitivity"
                 + ("" if rel.sensitivity_exact else ", an upper bound") + ")")
        if dp and is_finite(dp.epsilon_release):
            text += (f", so the release as a whole is ε = {fmt_eps(dp.epsilon_release)}"
                     "-DP for adding or removing one person")
        text += "."
    return text


def settled_words(settled) -> str:
    """The deterministic summary's ``settled_by`` counts in words (a dash for results made
    before the count was kept)."""
    if not settled:
        return st.DASH
    words = {"witness table": "left open by a witness table",
             "released zeros": "proved by counts of zero",
             "solver": "settled by the solver"}
    return "; ".join(f"{fmt_count(settled[k] if k in settled else 0)} {w}"
                     for k, w in words.items())
