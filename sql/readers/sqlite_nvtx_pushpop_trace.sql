-- (SQLite dialect.) NVTX push/pop ranges (event type 59) with their text.
SELECT n.start AS start_ns, n."end" AS end_ns, n."end" - n.start AS duration_ns, NULL AS duration_child_ns,
       NULL AS duration_nonchild_ns, coalesce(n.text, s.value, '') AS name,
       CASE WHEN substr(coalesce(n.text, s.value, ''), 1, 1) = ':' THEN substr(coalesce(n.text, s.value, ''), 2)
            ELSE coalesce(n.text, s.value, '') END AS range_name,
       (n.globalTid >> 24) & 16777215 AS pid, n.globalTid & 16777215 AS tid, NULL AS level, NULL AS num_children,
       n.rangeId AS range_id, NULL AS parent_id, NULL AS range_stack, NULL AS name_tree
FROM NVTX_EVENTS n LEFT JOIN StringIds s ON s.id = n.textId
WHERE n.eventType = 59 AND n."end" IS NOT NULL
