-- creates: max_duration_ns
-- The longest duration a GPU operation is believed to have: an hour. Operations with a negative duration or a
-- longer one are data errors, left out of every analysis (scope_*.sql, rank_kernels.sql) and counted (integrity.sql).
CREATE OR REPLACE MACRO max_duration_ns() AS 3600000000000;
