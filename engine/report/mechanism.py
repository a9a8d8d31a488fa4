"""Report sections specific to the DP-mechanism audit (docs/dev/mechanism_audit_contract.md).

The mechanism audit has an exact answer to compare with: the Neyman–Pearson optimal attacker's
trade-off curve (ARCHITECTURE §6), the composed (ε, δ) of the privacy accountant, and the region
that (ε, δ)-DP permits (paper 002 Thm 1). The measured attacks are a check of that theory that
a reader can trust without following the mathematics.
"""

from __future__ import annotations

from reportlab.lib.units import cm
from reportlab.platypus import Flowable, KeepTogether, Spacer

from engine.report import styles as st
from engine.report.charts import sweep_chart
from engine.report.sections import (
    TEXT_WIDTH,
    AuditSections,
    accounting_table,
    bullets,
    epsilon_bounds_table,
    inputs_table,
    key_value_table,
    markup,
    para,
    short_attack_label,
    standard_limitations,
    sub,
    table,
    theory_tpr,
    tpr_cells,
)
from engine.report.styles import fmt3, fmt_ci, fmt_count, fmt_eps, fmt_num, fmt_pct
from engine.results.loaded import LoadedResult, load_result
from engine.results.mechanism import InverseAnswer, MechanismSettings, MechanismTheory

POSTPROCESS_WORDS = {
    "none": "none (the noisy values are released as they are)",
    "round": "rounded to whole numbers",
    "round_nonnegative": "rounded to whole numbers, negative values set to 0",
}


def _parts(result) -> tuple[LoadedResult, MechanismTheory, MechanismSettings]:
    """The loaded result, its typed theory and its settings (engine.results.mechanism)."""
    r = load_result(result)
    th = r.theory if isinstance(r.theory, MechanismTheory) else MechanismTheory()
    return r, th, MechanismSettings.from_config(r.config)


def _first(*values):
    """The first value that is not None (the theory's figure, else the config's)."""
    return next((v for v in values if v is not None), None)


class MechanismSections(AuditSections):
    """Sections 2, 3, 4 (theory part), 6, 8 and 9 for ``audit_type == "mechanism"``."""

    # ----------------------------------------------------------------- 2. what was audited
    def audited(self, result) -> list[Flowable]:
        r, th, cfg = _parts(result)
        out: list[Flowable] = inputs_table(r, "No input files: the mechanism is simulated.")
        out.append(Spacer(1, 4))
        out.append(key_value_table([
            ("Configuration SHA-256", f'<font face="{st.FONT_MONO}" size="7.5">'
             f'{markup(r.config_sha256 or st.DASH)}</font>'),
            ("Mechanism", markup(th.mechanism_label or cfg.mechanism or st.DASH)),
        ]))
        out.append(Spacer(1, 8))
        scale_name = th.noise_scale_name or "noise scale"
        k = _first(th.observations, cfg.observations)
        source = ("calibrated from ε" if cfg.noise_from == "epsilon"
                  else "given directly" if cfg.noise_from == "scale" else "")
        postprocess = cfg.postprocess if "postprocess" in r.config else st.DASH
        rows = [
            ("Parameter", "Value", "Meaning"),
            ("Mechanism", markup(th.mechanism_label or cfg.mechanism),
             "the noise added to each released value"),
            ("ε per observation", fmt_eps(_first(th.epsilon_per_observation, cfg.epsilon)),
             "privacy loss of one release (smaller = more private)"),
            (f"Noise scale ({markup(scale_name.removeprefix('scale '))})",
             fmt_num(th.noise_scale),
             f"size of the noise{', ' + source if source else ''}"),
            ("δ (failure probability)", st.fmt_sci(_first(th.delta, cfg.delta)),
             "probability the ε guarantee may fail"),
            ("Sensitivity (Δ)", fmt_num(_first(th.sensitivity, cfg.sensitivity)),
             "the most one person can change one released value"),
            ("Observations per person (k)", fmt_num(k),
             "how many releases each person contributes to"),
            ("Simulated games per case (N)", fmt_num(cfg.trials),
             "games played with the person present, and as many with the person absent"),
            ("Post-processing", markup(POSTPROCESS_WORDS.get(str(cfg.postprocess), postprocess)),
             "applied to each release after the noise"),
            ("Seed", markup(_first(r.seed, cfg.seed, st.DASH)),
             "drives every random number of the simulation"),
        ]
        out.append(table(rows, [4.6 * cm, 3.4 * cm, TEXT_WIDTH - 8.0 * cm]))
        return out

    # ----------------------------------------------------------------- 3. threat model
    def threat_model(self, result) -> list[Flowable]:
        k = _parts(result)[1].observations
        k_text = f"all {fmt_count(k)}" if isinstance(k, int) else "all k"
        return [
            para("We assume the strongest attacker that differential privacy protects against "
                 "(paper 002 §3, the worst-case membership game):"),
            *bullets([
                "The attacker already knows everyone else's data, and knows exactly how the "
                "mechanism works: which noise, how much, and how many releases.",
                f"The attacker sees {k_text} noisy releases that involve the person.",
                "The attacker must decide whether that one person's data is in the release or "
                "not. Half of the games are played with the person in, half without.",
            ]),
            para("Real attackers usually know less, so this is a cautious (worst-case) view: if "
                 "this attacker learns little, a real one learns no more from this release."),
        ]

    # ----------------------------------------------------------------- 4. method, theory part
    def method_theory(self, result) -> list[Flowable]:
        opt = _parts(result)[1].optimal_attacker
        err = opt.numerical_error if opt is not None else None
        err_text = ("exact" if not err else
                    f"numerical error at most {fmt_num(err)} on AUC and TPR")
        out = [sub("Exact theory"),
               para("<b>The best possible attacker</b> (Neyman–Pearson lemma): the "
                    "likelihood-ratio "
                    "test is the most powerful test at every false-positive rate, so its ROC is "
                    "the best any attacker can do against this mechanism. Statistic: "
                    f"{markup((opt and opt.statistic) or st.DASH)}; computed by "
                    f"{markup((opt and opt.method) or st.DASH)} ({err_text}). Closed forms and "
                    "numerical convolution as in ARCHITECTURE §6; Laplace case from paper 000 "
                    "§3 (clipped sum)."),
               para("<b>The composed guarantee</b>: the privacy loss of the k observations is "
                    "added up with a privacy-loss-distribution (PLD) accountant, which gives a "
                    "pessimistic and an optimistic value that bracket the true ε; for Gaussian "
                    "noise the Gaussian-DP closed form is exact. The worst case of k-fold "
                    "ε0-DP (Kairouz–Oh–Viswanath optimal composition, paper 000 Thm 1) shows "
                    "what the claimed ε per observation alone would allow.")]
        return out

    # ----------------------------------------------------------------- 6. comparison
    def theory(self, result) -> list[Flowable]:
        r, th, _ = _parts(result)
        out: list[Flowable] = []
        out += self._accounting(th)
        out += self._attacker_comparison(r, th)
        out += self._epsilon_bounds(r, th)
        out += self._what_if(r, th)
        return out

    def _accounting(self, th: MechanismTheory) -> list[Flowable]:
        return accounting_table(th, k_sym="k", over="k observations")

    def _attacker_comparison(self, r: LoadedResult, th: MechanismTheory) -> list[Flowable]:
        opt = th.optimal_attacker
        worst = th.worst_case_dp
        attacks = r.attacks[:3]
        head = ["Measure", "Best possible attacker (exact theory)"]
        if worst:
            head.append("Worst case for ε0-DP (exact)")
        head += [markup(short_attack_label(a)) + " (measured)" for a in attacks]
        rows = [head]

        rows.append(["Balanced accuracy", fmt_pct(opt.accuracy if opt else None)]
                    + ([fmt_pct(worst.accuracy)] if worst else [])
                    + [f"{fmt_pct(a.accuracy)} {fmt_ci(a.accuracy_ci, fmt_pct)}"
                       for a in attacks])
        rows.append(["AUC", fmt3(opt.auc if opt else None)]
                    + ([fmt3(worst.auc)] if worst else [])
                    + [f"{fmt3(a.auc)} {fmt_ci(a.auc_ci, fmt3)}" for a in attacks])
        for t in opt.targets if opt else []:
            row = [f"TPR at {fmt_pct(t)} FPR", fmt_pct(theory_tpr(opt, t))]
            if worst:
                row.append(fmt_pct(theory_tpr(worst, t)))
            for a in attacks:
                m = a.tpr_at(t)
                if m is None:
                    row.append(st.DASH)
                elif not m.measurable:
                    row.append(f"not measurable with {fmt_count(a.n_negative)} "
                               "non-members")
                else:
                    v, ci, _ = tpr_cells(m)
                    row.append(f"{v} {ci}")
            rows.append(row)
        first = 3.4 * cm
        rest = (TEXT_WIDTH - first) / (len(head) - 1)
        return [KeepTogether([
            sub("What the strongest attacker can do, and what the attacks achieved"),
            table(rows, [first] + [rest] * (len(head) - 1)),
            para("The exact values are the ceiling for this mechanism: no attack can beat the "
                 "best possible attacker. Measured values should match it within their "
                 "intervals (the same attacker, simulated) or fall below it (weaker attacks). "
                 "The worst case for "
                 "ε0-DP shows what the claimed ε per observation would allow for a mechanism "
                 "less forgiving than this one.", "small")])]

    def _epsilon_bounds(self, r: LoadedResult, th: MechanismTheory) -> list[Flowable]:
        return epsilon_bounds_table(r, th)

    def _what_if(self, r: LoadedResult, th: MechanismTheory) -> list[Flowable]:
        out: list[Flowable] = []
        if th.sweep is not None:
            out.append(KeepTogether([
                sub("What if the setting changed?"),
                para("The best possible attacker, computed exactly, for other values of the "
                     "swept setting, all "
                     "else equal. The dashed vertical line marks the audited setting.", "small"),
                sweep_chart(r)]))
        inv = th.inverse
        if inv is not None:
            out.append(sub("Which setting would keep the risk under a limit?"))
            out.append(para(_inverse_text(inv)))
        return out

    # ----------------------------------------------------------------- 8. limitations
    def limitations(self, result) -> list[str]:
        r, _, cfg = _parts(result)
        out = standard_limitations(r)
        out.insert(1, "The theory assumes the attacker knows everyone else's data and the "
                      "mechanism exactly (section 3). That is the worst case: a real attacker "
                      "who knows less does no better.")
        pp = cfg.postprocess
        out.append("Post-processing of the released values (rounding, setting negatives to 0) "
                   "can only reduce risk, never increase it; the theory ignores it and is "
                   "therefore an upper bound"
                   + (" for this configuration." if pp not in (None, "none") else "."))
        out.append("The mechanism is simulated from its description: the audit checks what the "
                   "stated noise and parameters guarantee, not that a production system "
                   "implements them correctly (e.g. floating-point noise generation).")
        return out

    # ----------------------------------------------------------------- 9. exposed records
    def exposed(self, result, include_records: bool) -> list[Flowable]:
        return [para("No individual records are involved: the audit simulates the mechanism. "
                     "No real person's data was read, so no record can be exposed by this "
                     "report.")]


def _inverse_text(inv: InverseAnswer) -> str:
    """The inverse question in one plain answer (contract: theory.inverse)."""
    fpr, max_tpr, k = inv.fpr, inv.max_tpr, inv.observations
    question = (f"To keep the best possible attacker from finding more than "
                f"{fmt_pct(max_tpr)} of the "
                f"people present while wrongly flagging {fmt_pct(fpr)} of the people absent, "
                f"with {fmt_num(k)} observations per person: ")
    if not inv.feasible or inv.max_epsilon_per_observation is None:
        note = f" {markup(inv.note)}" if inv.note else ""
        return question + "<b>no setting achieves this</b>." + note
    name = markup(inv.noise_scale_name or "noise scale")
    text = (question + f"use at most <b>ε = {fmt_eps(inv.max_epsilon_per_observation)}"
            f"</b> per observation, i.e. a noise {name} of at least "
            f"<b>{fmt_num(inv.min_noise_scale)}</b>")
    if inv.achieved_tpr is not None:
        text += f" (the attacker then finds {fmt_pct(inv.achieved_tpr)})"
    text += "."
    if inv.note:
        text += f" {markup(inv.note)}"
    return text
