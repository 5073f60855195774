-- finding: unclassified_kernel_time | more than 10% of the kernel time is in family 'other' (families, over every
--   component and device): kernels the family rules do not know
-- One finding per NVTX group, with the 5 names of family 'other' holding most time (top_kernels). Not a time
-- saving (gain ceiling 0): until these kernels have a family, findings by family cannot see them. Severity
-- medium from 30%, low below.
WITH other AS (
    SELECT nvtx_group, time_ns, launches FROM families WHERE family = 'other' AND component IS NULL AND device IS NULL
),
names AS (
    SELECT nvtx_group,
           list({'short_name': short_name, 'name': name, 'launches': launches, 'total_ns': total_ns}
                ORDER BY total_ns DESC, name)[1:5] AS names
    FROM top_kernels
    WHERE device IS NULL AND family = 'other'
    GROUP BY nvtx_group
)
SELECT
    'unclassified_kernel_time' AS id,
    CASE WHEN o.time_ns > 0.30 * s.kernel_time_ns THEN 'medium' ELSE 'low' END AS severity,
    printf('Unclassified kernels: %.0f%% of kernel time (%.2f ms) is in no kernel family',
           100 * o.time_ns / s.kernel_time_ns, o.time_ns / 1e6) AS title,
    {'other_time_ns': o.time_ns, 'other_launches': o.launches, 'kernel_time_ns': s.kernel_time_ns,
     'other_percent_of_kernel_time': 100 * o.time_ns / s.kernel_time_ns, 'top_names': n.names} AS evidence,
    {'nvtx_group': o.nvtx_group} AS scope,
    0 AS gain_ceiling_ns,
    'Add family rules for these names (a folder of .sql files given with --families; see "Kernel families" in the '
        || 'README), so that the findings by family see them' AS suggestion,
    'Not a time saving: the ceiling is 0' AS caveat
FROM other o
JOIN summary s ON s.device IS NULL AND s.nvtx_group IS NOT DISTINCT FROM o.nvtx_group
LEFT JOIN names n ON n.nvtx_group IS NOT DISTINCT FROM o.nvtx_group
WHERE s.kernel_time_ns > 0 AND o.time_ns > 0.10 * s.kernel_time_ns
