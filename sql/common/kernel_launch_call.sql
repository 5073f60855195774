-- creates: is_kernel_launch_call
-- requires: common.graph_launch
-- Whether a CUDA API call launches kernels: the runtime's and the driver's kernel launches and CUDA graph replays,
-- under the names nsys exports give them ('cudaLaunchKernel_v7000', 'cudaLaunchKernelExC_v11060', 'cuLaunchKernel',
-- 'cudaLaunchCooperativeKernel', 'cudaGraphLaunch_v10000').
CREATE OR REPLACE MACRO is_kernel_launch_call(name) AS
    regexp_matches(name, '^cu(da)?Launch(Cooperative)?Kernel') OR is_graph_launch(name);
