-- Which way a change of each checked metric is worse (metrics without a direction are not checked).
-- filled by: nsight_ingest.fillers
-- creates: metric_directions
--   metric     metric name
--   direction  up | down
CREATE OR REPLACE TEMP TABLE metric_directions (metric VARCHAR, direction VARCHAR);
