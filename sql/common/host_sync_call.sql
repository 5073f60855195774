-- creates: is_host_sync_call
-- Whether a CUDA API call blocks the host until the GPU has finished work: the runtime's and the driver's
-- device, context, stream and event synchronization calls, under the names nsys exports give them (with or without
-- a version suffix: 'cudaStreamSynchronize', 'cudaDeviceSynchronize_v3020', 'cuStreamSynchronize').
CREATE OR REPLACE MACRO is_host_sync_call(name) AS
    regexp_matches(name, '^(cuda(Device|Thread|Stream|Event)Synchronize|cu(Ctx|Stream|Event)Synchronize)(_v\d+|_ptsz)*$');
