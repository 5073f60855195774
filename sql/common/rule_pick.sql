-- creates: rule_pick
-- Which rule wins among those matching one kernel name or context (`match_key`): the lowest priority, then the
-- rule file that comes first in file-name order (rule_rank), then the component name. 1 for the winner, 2 for the
-- next, ... (a window function: use it in the SELECT list of the matches).
CREATE OR REPLACE MACRO rule_pick(match_key, priority, rule_rank, component) AS
    row_number() OVER (PARTITION BY match_key ORDER BY priority, rule_rank, component);
