"""Write the saved projects the project-file tests mutate: one real, tiny run of each audit
type, saved the way the app saves a project (config, result, decision log).

    PRA_DEVICE=cpu python tests/data/projects/regenerate.py [AUDIT_TYPE ...]

Kept small (a few seconds each) and seeded, so the files are the same on every machine that
has the same library versions; the tests only need them to be real results of the current
result.json layout, not particular numbers.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
sys.path.insert(0, str(REPO))

TINY = {
    "mechanism": {"trials": 2000},
    "location": {"test_aggregates": 2000, "shadow_aggregates": 500, "sweep_targets": 2,
                 "sweep_test_aggregates": 400,
                 "attacks": ["one_threshold", "two_threshold", "reference", "likelihood_ratio"]},
    "aggregates": {"census_records": 60, "census_auxiliary": 200, "max_targets": 20,
                   "n_shadow": 100, "reconstructions": 2, "membership": True,
                   "mia_attacks": ["desia_mia"], "fraction": 0, "seed": 2,
                   "attacks": ["desia_deterministic_only", "data_only"],
                   "sweep_fractions": [0.5, 1.0], "sweep_attacks": ["data_only"],
                   "sweep_targets": 5, "solver_time_limit": 5},
    "model": {"synthetic_records": 800, "epochs": 10, "shadow_models": 2,
              "reference_models": 2, "attacks": ["btta", "cbtta", "confidence", "lira_online"],
              "exposed_count": 5,
              "defences": {"enabled": True, "kcd_alphas": [0.0, 1.0], "kcd_teachers": 2,
                           "dmp_temperatures": [2.0], "l2_weight_decays": [0.01],
                           "early_stopping_epochs": [], "dpsgd_noise_multipliers": []}},
}


def main() -> None:
    import tomllib

    from engine.audits.registry import config_from_dict, run_audit
    from engine.project import Project, save_project

    chosen = sys.argv[1:] or list(TINY)
    for audit_type, changes in TINY.items():
        if audit_type not in chosen:
            continue
        with open(REPO / "resources" / "configs" / f"{audit_type}_demo.toml", "rb") as fh:
            config = tomllib.load(fh)
        for key, value in changes.items():
            if isinstance(value, dict):
                config[key] = {**config.get(key, {}), **value}
            else:
                config[key] = value
        cfg = config_from_dict(config, source=audit_type)
        result = run_audit(cfg).to_dict()
        project = Project(audit_type=audit_type, config=cfg.to_dict(), result=result,
                          name=str(config.get("name", "")))
        project.log_decision("Reviewed the sample audit.")
        save_project(HERE / f"{audit_type}.praudit.json", project)
        print(audit_type, (HERE / f"{audit_type}.praudit.json").stat().st_size, "bytes")


if __name__ == "__main__":
    main()
