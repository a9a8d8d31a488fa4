"""Membership game: batched numpy simulation vs a straightforward per-trial Python loop.

Both play the same game (same mechanism, N, k, statistic); the ratio is reference / ours.
"""

from bench.timing import best_time, report
from engine.attacks.dp_mechanism import optimal_statistic
from engine.games.membership import MechanismGame, play, play_reference
from engine.runtime import rng


def main() -> None:
    for mech, scale in (("laplace", 1.0), ("gaussian", 1.0)):
        for k in (1, 10):
            game = MechanismGame(mech, scale, 1.0, k, trials=20000, baseline=100.0)
            stat, _ = optimal_statistic(mech, 1.0)
            ours = best_time(lambda g=game, s=stat: play(g, {"s": s}, rng(1, "bench")))
            if mech == "laplace":
                def ref_stat(xs):
                    return sum(min(max(x, 0.0), 1.0) for x in xs)
            else:
                def ref_stat(xs):
                    return sum(xs)
            reference = best_time(lambda g=game, s=ref_stat: play_reference(g, s, rng(1, "bench")),
                                  repeats=1)
            report(f"membership_game[{mech}, N=20000, k={k}]", ours, reference)


if __name__ == "__main__":
    main()
