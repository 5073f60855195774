-- The relation context rules select from (the rule-file contract): one row per distinct kernel context of the
-- scope, i.e. a kernel name with the names of the 4 kernels before and after it on its stream (nearest first, NULL
-- past the ends) and the classes name rules gave them.
-- requires: scope.kernels, classify.name_winners
-- access: public
-- unique: context_key
-- not null: context_key, name, component
-- creates: kernel_contexts
--   context_key      UBIGINT    the context (scope_kernels.context_key)
--   name             VARCHAR    kernel name
--   component        VARCHAR    its class from name rules
--   sub_component    VARCHAR    its sub-class from name rules
--   prev_names       VARCHAR[]  names of the 4 kernels before it, nearest first
--   prev_components  VARCHAR[]  their classes from name rules
--   next_names       VARCHAR[]  names of the 4 kernels after it, nearest first
--   next_components  VARCHAR[]  their classes from name rules
CREATE OR REPLACE TEMP TABLE kernel_contexts AS
WITH lookup AS (
    -- name ids are 1..n, so list position = name id
    SELECT list(name ORDER BY name_id) AS names,
           list(component ORDER BY name_id) AS components,
           list(sub_component ORDER BY name_id) AS sub_components
    FROM name_winners
),
contexts AS (
    -- every kernel of a context has the same nine ids (they make its key)
    SELECT context_key, any_value(name_id) AS name_id,
           [any_value(prev_1), any_value(prev_2), any_value(prev_3), any_value(prev_4)] AS prev_ids,
           [any_value(next_1), any_value(next_2), any_value(next_3), any_value(next_4)] AS next_ids
    FROM scope_kernels
    GROUP BY context_key
)
SELECT c.context_key,
       l.names[c.name_id]                                        AS name,
       l.components[c.name_id]                                   AS component,
       l.sub_components[c.name_id]                               AS sub_component,
       list_transform(c.prev_ids, lambda i: l.names[i])          AS prev_names,
       list_transform(c.prev_ids, lambda i: l.components[i])     AS prev_components,
       list_transform(c.next_ids, lambda i: l.names[i])          AS next_names,
       list_transform(c.next_ids, lambda i: l.components[i])     AS next_components
FROM contexts c, lookup l;
