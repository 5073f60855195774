-- creates: edge_kinds
-- The kinds of a dependency graph's edges (graph.edges), in name order: a kind's code in the passes over the graph
-- is its place in this list (edge_kind_code), and ties between edges go to the later kind.
CREATE OR REPLACE MACRO edge_kinds() AS ['collective', 'event', 'launch', 'program', 'stream', 'sync'];
