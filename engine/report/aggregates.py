"""Report sections specific to the count-tables audit (paper 003; engine/audits/aggregates.py;
result contract: docs/dev/aggregates_result_contract.md).

A statistics office releases count tables ("people by sex and age group in block X"); the
question is whether one person's sensitive attribute can be learnt from them. The attacker plays
the attribute-inference game of paper 003 (§2.3, Fig. 2): the target's sensitive value is drawn
uniformly at random, so everything it learns comes from the tables. The game has no
"present / absent" people, so this module writes its own sections 4 (how the attacks are
measured) and 5 (results): every attack ranks the possible values of each target, the (target,
value) pairs are pooled one-vs-rest, and the top-1 accuracy is read against chance 1/|V|. The
membership game of paper 003 §6 (when it was played), the DP bounds of the release, the
deterministic module's proofs, the sweeps of paper 003 Fig. 6 and 8, a published table's
findings and the exposed records (counted per table; listed only with ``include_records``)
complete it. Everything else is the shared report (engine/report/sections.py).
"""

from __future__ import annotations

import math
from collections import Counter

from reportlab.lib.units import cm
from reportlab.platypus import CondPageBreak, Flowable, KeepTogether, Spacer

from engine.attacks.real_people import beats_obvious, real_people_sentence
from engine.headline import headline_of_result
from engine.plots import series
from engine.report import styles as st
from engine.report.charts import attack_sweep_chart, roc_chart
from engine.report.sections import (
    SECTION_TITLES,
    TEXT_WIDTH,
    AuditSections,
    Heading,
    baselines_table,
    brief_name,
    bullets,
    first_time_paragraphs,
    fpr_targets,
    inputs_table,
    keep,
    key_value_table,
    markup,
    min_negatives,
    para,
    short_attack_label,
    sub,
    table,
    tpr_cell,
    two_lines,
)
from engine.report.styles import fmt3, fmt_ci, fmt_count, fmt_eps, fmt_num, fmt_pct
from engine.wording import (
    BEST_GUESS_RIGHT,
    BEST_GUESS_SCALE,
    BEST_GUESS_SCORE,
    DATA_ONLY_GUESS,
    OBVIOUS_GUESS,
    RIGHT_ON_REAL_PEOPLE,
    SCALED_SCORE,
    VALUE_CHECKS_RIGHT,
    shadow_choice_sentence,
)

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

def _ok(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _theory(result: dict) -> dict:
    th = result.get("theory")
    return th if isinstance(th, dict) else {}


def _block(result: dict, key: str) -> dict:
    v = _theory(result).get(key)
    return v if isinstance(v, dict) else {}


def aia_attacks(result: dict) -> list[dict]:
    """The attribute-game attacks (``attacks``; MIA entries live in theory.membership)."""
    return [a for a in result.get("attacks") or [] if isinstance(a, dict)
            and (a.get("details") or {}).get("game") != "mia"]


def mia_attacks(result: dict) -> list[dict]:
    return [a for a in _block(result, "membership").get("attacks") or [] if isinstance(a, dict)]


def chance_corrected(top1, chance) -> float | None:
    """0.5 + (top1 − chance) / (2 (1 − chance)): 0.5 at chance, 1 when always right. It puts
    a guess among |V| values on the balanced-accuracy scale of the verdict policy; below
    chance counts as chance, as in the verdict (engine.audits.aggregates)."""
    if not (_ok(top1) and _ok(chance)) or chance >= 1:
        return None
    return 0.5 + max(0.0, top1 - chance) / (2.0 * (1.0 - chance))


def _top1(a: dict) -> tuple[float | None, list | None, float | None]:
    d = a.get("details") or {}
    return d.get("top1_accuracy"), d.get("top1_accuracy_ci"), d.get("chance")


def _pct_ci(ci) -> str:
    return fmt_ci(ci, fmt_pct)


def _label(a: dict) -> str:
    return markup(short_attack_label(a))


def _sensitive(result: dict) -> str:
    game = _block(result, "game")
    return str(game.get("sensitive") or (result.get("config") or {}).get("sensitive")
               or "sensitive attribute")


def _n_values(result: dict) -> int | None:
    values = _block(result, "game").get("values")
    return len(values) if isinstance(values, list) and values else None


def _chart_attacks(attacks: list[dict]) -> tuple[list[dict], list[dict]]:
    """At most five attacks for one chart (five line styles), the most telling first."""
    rank = {n: i for i, n in enumerate(CHART_ORDER)}
    order = sorted(range(len(attacks)),
                   key=lambda i: (rank.get(str(attacks[i].get("name")), len(rank)), i))
    keep = sorted(order[:MAX_CHART_ATTACKS])
    return ([attacks[i] for i in keep],
            [attacks[i] for i in range(len(attacks)) if i not in keep])


def release_words(result: dict) -> str:
    """One plain sentence (markup): what was released, how much of it, with what noise."""
    rel, game, dp = _block(result, "release"), _block(result, "game"), _block(result, "dp")
    cfg = result.get("config") or {}
    kind = str(rel.get("kind") or cfg.get("release") or "")
    tables = [t for t in rel.get("tables") or [] if isinstance(t, dict)]
    n_tables = len(tables)
    m, cand = rel.get("queries"), rel.get("candidates")
    n = game.get("records")
    if kind == "published":
        pub = _block(result, "published")
        what = (f"an already-published table of {fmt_count(pub.get('rows', m))} counts about "
                f"|D| = {fmt_count(pub.get('records', n))} people")
    else:
        family = markup(RELEASE_WORDS.get(kind, kind or "count tables"))
        frac = rel.get("fraction")
        of_tables = f"{fmt_count(n_tables)} " if n_tables else ""
        if _ok(frac):
            what = (f"<b>{fmt_count(m)} counts</b> drawn at random from the "
                    f"{fmt_count(cand)} cells of {of_tables}{family} — m/|D| = "
                    f"{fmt_num(frac)} for |D| = {fmt_count(n)} people")
        else:
            what = (f"<b>all {fmt_count(m)} counts</b> of {of_tables}{family}, computed from "
                    f"|D| = {fmt_count(n)} people")
    mech = str(rel.get("mechanism") or cfg.get("mechanism") or "none")
    if mech == "none":
        noise = ("as exact counts: no noise was added, so the release has no "
                 "differential-privacy guarantee")
    else:
        eps = rel.get("epsilon", cfg.get("epsilon"))
        budget = rel.get("budget", cfg.get("budget"))
        per = ("per released count, the per-statistic budget of paper 003 §5.6"
               if budget == "per_query" else "for the whole release")
        noise = (f"with {markup(MECHANISM_WORDS.get(mech, mech))} of scale "
                 f"{fmt_num(rel.get('noise_scale'))} on every count (ε = {fmt_eps(eps)} {per}), "
                 "rounded to whole numbers and never below zero")
    text = f"<b>What was released:</b> {what}, {noise}."
    sens = rel.get("sensitivity")
    if _ok(sens):
        text += (f" One person can change at most Δ = {fmt_num(sens)} released count"
                 f"{'s' if sens != 1 else ''} by one each (the release's sensitivity"
                 + ("" if rel.get("sensitivity_exact", True) else ", an upper bound") + ")")
        if dp and _ok(dp.get("epsilon_release")):
            text += (f", so the release as a whole is ε = {fmt_eps(dp.get('epsilon_release'))}"
                     "-DP for adding or removing one person")
        text += "."
    return text


def _settled_words(settled) -> str:
    """The deterministic summary's ``settled_by`` counts in words (a dash for results made
    before the count was kept)."""
    if not isinstance(settled, dict) or not settled:
        return st.DASH
    words = {"witness table": "left open by a witness table",
             "released zeros": "proved by counts of zero",
             "solver": "settled by the solver"}
    return "; ".join(f"{fmt_count(settled.get(k, 0))} {w}" for k, w in words.items())


# --------------------------------------------------------------------------- the hooks

class AggregatesSections(AuditSections):
    """Sections 2, 3, 4, 5, 6, 8 and 9 for ``audit_type == "aggregates"``."""

    # ----------------------------------------------------------------- 2. what was audited
    def audited(self, result: dict) -> list[Flowable]:
        th_game, rel = _block(result, "game"), _block(result, "release")
        cfg = result.get("config") or {}
        dp = _block(result, "dp")
        source = str(th_game.get("auxiliary_source") or "")
        if not cfg.get("data"):
            n_prot = th_game.get("records", cfg.get("census_records"))
            n_aux = th_game.get("auxiliary_records", cfg.get("census_auxiliary"))
            empty = ("No input file: the records are a synthetic census block generated from the "
                     f"seed ({fmt_count(n_prot)} protected records, {fmt_count(n_aux)} "
                     "auxiliary records).")
        else:
            empty = "No input files were recorded."
        out: list[Flowable] = [para(release_words(result))]
        out += inputs_table(result, empty)
        out.append(Spacer(1, 4))
        out.append(key_value_table([
            ("Configuration SHA-256", f'<font face="{st.FONT_MONO}" size="7.5">'
             f'{markup(result.get("config_sha256") or st.DASH)}</font>')]))
        out.append(Spacer(1, 8))
        values = th_game.get("values") or []
        shown = ", ".join(str(v) for v in values[:12]) + (
            f", … ({len(values) - 12} more)" if len(values) > 12 else "")
        qis = ", ".join(str(q) for q in th_game.get("quasi_identifiers") or []) or st.DASH
        mech = str(rel.get("mechanism") or cfg.get("mechanism") or "none")
        frac = rel.get("fraction")
        rows = [
            ("Parameter", "Value", "Meaning"),
            ("Protected records (|D|)", fmt_count(th_game.get("records")),
             "people in the data the tables are computed from"),
            ("Quasi-identifiers", markup(qis),
             "what the attacker knows about a target"),
            ("Sensitive attribute", f"{markup(_sensitive(result))}: "
             f"{fmt_count(len(values)) if values else st.DASH} values",
             markup(shown) if values else "what the attacker tries to learn"),
            ("Unique records", fmt_count(th_game.get("unique_records")),
             "people no one else shares the quasi-identifiers with: the possible targets"),
            ("Targets attacked", fmt_count(th_game.get("targets")),
             "unique records attacked (a random sample when there are more than "
             f"{fmt_num(cfg.get('max_targets'))}, the setting \"Targets attacked at most\")"),
            ("Auxiliary sample", fmt_count(th_game.get("auxiliary_records")) + " records",
             "the attacker's own data about similar people: "
             + markup(AUXILIARY_WORDS.get(source, source or st.DASH))),
            ("Release", markup(RELEASE_SHORT.get(str(rel.get("kind")),
                                                 rel.get("kind") or st.DASH)),
             "the family of counts the tables come from (first paragraph)"),
            ("Released counts (m)", f"{fmt_count(rel.get('queries'))} of "
             f"{fmt_count(rel.get('candidates'))}",
             (f"drawn at random: {fmt_num(frac)} cells per person in the data (m/|D|), not a "
              "share of the cells" if _ok(frac)
              else "every cell of the family")),
            ("Mechanism", markup(MECHANISM_WORDS.get(mech, mech)),
             "added to every released count, then rounded and clamped at zero"
             if mech != "none" else "the counts are released exactly"),
        ]
        if mech != "none":
            per = "per released count" if rel.get("budget") == "per_query" else \
                "for the whole release"
            rows += [
                ("ε", f"{fmt_eps(rel.get('epsilon'))} {per}",
                 "privacy loss the noise is calibrated to (smaller = more private)"),
                ("Noise scale", fmt_num(rel.get("noise_scale")), "size of the noise"),
            ]
            if mech == "discrete_gaussian":
                rows.append(("δ (failure probability)", st.fmt_sci(rel.get("delta")),
                             "probability the ε guarantee may fail"))
        rows.append(("Sensitivity (Δ)", fmt_num(rel.get("sensitivity"))
                     + ("" if rel.get("sensitivity_exact", True) else " (upper bound)"),
                     "the most released counts one person can change (each by one)"))
        if dp:
            rows.append(("ε of the release", fmt_eps(dp.get("epsilon_release")),
                         "for adding or removing one person (section 6)"))
        rows += [
            ("Simulated datasets (N)", fmt_count(cfg.get("n_shadow")),
             f"simulated by the stochastic module ({markup(cfg.get('model') or 'logistic')} "
             "model)"),
            ("Reconstructions (K)", fmt_num(cfg.get("reconstructions")),
             "per target, for the CIP and RAP attacks"),
            ("Solver time limit", f"{fmt_num(cfg.get('solver_time_limit'))} s",
             "per CP-SAT solve; a solve that runs out proves nothing"),
            ("Seed", markup(result.get("seed", cfg.get("seed", st.DASH))),
             "drives every random number of the audit"),
        ]
        out.append(table(rows, [4.0 * cm, 4.4 * cm, TEXT_WIDTH - 8.4 * cm]))
        out += self._tables_released(rel)
        out += self._preview(rel)
        return out

    def _tables_released(self, rel: dict) -> list[Flowable]:
        tables = [t for t in rel.get("tables") or [] if isinstance(t, dict)]
        if not tables:
            return []
        cells = [(markup(t.get("table") or st.DASH), fmt_count(t.get("cells"))) for t in tables]
        if len(cells) <= 8:
            rows = [("Table", "Cells released")] + cells
            widths = [6.0 * cm, 3.0 * cm]
        else:   # two pairs of columns, so 30 tables take 15 lines
            half = (len(cells) + 1) // 2
            left, right = cells[:half], cells[half:] + [("", "")] * (2 * half - len(cells))
            rows = [("Table", "Cells released", "Table", "Cells released")]
            rows += [(a[0], a[1], b[0], b[1]) for a, b in zip(left, right, strict=True)]
            widths = [5.5 * cm, 3.0 * cm, 5.5 * cm, 3.0 * cm]
        return [keep([sub("The released tables"),
                              para(f"{fmt_count(len(tables))} table"
                                   f"{'s' if len(tables) != 1 else ''}, with the number of "
                                   "their cells in the release.", "small"),
                              table(rows, widths)])]

    def _preview(self, rel: dict) -> list[Flowable]:
        preview = [p for p in rel.get("preview") or [] if isinstance(p, dict)]
        if not preview:
            return []
        rows = [("Table", "Cell", "Released count")]
        for p in preview[:PREVIEW_ROWS]:
            rows.append((markup(p.get("table") or st.DASH), markup(p.get("label") or st.DASH),
                         fmt_num(p.get("count"))))
        total = rel.get("queries")
        return [keep([
            sub("What the attacker sees"),
            para(f"The first {fmt_count(min(len(preview), PREVIEW_ROWS))} of the "
                 f"{fmt_count(total)} released counts, as published (after noise, if any).",
                 "small"),
            table(rows, [3.0 * cm, TEXT_WIDTH - 5.8 * cm, 2.8 * cm])])]

    # ----------------------------------------------------------------- 3. threat model
    def threat_model(self, result: dict) -> list[Flowable]:
        game, rel = _block(result, "game"), _block(result, "release")
        sens = markup(_sensitive(result))
        k = _n_values(result)
        qis = ", ".join(str(q) for q in game.get("quasi_identifiers") or []) or "—"
        source = str(game.get("auxiliary_source") or "")
        out: list[Flowable] = [para(
            "The attacker plays the attribute-inference game of paper 003 (§2.3, Fig. 2): it "
            f"sees the released tables and must name one person's value of <b>{sens}</b>.")]
        knows = [
            f"the target's quasi-identifiers ({markup(qis)}), and that nobody else in the data "
            "shares them (every target is unique on them);",
            f"the number of people |D| = {fmt_count(game.get('records'))} and every possible "
            "value of every attribute;",
            f"an auxiliary sample of {fmt_count(game.get('auxiliary_records'))} records of "
            "similar people ("
            + markup(AUXILIARY_WORDS.get(source, source or "its own data")) + "), from which "
            "it simulates releases;",
            "exactly which counts were released and how: the noise and its scale, if any.",
        ]
        out += [sub("What the attacker knows")] + bullets(knows)
        chance = game.get("chance")
        play = [
            f"For every target, its value of {sens} is drawn uniformly at random among the "
            f"{fmt_num(k) if k else '|V|'} possible values before the tables are computed. "
            "What the attacker learns then comes from the tables alone, not from what is "
            "typical for people like the target; naming a value blindly is right "
            f"{fmt_pct(chance)} of the time (chance, 1/|V|).",
            f"The same {fmt_count(rel.get('queries'))} counts are released in every game, "
            "computed on the data with the target's drawn value (and fresh noise, if any).",
            "The attacker gives each possible value a score; its guess is the value with the "
            "highest score.",
            f"Targets: {fmt_count(game.get('targets'))} of the "
            f"{fmt_count(game.get('unique_records'))} people unique on their "
            "quasi-identifiers.",
        ]
        out += [sub("How the game is played")] + bullets(play)
        if _block(result, "membership"):
            out += [sub("The membership game"), para(
                "The audit also played the membership game of paper 003 §6.1 (Fig. 9). For "
                "each target a secret coin decides whether the target or another unique person "
                "is left out of the data before the tables are computed, so the tables always "
                "count |D| − 1 people. Knowing the target's whole record, the attacker must say "
                "whether the target was counted. Guessing is right half of the time.")]
        out.append(para("A real attacker may know more (for example other releases about the "
                         "same people) or less. The game fixes what it knows so the risk can "
                         "be measured and compared.", "small"))
        return out

    # ----------------------------------------------------------------- 4. method
    def describe_attack(self, attack: dict) -> str:
        return ATTACK_WORDS.get(str(attack.get("name") or ""), "")

    def method_theory(self, result: dict) -> list[Flowable]:
        cfg = result.get("config") or {}
        return [
            sub("DeSIA: proof first, then learning"),
            para("<b>Deterministic module</b> (paper 003 Alg. 1). The released counts become the "
                 "constraints of an integer programme whose unknowns are how many people have "
                 "each possible record (solved with the CP-SAT solver). One more constraint "
                 "says that exactly one person has the target's quasi-identifiers (the "
                 "uniqueness constraint). The solver finds one consistent value of the "
                 "sensitive attribute, then checks whether any other value is consistent too "
                 "(verification). If none is, the value is <b>proved</b>: the tables allow "
                 "only one possibility, and the target is <i>deterministically vulnerable</i>. "
                 "The audit holds the real data, so it starts from the real value (an attacker "
                 "would need one solve to find a consistent value) and answers the second "
                 "question the quickest sound way: another table with the same counts that "
                 "gives the target another value (a <i>witness table</i>, checked count by "
                 "count) shows the value is not determined; released counts of zero that "
                 "leave one value prove it; otherwise the solver decides. The answer is the "
                 "same as with two solves; only the time differs."),
            para("<b>Stochastic module</b> (Alg. 2). Where no proof exists, the attacker "
                 f"simulates N = {fmt_count(cfg.get('n_shadow'))} shadow datasets from its "
                 "auxiliary sample (|D| − 1 people plus the target with a random value), "
                 "computes the released counts on each, and trains a "
                 f"{markup(cfg.get('model') or 'logistic')} model (logistic regression with a "
                 "cross-validated L2 penalty by default; 2/3 of the shadows to train, 1/3 to "
                 "validate) to predict the target's value from the counts. Its predicted "
                 "probabilities are the scores."),
            para("The Table 3 ablations of paper 003 remove one element at a time (the "
                 "verification, the uniqueness constraint, the stochastic module, or the "
                 "solver, replaced by synthetic data); each must lower the success for DeSIA's "
                 "design to be justified.", "small"),
        ]

    def method_common(self, result: dict) -> list[Flowable]:
        """Section 4's attack list and measurement method, in the attribute game's terms."""
        attacks = aia_attacks(result) + mia_attacks(result)
        out: list[Flowable] = [sub("Attacks")]
        if not attacks:
            out.append(para("No attack was run."))
        for a in attacks:
            details = a.get("details") or {}
            line = f"<b>{markup(a.get('label') or a.get('name'))}</b>"
            if details.get("game") == "mia":
                line += " — membership game"
            words = self.describe_attack(a)
            if words:
                line += f". {words}"
            if details.get("paper"):
                line += f" <i>Source: paper {markup(details['paper'])}.</i>"
            out += bullets([line])
        n_v = _n_values(result)
        conf = st.fmt_conf((result.get("config") or {}).get("confidence"))
        out.append(sub("How the attacks are measured"))
        clustered = any("clustered" in str(a.get("auc_ci_method") or "")
                        for a in aia_attacks(result))
        auc_method = ("a DeLong interval clustered by target, since a target's |V| pairs share "
                      "one release (Obuchowski 1997)" if clustered else "a DeLong interval")
        out.append(para(
            "Every attack gives each target one score per possible value. The (target, value) "
            "pairs are pooled <b>one-vs-rest</b>: a pair is <i>positive</i> when the value is "
            "the target's true one, <i>negative</i> otherwise, so T targets give T positive "
            f"and T·(|V| − 1) negative pairs{f' (|V| = {n_v})' if n_v else ''}. On these pairs "
            f"we draw the ROC curve, its area (AUC, 0.5 is guessing, with {auc_method}) "
            "and the true-positive rate (TPR) at fixed low false-positive rates (FPR): the "
            "share of targets whose true value the attack flags while flagging at most that "
            "share of the wrong values. TPR at low FPR matters most: it shows whether the "
            "attack is confident, and right, about a few people. Its interval allows for the "
            "uncertain FPR of a threshold read off the data (docs/methods/intervals.md)."))
        out.append(para(
            f"<b>{BEST_GUESS_RIGHT}</b> (top-1 accuracy) is the share of targets whose "
            f"highest-scored value is the true one, with an exact Clopper–Pearson {conf} "
            f"interval, read against chance 1/|V|. The verdict reads the "
            f"<b>{BEST_GUESS_SCORE.lower()}</b> (chance-corrected top-1 accuracy) "
            "0.5 + (top-1 − chance) / (2·(1 − chance)): on this scale "
            f"{BEST_GUESS_SCALE}, as on a balanced accuracy's. It makes the policy's accuracy "
            "lines mean the same for a yes/no attribute and for one with many values. "
            f"<b>{VALUE_CHECKS_RIGHT}</b> is a third measure: the balanced accuracy of the "
            "one-vs-rest yes/no decisions on every pair, at a threshold chosen on pairs it is "
            "not scored on. It judges every value, not only the best guess, so it differs "
            f"from the {BEST_GUESS_SCORE.lower()}."))
        out.append(para(
            "These three are measured in the paper's game, where each target's value is "
            "replaced by a random draw before the tables are computed, so that blind guessing "
            "is the line to beat; they are not about the real people. For those, every "
            "attack is also run on the tables as actually published and scored against the "
            f"targets' real values: <b>{RIGHT_ON_REAL_PEOPLE.lower()}</b> (exact "
            f"Clopper–Pearson {conf} interval) beside the <b>{OBVIOUS_GUESS.lower()}</b> (the "
            "most common value among the people in the data, said for everyone) and the "
            f"<b>{DATA_ONLY_GUESS.lower()}</b> (from everyone else's records alone), on the "
            f"same targets. The <b>{SCALED_SCORE.lower()}</b> (right on real people − obvious "
            "guess) / (1 − obvious guess) is 0 for no better than the obvious guess and 1 for "
            "a sure answer. Its interval combines exact intervals for the share of targets "
            "where exactly one of the two guesses is right and for the attack's share among "
            "them; the attack is tested against the obvious guess by a one-sided exact sign "
            "test (McNemar's) on those targets."))
        if mia_attacks(result):
            out.append(para(
                "The membership attacks are measured like any membership game: AUC, balanced "
                "accuracy (threshold chosen on one half of the targets and evaluated on the "
                "other) and TPR at low FPR, each with its interval."))
        return out

    # ----------------------------------------------------------------- 5. results
    def results(self, result: dict) -> list[Flowable]:
        attacks = aia_attacks(result)
        # The heading's own parts, not sections.heading() (a KeepTogether): a KeepTogether
        # nested in another always reports an oversized height and forces a page break.
        first: list[Flowable] = [CondPageBreak(6 * cm), Heading(5, SECTION_TITLES[4])]
        if not attacks:
            return first + [para("No attack results are recorded in this result file.")]
        out: list[Flowable] = []
        first.append(para(self._results_words(result, attacks)))
        out += self._ranking_table(result, attacks)
        out += self._top1_table(result, attacks)
        out += self._real_people_table(result, attacks)
        out += first_time_paragraphs(attacks)      # issue 20: a plain sentence per oddity
        out += self._deterministic(result)
        out += baselines_table(result)
        out += self._roc(result, attacks)
        out += self._membership(result)
        return [KeepTogether(first), *out]

    def _results_words(self, result: dict, attacks: list[dict]) -> str:
        sens = markup(_sensitive(result))
        det = _block(result, "deterministic")
        text = ""
        # The attack the summary and the cover quote (engine.headline), so the report's body
        # never names another one; a result saved without a headline is ranked the same way.
        head = headline_of_result({**result, "attacks": attacks})
        best = next((a for a in attacks if head is not None and a.get("name") == head.name),
                    None)
        cc = chance_corrected(*_top1(best)[::2]) if best is not None else None
        if cc is not None:
            top1, _, chance = _top1(best)
            n = best.get("n_positive")
            right = (f"for {fmt_count(round(top1 * n))} of the {fmt_count(n)} targets "
                     if _ok(n) and n > 0 else "")
            text += (f"In the paper's game, where each target's value of {sens} is replaced by "
                     f"a random draw, the strongest attack, <b>{_label(best)}</b>, recovered "
                     f"the drawn value {right}(<b>{fmt_pct(top1)}</b>, its "
                     f"{BEST_GUESS_RIGHT.lower()}), against {fmt_pct(chance)} by blind "
                     f"guessing: a {BEST_GUESS_SCORE.lower()} of <b>{fmt_pct(cc)}</b>, where "
                     f"{BEST_GUESS_SCALE} (the verdict's figure). ")
            rp = (best.get("details") or {}).get("real_people")
            if rp:
                try:
                    text += markup(real_people_sentence(rp, feature=_sensitive(result))) + " "
                except (KeyError, TypeError, ValueError, IndexError):
                    pass        # a damaged block: its table below shows what it holds
        best_auc = max((a for a in attacks if _ok(a.get("auc"))), key=lambda a: a["auc"],
                       default=None)
        if best_auc is not None:
            text += (f"The highest AUC is {fmt3(best_auc.get('auc'))} "
                     f"({_label(best_auc)}). ")
        if det and _ok(det.get("targets")) and det.get("targets"):
            if _ok(det.get("determined")) and det.get("determined"):
                text += (f"The tables alone <b>prove</b> the value of "
                         f"{fmt_count(det.get('determined'))} of the "
                         f"{fmt_count(det.get('targets'))} targets (section 9 says which "
                         "tables pin them down).")
            else:
                text += (f"The tables alone prove none of the {fmt_count(det.get('targets'))} "
                         "targets' values: every guess above rests on likelihood, not proof.")
        return text or "The attacks' numbers follow."

    def _ranking_table(self, result: dict, attacks: list[dict]) -> list[Flowable]:
        targets = fpr_targets(attacks)
        rows = [["Attack", "AUC (0.5 = guessing)",
                 f"{VALUE_CHECKS_RIGHT} (50% = blind guess)"]
                + [f"TPR at {fmt_pct(t)} FPR" for t in targets]]
        for a in attacks:
            rows.append([_label(a), two_lines(fmt3(a.get("auc")), fmt_ci(a.get("auc_ci"))),
                         two_lines(fmt_pct(a.get("accuracy")), _pct_ci(a.get("accuracy_ci")))]
                        + [tpr_cell(a, t, "wrong-value pairs") for t in targets])
        first = 5.2 * cm
        rest = (TEXT_WIDTH - first) / (len(rows[0]) - 1)
        a0 = attacks[0]
        n_pos, n_neg = a0.get("n_positive"), a0.get("n_negative")
        pairs = (f" {fmt_count(n_pos)} true-value pairs and {fmt_count(n_neg)} wrong-value "
                 "pairs." if _ok(n_pos) and _ok(n_neg) else "")
        return [keep([
            sub("How well each attack ranks the true value"),
            para("AUC, the yes/no decisions' balanced accuracy and TPR at low FPR over the "
                 "pooled (target, value) pairs, with 95% intervals below each value." + pairs,
                 "small"),
            table(rows, [first] + [rest] * (len(rows[0]) - 1))]
            + [para(markup(w), "small") for w in map(shadow_choice_sentence, attacks) if w]),
            Spacer(1, 6)]

    def _top1_table(self, result: dict, attacks: list[dict]) -> list[Flowable]:
        rows = [["Attack", f"{BEST_GUESS_RIGHT} (top-1 accuracy)", "Chance 1/|V|",
                 f"{BEST_GUESS_SCORE} (the verdict's; 50% = blind guess)",
                 "AUC without the proved targets"]]
        for a in attacks:
            top1, ci, chance = _top1(a)
            cc = chance_corrected(top1, chance)
            cc_ci = None
            if isinstance(ci, (list, tuple)) and len(ci) == 2:
                cc_ci = [chance_corrected(ci[0], chance), chance_corrected(ci[1], chance)]
            ex = (a.get("details") or {}).get("excluding_determined")
            if isinstance(ex, dict):
                ex_cell = two_lines(fmt3(ex.get("auc")), fmt_ci(ex.get("auc_ci")))
                if _ok(ex.get("targets")):
                    ex_cell += f'<br/><font size="7">{fmt_count(ex.get("targets"))} targets</font>'
            else:
                ex_cell = self._excluded_none(result)
            rows.append([_label(a), two_lines(fmt_pct(top1), _pct_ci(ci)), fmt_pct(chance),
                         two_lines(fmt_pct(cc), _pct_ci(cc_ci)), ex_cell])
        first = 5.2 * cm
        rest = (TEXT_WIDTH - first) / 4
        return [keep([
            sub("How often each attack names the right value"),
            table(rows, [first] + [rest] * 4), Spacer(1, 3),
            para(f"{BEST_GUESS_SCORE}: 0.5 + (top-1 − chance)/(2·(1 − chance)), 50% at "
                 "chance (or below it) and 100% when always right (section 4). The last "
                 "column repeats "
                 "the AUC on the targets the deterministic module could not prove (paper 003 "
                 "Fig. 5): how the attack fares where the tables "
                 "leave room for doubt.", "small")]), Spacer(1, 6)]

    def _real_people_table(self, result: dict, attacks: list[dict]) -> list[Flowable]:
        """Each attack on the real people (issue 32 item 1): its hit rate against the obvious
        and the data-only guesses on the same targets, and the scaled score. Nothing for a
        result without them (a published table; results from before issue 32)."""
        rows = [["Attack", f"{RIGHT_ON_REAL_PEOPLE}", OBVIOUS_GUESS, DATA_ONLY_GUESS,
                 f"{SCALED_SCORE} (0 = obvious guess, 1 = sure)",
                 "Measurably better than the obvious guess?"]]
        value = None
        for a in attacks:
            rp = (a.get("details") or {}).get("real_people")
            if not isinstance(rp, dict):
                continue
            og, do = rp.get("obvious_guess"), rp.get("data_only")
            og = og if isinstance(og, dict) else {}
            value = og.get("value", value)
            s_ci = rp.get("scaled_score_ci")
            rows.append([_label(a),
                         two_lines(fmt_pct(rp.get("accuracy")), _pct_ci(rp.get("accuracy_ci"))),
                         fmt_pct(og.get("accuracy")),
                         fmt_pct(do.get("accuracy")) if isinstance(do, dict) else "—",
                         two_lines(f"{rp['scaled_score']:.2f}" if _ok(rp.get("scaled_score"))
                                   else "—",
                                   fmt_ci(s_ci, lambda v: f"{v:.2f}")),
                         "yes" if beats_obvious(rp) else "no"])
        if len(rows) == 1:
            return []
        first = 4.6 * cm
        rest = (TEXT_WIDTH - first) / 5
        return [keep([
            sub("How often each attack is right about the real people"),
            para(f"The tables as published, the targets' real values of "
                 f"{markup(_sensitive(result))}; the obvious guess answers "
                 f"'{markup(str(value))}' for everyone (section 4).", "small"),
            table(rows, [first] + [rest] * 5)]), Spacer(1, 6)]

    @staticmethod
    def _excluded_none(result: dict) -> str:
        """Why an attack has no AUC without the proved targets (contract: null)."""
        det = _block(result, "deterministic")
        t, d = det.get("targets"), det.get("determined")
        if _ok(d) and d == 0:
            return "as in the first table (no target proved)"
        if _ok(t) and _ok(d) and t - d < 2:
            return f"{fmt_count(t - d)} target(s) left: too few"
        return st.DASH

    def _deterministic(self, result: dict) -> list[Flowable]:
        det = _block(result, "deterministic")
        if not det:
            return []
        t, d, c = det.get("targets"), det.get("determined"), det.get("correct")
        share = d / t if _ok(t) and t and _ok(d) else None
        rows = [("Targets checked", fmt_count(t)),
                ("Proved by the tables", f"{fmt_count(d)} ({fmt_pct(share)})"),
                ("Of which right", fmt_count(c)),
                ("Solves cut by the time limit", fmt_count(det.get("time_limited"))),
                ("How each target was settled", _settled_words(det.get("settled_by"))),
                ("Time per target", f"median {fmt_num(det.get('median_s'))} s, 95th "
                 f"percentile {fmt_num(det.get('p95_s'))} s")]
        words = ("A proved value is the only one consistent with the released counts and the "
                 "target's quasi-identifiers, so it cannot be wrong when the counts are "
                 "exact. ")
        if _ok(d) and _ok(c) and c < d:
            words += (f"Here {fmt_count(d - c)} proved value(s) were wrong: with noise the "
                      "released counts are not the true ones, and a “proof” on them can "
                      "mislead. ")
        if _ok(det.get("time_limited")) and det.get("time_limited"):
            words += ("Solves cut by the time limit prove nothing, so the number proved is a "
                      "lower bound; a longer solver_time_limit may prove more.")
        return [keep([sub("What the tables prove on their own"),
                              key_value_table(rows, 6.0 * cm), Spacer(1, 3),
                              para(words, "small")]),
                Spacer(1, 6)]

    def _roc(self, result: dict, attacks: list[dict]) -> list[Flowable]:
        shown, left = _chart_attacks(attacks)
        if not shown:
            return []
        names = [a.get("name") for a in shown]       # colours as on screen, where all are
        titles = dict(x_title="False-positive rate (wrong values flagged)",
                      y_title="True-positive rate (true values found)")
        caption = ("Shaded band: pointwise 95% intervals of the strongest attack's true ROC. "
                   "Values of 0 "
                   "cannot be drawn on log axes: curves enter from the chart's edge.")
        if left:
            caption += (" Not drawn (five line styles only; their numbers are in the tables "
                        "above): " + ", ".join(_label(a) for a in left) + ".")
        return [keep([
            sub("ROC curves of the attribute game"),
            para("Each curve shows, for every threshold on the scores, the share of true values "
                 "found (TPR) against the share of wrong values flagged (FPR), over the pooled "
                 "(target, value) pairs. The log-log view magnifies the low-FPR corner, where "
                 "an attacker is confident about a few people — the case that harms them.",
                 "small"),
            roc_chart({"attacks": attacks, "theory": {}}, log_scale=False, only=names,
                      title="ROC of the attribute game, linear axes", **titles),
            Spacer(1, 4),
            roc_chart({"attacks": attacks, "theory": {}}, log_scale=True, only=names,
                      title="ROC of the attribute game, log-log axes", **titles),
            para(caption, "caption")])]

    def _membership(self, result: dict) -> list[Flowable]:
        mem = _block(result, "membership")
        if not mem:
            return []
        attacks = mia_attacks(result)
        out: list[Flowable] = []
        proved, right = mem.get("proved"), mem.get("proved_correct")
        words = (f"{fmt_count(mem.get('targets'))} targets, each with its own secret coin "
                 "(counted or left out). ")
        if _ok(proved) and proved == 0:
            words += "The tables alone proved none of the memberships."
        else:
            words += (f"The tables alone proved {fmt_count(proved)} of the memberships"
                      + (" (all of them right)." if _ok(proved) and proved == right
                         else f" ({fmt_count(right)} of them right)."))
        head = [sub("The membership game (paper 003 §6)"), para(words)]
        if not attacks:
            return [KeepTogether(head + [para("No membership attack results are recorded.")])]
        targets = fpr_targets(attacks)
        rows = [["Attack", "AUC", "Balanced accuracy"]
                + [f"TPR at {fmt_pct(t)} FPR" for t in targets]]
        for a in attacks:
            rows.append([_label(a), two_lines(fmt3(a.get("auc")), fmt_ci(a.get("auc_ci"))),
                         two_lines(fmt_pct(a.get("accuracy")),
                                   fmt_ci(a.get("accuracy_ci"), fmt_pct))]
                        + [tpr_cell(a, t, "non-members") for t in targets])
        first = 5.0 * cm
        rest = (TEXT_WIDTH - first) / (len(rows[0]) - 1)
        # What each best-of attack chose on its rehearsal, so the reader sees which score
        # stands behind its row (engine.wording.shadow_choice_sentence).
        chose = [para(markup(w), "small") for w in map(shadow_choice_sentence, attacks) if w]
        out.append(KeepTogether(head + [table(rows, [first] + [rest] * (len(rows[0]) - 1))]
                                + chose))
        dp = _block(result, "dp")
        shown, left = _chart_attacks(attacks)
        theory = {"dp_region": dp["dp_region"]} if isinstance(dp.get("dp_region"), dict) else {}
        caption = "Shaded band: pointwise 95% intervals of the strongest attack. "
        if theory:
            eps_region = dp["dp_region"].get("epsilon", dp.get("epsilon_change"))
            caption += (f"Shaded: what ε' = {fmt_eps(eps_region)} permits (paper 002 Thm 1). "
                        "The two datasets of the membership game differ by one person swapped "
                        "for another (both have |D| − 1 people), a change of one record, so "
                        "ε' = 2ε applies. A curve above the shaded area would show that the "
                        "noise does not give the guarantee.")
        else:
            caption += "No noise was added, so there is no DP region to draw."
        out.append(keep([
            Spacer(1, 4),
            roc_chart({"attacks": attacks, "theory": theory}, log_scale=True,
                      only=[a.get("name") for a in shown],
                      title="ROC of the membership game, log-log axes"),
            para(caption, "caption")]))
        return out

    # ----------------------------------------------------------------- 6. comparison
    def theory(self, result: dict) -> list[Flowable]:
        out: list[Flowable] = []
        dp = _block(result, "dp")
        if not dp:
            out.append(para(
                "No noise was added: the counts are exact, and exact counts have no "
                "differential-privacy guarantee to compare with. The attacks in section 5 and "
                "the proofs of the deterministic module are the evidence. Adding noise "
                "(mechanism in the configuration) gives a guarantee that bounds every "
                "attacker"
                + ("; the noise sweep below shows what it costs the attacks."
                   if isinstance((_theory(result).get("sweeps") or {}).get("noise"), dict)
                   else ".")))
        else:
            out.append(para(
                "The noise gives the release a differential-privacy guarantee: a ceiling on "
                "what any attacker can achieve, whatever it knows and however clever it is. "
                "Below, the ceiling is set against what the attacks measured."))
            out += self._guarantee(result, dp)
            out += self._bound_table(result, dp)
        out += self._sweeps(result)
        out += self._published(result)
        return out

    def _guarantee(self, result: dict, dp: dict) -> list[Flowable]:
        rel = _block(result, "release")
        k = _n_values(result)
        rows = [("Guarantee", "Value", "What it means"),
                ("ε of the release", f"<b>{fmt_eps(dp.get('epsilon_release'))}</b>",
                 "for adding or removing one person: one person changes at most Δ = "
                 f"{fmt_num(rel.get('sensitivity'))} counts by one each, and the noise is "
                 "calibrated to that"),
                ("ε' for changing one person's value", fmt_eps(dp.get("epsilon_change")),
                 "= 2ε: changing a value is removing the person and adding them back with the "
                 "other value, two steps of ε each. This is what the attribute game tests"),
                ("δ'", st.fmt_sci(dp.get("delta")) if _ok(dp.get("delta")) and dp.get("delta")
                 else "0", "probability the ε' guarantee may fail (0 for Laplace noise)"),
                ("Best possible top-1 accuracy", f"<b>{fmt_pct(dp.get('aia_top1_bound'))}</b>",
                 "e<super>ε'</super>/(e<super>ε'</super> + |V| − 1)"
                 + (f" with |V| = {k}" if k else "")
                 + ": no attacker names the right value more often when the value is drawn "
                 "uniformly at random")]
        if _ok(dp.get("mia_accuracy_bound")):
            rows.append(("Best possible membership accuracy",
                         fmt_pct(dp.get("mia_accuracy_bound")),
                         "e<super>ε'</super>/(1 + e<super>ε'</super>) (plus δ'/2): the most "
                         "any attacker can be right in the membership game, whose two "
                         "datasets differ by one person swapped for another (ε')"))
        note = dp.get("note")
        return [keep([sub("The privacy guarantee of the release"),
                              table(rows, [4.6 * cm, 2.4 * cm, TEXT_WIDTH - 7.0 * cm])]
                             + ([para(markup(note), "small")] if note else []))]

    def _bound_table(self, result: dict, dp: dict) -> list[Flowable]:
        bound = dp.get("aia_top1_bound")
        rows = [("Attack", "Measured", "DP bound", "Reading")]

        def reading(value, ci, limit) -> str:
            if not _ok(limit) or not _ok(value):
                return st.DASH
            lo = ci[0] if isinstance(ci, (list, tuple)) and len(ci) == 2 and _ok(ci[0]) \
                else value
            hi = ci[1] if isinstance(ci, (list, tuple)) and len(ci) == 2 and _ok(ci[1]) \
                else value
            if lo > limit + 1e-12:
                return ("<b>above the bound</b>: even the interval's lower end exceeds it, so "
                        "the noise does not give the stated guarantee")
            if hi <= limit:
                return "below the bound"
            return "consistent with the bound (its interval contains it)"

        for a in aia_attacks(result):
            top1, ci, _ = _top1(a)
            rows.append((_label(a) + " (top-1)", two_lines(fmt_pct(top1), _pct_ci(ci)),
                         fmt_pct(bound), reading(top1, ci, bound)))
        mb = dp.get("mia_accuracy_bound")
        for a in mia_attacks(result):
            rows.append((_label(a) + " (membership, balanced accuracy)",
                         two_lines(fmt_pct(a.get("accuracy")), _pct_ci(a.get("accuracy_ci"))),
                         fmt_pct(mb), reading(a.get("accuracy"), a.get("accuracy_ci"), mb)))
        if len(rows) == 1:
            return []
        words = ("The bound holds for every attacker, however clever, so a measured accuracy "
                 "should lie below it. The attacks usually stay far below: the bound is the "
                 "worst case, and a real attacker does not know everyone else's values.")
        if _ok(bound) and bound >= 0.95:
            words += (f" With ε' = {fmt_eps(dp.get('epsilon_change'))} the bound is "
                      f"{fmt_pct(bound)}: the guarantee does not rule out an attacker who is "
                      "nearly always right, so the measured attacks are the only evidence. "
                      "More noise (a smaller ε) lowers the ceiling.")
        return [keep([
            sub("Measured attacks against the DP bound"),
            table(rows, [5.6 * cm, 2.8 * cm, 2.0 * cm, TEXT_WIDTH - 10.4 * cm]),
            Spacer(1, 3),
            para(words, "small")])]

    def _sweeps(self, result: dict) -> list[Flowable]:
        sweeps = _theory(result).get("sweeps")
        if not isinstance(sweeps, dict) or not sweeps:
            return []
        out: list[Flowable] = []
        for key in ("fraction", "noise"):
            sw = sweeps.get(key)
            if not isinstance(sw, dict) or not sw.get("values"):
                continue
            labels = {str(n): brief_name(lab) for n, lab in (sw.get("labels") or {}).items()}
            if key == "fraction":
                title = "AUC against the share of counts released (paper 003 Fig. 6)"
                heading_text = "What if more or fewer counts were released?"
                x_title = "Counts released per person, m/|D|"
                words = ("The game replayed with a different number of released counts, all "
                         "else equal. More counts give the attacker more constraints; the "
                         "paper finds every attack gains.")
            else:
                title = "AUC against the noise, ε per count (paper 003 Fig. 8)"
                heading_text = "What if more noise were added?"
                x_title = "ε per released count (smaller = more noise)"
                words = ("The game replayed with Laplace noise of each ε on every count (rounded, "
                         "never below zero), all else equal. Reconstruction attacks that need "
                         "exact counts fall to guessing first (paper 003 §5.6).")
            # The curves, their words and colours, the random-guess and audited-setting lines
            # and the axis scale: engine.plots.series, as on screen.
            chart = attack_sweep_chart(sw.get("values") or [], sw.get("attacks") or {}, labels,
                                       title=title, x_title=x_title,
                                       curves=series.count_sweep_series(result, key),
                                       guides=series.count_sweep_guides(result, key),
                                       log_x=series.count_sweep_log_x(result, key))
            out.append(keep([sub(heading_text), para(words, "small"), chart,
                                     para("Markers: measured AUC with its 95% interval "
                                          "(whiskers; series are shifted sideways slightly so "
                                          "they do not hide each other). Dotted line: random "
                                          "guessing.", "caption")]))
            out.append(self._sweep_table(sw, labels, key))
            out.append(Spacer(1, 6))
        return out

    def _sweep_table(self, sw: dict, labels: dict, key: str) -> Flowable:
        values = sw.get("values") or []
        names = [n for n, rows in (sw.get("attacks") or {}).items() if isinstance(rows, list)]
        head = ["m/|D|" if key == "fraction" else "ε per count", "Counts m",
                "Proved targets"]
        if key == "noise":
            head.append("Noise scale")
        head += [markup(labels.get(n, n)) + " AUC" for n in names]
        rows = [head]

        def at(seq, i):
            return seq[i] if isinstance(seq, list) and i < len(seq) else None

        for i, v in enumerate(values):
            row = [fmt_num(v), fmt_num(at(sw.get("queries"), i)),
                   fmt_pct(at(sw.get("determined_share"), i))]
            if key == "noise":
                row.append(fmt_num(at(sw.get("noise_scale"), i)))
            for n in names:
                r = at(sw["attacks"][n], i)
                r = r if isinstance(r, dict) else {}
                row.append(two_lines(fmt3(r.get("auc")), fmt_ci(r.get("auc_ci"))))
            rows.append(row)
        fixed = [1.6 * cm, 1.5 * cm, 1.7 * cm] + ([1.6 * cm] if key == "noise" else [])
        rest = (TEXT_WIDTH - sum(fixed)) / max(1, len(names))
        return table(rows, fixed + [rest] * len(names))

    def _published(self, result: dict) -> list[Flowable]:
        pub = _block(result, "published")
        if not pub:
            return []
        consistent = pub.get("consistent")
        cand, det = pub.get("candidates"), pub.get("determined")
        words = (f"The published table ({markup(pub.get('path') or st.DASH)}, "
                 f"{fmt_count(pub.get('rows'))} counts about |D| = "
                 f"{fmt_count(pub.get('records'))} people) ")
        if consistent is False:
            words += ("is <b>not consistent</b>: no dataset of that size gives these counts, so "
                      "they were perturbed or contain an error (see the warnings). ")
        else:
            words += "is consistent: at least one dataset of that size gives these counts. "
        if _ok(cand):
            words += (f"Of the {fmt_count(cand)} combinations of quasi-identifiers found in "
                      f"the auxiliary sample, the table alone pins down the sensitive value "
                      f"of <b>{fmt_count(det)}</b>: a person with such a combination who is "
                      "counted in the table has their value revealed.")
        rows = [("Published table", markup(pub.get("path") or st.DASH)),
                ("Counts", fmt_count(pub.get("rows"))),
                ("People behind it |D|", fmt_count(pub.get("records"))),
                ("Consistent", "yes" if consistent else ("no" if consistent is False
                                                         else st.DASH)),
                ("Combinations checked", fmt_count(cand)),
                ("Of which pinned down", fmt_count(det))]
        out = [sub("The published table"), para(words), key_value_table(rows, 5.2 * cm)]
        if pub.get("note"):
            out.append(para(markup(pub["note"]), "small"))
        return [KeepTogether(out)]

    # ----------------------------------------------------------------- 8. limitations
    def limitations(self, result: dict) -> list[str]:
        cfg = result.get("config") or {}
        det = _block(result, "deterministic")
        out = []
        for mia, attacks, what in ((False, aia_attacks(result), "wrong-value pairs"),
                                   (True, mia_attacks(result), "non-members")):
            rates: set[float] = set()
            counts: set[int] = set()
            for a in attacks:
                for row in a.get("tpr_at_fpr") or []:
                    if row.get("measurable") is False and _ok(row.get("fpr_target")):
                        rates.add(float(row["fpr_target"]))
                        if _ok(a.get("n_negative")):
                            counts.add(int(a["n_negative"]))
            if not rates:
                continue
            ordered = sorted(rates, reverse=True)
            need = min_negatives(min(ordered))
            names = " and ".join(", ".join(fmt_pct(t) for t in ordered).rsplit(", ", 1))
            have = " to ".join(fmt_count(n) for n in sorted({min(counts), max(counts)})) \
                if counts else st.DASH
            out.append(f"{'In the membership game, TPR' if mia else 'TPR'} at {names} FPR "
                       f"{'is' if len(ordered) == 1 else 'are'} not measurable with {have} "
                       f"{what} (the smallest rate needs at least {fmt_count(need)}): attack "
                       "more targets (max_targets) to measure "
                       f"{'it' if len(ordered) == 1 else 'them'}.")
        out += [
            "The results hold for this configuration only; other tables, another fraction of "
            "released counts, other noise or other data need a new audit.",
            "The sensitive value is drawn at random in the game, so the audit measures what the "
            "tables reveal, not what can be guessed from how attributes go together in the "
            "population (the data-only attack shows how much that is).",
            "Only people unique on their quasi-identifiers are attacked (the paper's targets); "
            f"a sample of at most {fmt_num(cfg.get('max_targets'))} of them, so the numbers "
            "carry the intervals shown.",
            "The attacker is assumed to know the target's quasi-identifiers, |D| and an "
            "auxiliary sample of similar people. One with other releases about the same people "
            "may learn more; such combinations are not covered.",
            "Measured values come from a finite number of games: they carry 95% confidence "
            "intervals (pointwise for the ROC bands).",
        ]
        if _ok(det.get("time_limited")) and det.get("time_limited"):
            out.append(f"{fmt_count(det.get('time_limited'))} solver runs hit the time limit; "
                       "the number of proved (exposed) records is a lower bound.")
        if not cfg.get("data"):
            out.append("The records are a synthetic census block: the numbers say what these "
                       "tables allow for such data, not for a particular real population.")
        if _block(result, "dp"):
            out.append("The DP bounds assume the noise is added exactly as audited (calibrated "
                       "to the stated sensitivity, fresh for every count); the audit does not "
                       "check a production system's implementation.")
        return out

    # ----------------------------------------------------------------- 9. exposed records
    def exposed(self, result: dict, include_records: bool) -> list[Flowable]:
        return exposed_records(result, include_records)


def exposed_records(result: dict, include_records: bool = False) -> list[Flowable]:
    """Section 9: how many records the tables provably expose, which tables count them (what
    to coarsen or suppress first), and — only when the report includes records — the list."""
    records = [r for r in result.get("exposed_records") or [] if isinstance(r, dict)]
    det = _block(result, "deterministic")
    sens = markup(_sensitive(result))
    if not records:
        checked = det.get("targets")
        return [para(
            "No record is provably determined by the tables"
            + (f": for none of the {fmt_count(checked)} targets did the released counts leave "
               f"only one possible value of {sens}." if _ok(checked) else ".")
            + " The attacks in section 5 may still guess values better than chance.")]
    right = sum(1 for r in records if r.get("value_correct") is True)
    known = sum(1 for r in records if isinstance(r.get("value_correct"), bool))
    pub = _block(result, "published")
    if pub:   # combinations of quasi-identifiers checked against a published table
        of = (f" ({fmt_count(len(records))} of the {fmt_count(pub.get('candidates'))} "
              "combinations of quasi-identifiers checked)" if _ok(pub.get("candidates")) else "")
        what = ("combination of quasi-identifiers" if len(records) == 1
                else "combinations of quasi-identifiers")
        head = (f"<b>{fmt_count(len(records))} {what} "
                f"{'are' if len(records) != 1 else 'is'} pinned down by the published "
                f"table</b>{of}: a person with one of them who is counted in the table, and "
                f"the only one with it, has only one possible value of {sens}. ")
    else:
        of = (f" ({fmt_count(len(records))} of the {fmt_count(det.get('targets'))} targets "
              "attacked)" if _ok(det.get("targets")) else "")
        head = (f"<b>{fmt_count(len(records))} record{'s are' if len(records) != 1 else ' is'}"
                f" provably determined by the tables</b>{of}: for each, only one value of "
                f"{sens} is consistent with the released counts and the person's "
                "quasi-identifiers. ")
    if known:
        head += f"{fmt_count(right)} of these values are right" + (
            "." if right == known else
            " (the others were “proved” on noisy counts, which are not the true ones).")
    elif pub:
        head += ("Whether the values are right cannot be checked: the audit does not hold the "
                 "data behind a published table.")
    out: list[Flowable] = [para(head)]
    per_table: Counter = Counter()
    for r in records:
        for t in set(r.get("tables") or []):
            per_table[str(t)] += 1
    released = {str(t.get("table")): t.get("cells")
                for t in _block(result, "release").get("tables") or [] if isinstance(t, dict)}
    if per_table:
        rows = [("Table", "Exposed records it counts", "Share of the exposed records",
                 "Cells released from it")]
        for name, n in sorted(per_table.items(), key=lambda x: (-x[1], x[0])):
            rows.append((markup(name), fmt_count(n), fmt_pct(n / len(records)),
                         fmt_count(released.get(name)) if name in released else st.DASH))
        out.append(keep([
            sub("Which tables to coarsen or suppress first"),
            para("Each exposed record is pinned down by the released cells that can count it. "
                 "The tables those cells come from, most exposed records first: coarsening "
                 "them (wider age groups, merged categories), releasing fewer of their cells, "
                 "or adding noise to them breaks the proofs.", "small"),
            table(rows, [5.4 * cm, 3.6 * cm, 3.6 * cm, TEXT_WIDTH - 12.6 * cm]),
            Spacer(1, 3)]))
    listed = [r for r in records if isinstance(r.get("record"), dict)]
    if not include_records:
        out.append(para(
            "The records themselves are not listed: their quasi-identifiers, values and the "
            "cells that pin them down are withheld, as this report may travel further than the "
            "data. Generate the report with records included (from an audit run with "
            "list_exposed_records = true) to list them.", "small"))
        return out
    if not listed:
        out.append(para(
            "The result holds no quasi-identifiers or values (the audit ran with "
            "list_exposed_records = false), so even a report with records included lists "
            "only the cells that pin each record down.", "small"))
    else:
        out.append(para(
            f"The audit ran with list_exposed_records = true and this report includes records: "
            f"the {fmt_count(len(records))} records are listed below with their "
            f"value of {sens} and the released cells that pin them down. Treat this page as "
            "personal data.", "small"))
    rows = [("#", "Quasi-identifiers", f"{sens} (inferred)", "Released cells that pin it down")]
    for i, r in enumerate(records[:MAX_LISTED_RECORDS], 1):
        rec = r.get("record")
        qi = (", ".join(f"{markup(k)} = {markup(v)}" for k, v in rec.items())
              if isinstance(rec, dict) else "(redacted)")
        value = markup(r.get("value") if r.get("value") is not None else "(redacted)")
        value += " — right" if r.get("value_correct") is True else (
            " — wrong" if r.get("value_correct") is False else "")
        cells = [str(c) for c in r.get("pinning_cells") or []]
        cell_text = "; ".join(markup(c) for c in cells[:MAX_LISTED_CELLS])
        if len(cells) > MAX_LISTED_CELLS:
            cell_text += f"; … and {fmt_count(len(cells) - MAX_LISTED_CELLS)} more"
        rows.append((str(i), qi, value, cell_text or st.DASH))
    out.append(table(rows, [0.8 * cm, 5.0 * cm, 3.0 * cm, TEXT_WIDTH - 8.8 * cm]))
    if len(records) > MAX_LISTED_RECORDS:
        out.append(para(f"… and {fmt_count(len(records) - MAX_LISTED_RECORDS)} more (see "
                        "result.json).", "small"))
    return out


__all__ = ["AggregatesSections", "aia_attacks", "chance_corrected", "exposed_records",
           "mia_attacks", "release_words"]
