-- (DuckDB.) CUPTI's fixed list of memory kinds, as nsys labels them: the ENUM_CUDA_MEM_KIND of an export that
-- lacks the table.
SELECT * FROM (VALUES
    (0, 'Pageable'), (1, 'Pinned'), (2, 'Device'), (3, 'Array'), (4, 'Managed'), (5, 'Device Static'),
    (6, 'Managed Static'), (7, 'Unknown')
) AS kinds(id, label)
