-- (DuckDB.) CUPTI's fixed list of memory copy kinds, as nsys labels them: the ENUM_CUDA_MEMCPY_OPER of an export
-- that lacks the table.
SELECT * FROM (VALUES
    (0, 'Unknown'), (1, 'Host-to-Device'), (2, 'Device-to-Host'), (3, 'Host-to-Array'), (4, 'Array-to-Host'),
    (5, 'Array-to-Array'), (6, 'Array-to-Device'), (7, 'Device-to-Array'), (8, 'Device-to-Device'),
    (9, 'Host-to-Host'), (10, 'Peer-to-Peer'), (11, 'Unified Host-to-Device'), (12, 'Unified Device-to-Host'),
    (13, 'Unified Device-to-Device')
) AS kinds(id, label)
