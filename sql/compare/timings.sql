-- Per-update wall-clock timings of matched before/after runs, as read from the --abba CSV.
-- filled by: nsight_ingest.fillers
-- creates: timings
--   trial    trial label
--   variant  before | after
--   update   update number within the trial
--   seconds  wall-clock seconds of the update
CREATE OR REPLACE TEMP TABLE timings (trial VARCHAR, variant VARCHAR, "update" BIGINT, seconds DOUBLE);
