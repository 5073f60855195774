-- Which way a change of each checked metric is worse (metrics without a direction are not checked).
-- filled by: nsight_ingest.fillers
-- access: private
-- unique: metric
-- not null: metric, direction
-- creates: metric_directions
--   metric     VARCHAR  metric name
--   direction  VARCHAR  up | down
CREATE OR REPLACE TEMP TABLE metric_directions (metric VARCHAR, direction VARCHAR);
