-- creates: is_graph_launch
-- Whether a CUDA API call replays a CUDA graph (one call, the graph's many kernels), under the names nsys exports
-- give it: 'cudaGraphLaunch', 'cudaGraphLaunch_v10000', 'cuGraphLaunch'.
CREATE OR REPLACE MACRO is_graph_launch(name) AS regexp_matches(name, '^cu(da)?GraphLaunch');
