"""Writes the three synthetic public-style tables of this folder (issue 33 item 4).

Every value is drawn here from a fixed seed; nothing is copied from a real survey. The shapes
follow tables that are commonly published: a 534-row wage survey whose first column is the row
numbers kept from a larger file, a census-income extract and a hospital-discharge extract.
Run ``python tests/data/public_style/make_tables.py`` to write them again (same bytes).
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def _pick(rng, values, p=None, n=1):
    return list(rng.choice(values, size=n, p=p))


def wages(rng) -> tuple[list[str], list[list]]:
    """534 workers: row numbers from a larger file (rising, with gaps), years of education,
    experience and age, an hourly wage in cents (continuous), and a few categories."""
    n = 534
    rows = np.sort(rng.choice(np.arange(1, 1201), size=n, replace=False))
    education = np.clip(np.round(rng.normal(13, 2.6, n)), 2, 18).astype(int)
    age = np.clip(np.round(rng.normal(36, 11, n)), 18, 64).astype(int)
    experience = np.clip(age - education - 6, 0, None)
    wage = np.round(np.exp(rng.normal(2.05, 0.5, n) + 0.05 * (education - 13)), 2)
    sex = _pick(rng, ["female", "male"], [0.46, 0.54], n)
    union = _pick(rng, ["no", "yes"], [0.82, 0.18], n)
    race = _pick(rng, ["white", "hispanic", "other"], [0.82, 0.05, 0.13], n)
    occupation = _pick(rng, ["management", "sales", "clerical", "service", "professional",
                             "worker"], [0.1, 0.07, 0.18, 0.16, 0.2, 0.29], n)
    sector = _pick(rng, ["manufacturing", "construction", "other"], [0.18, 0.04, 0.78], n)
    married = _pick(rng, ["no", "yes"], [0.34, 0.66], n)
    header = ["rownames", "education", "experience", "wage", "age", "sex", "union", "race",
              "occupation", "sector", "married"]
    body = [[int(rows[i]), int(education[i]), int(experience[i]), f"{wage[i]:.2f}",
             int(age[i]), sex[i], union[i], race[i], occupation[i], sector[i], married[i]]
            for i in range(n)]
    return header, body


def adult(rng) -> tuple[list[str], list[list]]:
    """400 people shaped like a census-income extract: a sampling weight (nearly one value
    per row), age, hours per week and a yes/no income band among a few categories."""
    n = 400
    age = np.clip(np.round(rng.gamma(6, 6.5, n)), 17, 90).astype(int)
    weight = np.round(rng.lognormal(12, 0.5, n)).astype(int)
    hours = np.clip(np.round(rng.normal(40, 11, n)), 1, 99).astype(int)
    workclass = _pick(rng, ["Private", "Self-emp", "Local-gov", "State-gov", "Federal-gov"],
                      [0.72, 0.12, 0.07, 0.05, 0.04], n)
    education = _pick(rng, ["HS-grad", "Some-college", "Bachelors", "Masters", "11th",
                            "Assoc", "Doctorate"], [0.33, 0.23, 0.17, 0.06, 0.1, 0.08, 0.03], n)
    marital = _pick(rng, ["Married", "Never-married", "Divorced", "Separated", "Widowed"],
                    [0.47, 0.33, 0.13, 0.04, 0.03], n)
    race = _pick(rng, ["White", "Black", "Asian-Pac-Islander", "Amer-Indian-Eskimo",
                       "Other"], [0.85, 0.09, 0.03, 0.01, 0.02], n)
    sex = _pick(rng, ["Female", "Male"], [0.33, 0.67], n)
    country = _pick(rng, ["United-States", "Mexico", "Philippines", "Germany", "Canada",
                          "India", "Cuba", "England", "China", "Jamaica", "Italy", "Vietnam"],
                    [0.89, 0.02, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.005,
                     0.005], n)
    income = _pick(rng, ["<=50K", ">50K"], [0.76, 0.24], n)
    header = ["age", "workclass", "fnlwgt", "education", "marital_status", "race", "sex",
              "hours_per_week", "native_country", "income"]
    body = [[int(age[i]), workclass[i], int(weight[i]), education[i], marital[i], race[i],
             sex[i], int(hours[i]), country[i], income[i]] for i in range(n)]
    return header, body


def discharges(rng) -> tuple[list[str], list[list]]:
    """350 hospital stays: a patient code (one per row), age group, sex, county, length of
    stay, total charges (continuous), payer and a diagnosis group."""
    n = 350
    patient = [f"P{100000 + int(k)}" for k in rng.choice(900000, size=n, replace=False)]
    age_group = _pick(rng, ["0 to 17", "18 to 29", "30 to 49", "50 to 69", "70 or Older"],
                      [0.12, 0.14, 0.22, 0.28, 0.24], n)
    sex = _pick(rng, ["F", "M"], [0.54, 0.46], n)
    county = _pick(rng, ["Albany", "Bronx", "Erie", "Kings", "Monroe", "Nassau", "Queens",
                         "Suffolk"], None, n)
    stay = np.clip(np.round(rng.gamma(1.6, 3.0, n)), 1, 60).astype(int)
    charges = np.round(rng.lognormal(9.8, 0.8, n) + 900 * stay, 2)
    payer = _pick(rng, ["Medicare", "Medicaid", "Private Insurance", "Self-Pay"],
                  [0.38, 0.27, 0.3, 0.05], n)
    diagnosis = _pick(rng, ["Circulatory", "Respiratory", "Digestive", "Pregnancy",
                            "Injury", "Mental health", "Neoplasms"],
                      [0.2, 0.15, 0.15, 0.12, 0.14, 0.1, 0.14], n)
    disposition = _pick(rng, ["Home", "Home care", "Skilled nursing", "Expired"],
                        [0.7, 0.15, 0.12, 0.03], n)
    header = ["patient_code", "age_group", "sex", "county", "length_of_stay",
              "total_charges", "payer", "diagnosis_group", "disposition"]
    body = [[patient[i], age_group[i], sex[i], county[i], int(stay[i]), f"{charges[i]:.2f}",
             payer[i], diagnosis[i], disposition[i]] for i in range(n)]
    return header, body


def main() -> None:
    for name, make, seed in (("wages_534.csv", wages, 534), ("adult_like.csv", adult, 1994),
                             ("hospital_discharges.csv", discharges, 2016)):
        header, body = make(np.random.default_rng(seed))
        with open(HERE / name, "w", newline="", encoding="utf-8") as fh:
            out = csv.writer(fh, lineterminator="\n")
            out.writerow(header)
            out.writerows(body)


if __name__ == "__main__":
    main()
