"""Fixed aggregate statistics (paper 003): counting queries, the releases built from them,
and fast answers on many (shadow) datasets. Independent of how the records are loaded."""

from engine.aggregates.queries import (
    CENSUS_P12_AGE_BINS,
    FIVE_YEAR_AGE_BINS,
    CountingQuery,
    Domain,
    answers,
    answers_many,
    census_p_tables,
    contingency_table,
    load_published_table,
    load_queries_file,
    marginals,
    query_matrix,
)
from engine.aggregates.release import (
    Release,
    ReleaseSpec,
    build_release,
    noisy_answers,
    release_noise_scale,
    release_sensitivity,
    select_queries,
)

__all__ = [
    "CENSUS_P12_AGE_BINS", "FIVE_YEAR_AGE_BINS", "CountingQuery", "Domain", "Release",
    "ReleaseSpec", "answers", "answers_many", "build_release", "census_p_tables",
    "contingency_table", "load_published_table", "load_queries_file", "marginals",
    "noisy_answers", "query_matrix", "release_noise_scale", "release_sensitivity",
    "select_queries",
]
