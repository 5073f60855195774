-- creates: ns_percentiles
-- Percentile p of a set of values, interpolated as quantile_cont does, from its distinct values v, each with upto
-- (how many values are <= v) and n (how many values in all): an aggregate over the distinct values of one group.
-- quantile_cont holds every value of a group in memory that cannot spill (8M launch calls: a 64 MB block that
-- a 512 MB limit could not give); counted first, the distinct values are a table that spills like any other.
CREATE OR REPLACE MACRO percentile_of_counts(v, upto, n, p) AS
    min(v) FILTER (WHERE upto > floor((n - 1) * CAST(p AS DOUBLE)))
    + ((any_value(n) - 1) * CAST(p AS DOUBLE) - floor((any_value(n) - 1) * CAST(p AS DOUBLE)))
      * (min(v) FILTER (WHERE upto > ceil((n - 1) * CAST(p AS DOUBLE)))
         - min(v) FILTER (WHERE upto > floor((n - 1) * CAST(p AS DOUBLE))));

-- The percentile columns of a duration distribution (p50_ns, p90_ns, p99_ns, max_ns) from its distinct durations,
-- as percentile_of_counts takes them; `unnest(ns_percentiles(...))` in a SELECT gives the four columns.
CREATE OR REPLACE MACRO ns_percentiles(v, upto, n) AS {
    'p50_ns': percentile_of_counts(v, upto, n, 0.50),
    'p90_ns': percentile_of_counts(v, upto, n, 0.90),
    'p99_ns': percentile_of_counts(v, upto, n, 0.99),
    'max_ns': max(v)
};
