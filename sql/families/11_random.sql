-- family: random | random numbers and dropout masks: PyTorch distributions (normal_kernel, distribution_elementwise_grid_stride_kernel), Philox/cuRAND, dropout
-- By name, token sampling included (top-k/top-p sampling draws from a distribution); these beat the elementwise and
-- memory tokens their templates also carry (priority 24).
SELECT name, 'random' AS family, 24 AS priority
FROM kernel_names
WHERE NOT regexp_matches(bare_name, '^triton_(poi|red|per|tem)_')
  AND regexp_matches(bare_name, '(?i)distribution_elementwise|normal_kernel|uniform_kernel|bernoulli|random_from_to|random_kernel|philox|curand|dropout|randperm|multinomial|exponential_kernel|(^|[^a-z])rand_|sampling')
