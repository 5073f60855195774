"""Input resolution: the files of one capture as the user named them, how inputs are read (nsys, the cache folder),
and the capture's inputs resolved from them (forms known, an .nsys-rep converted, siblings found by name)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from nsight_ingest.errors import InputError
from nsight_ingest.readers import forms
from nsight_ingest.readers.forms import Input, as_input
from nsight_ingest.readers.source import sibling


@dataclass(frozen=True)
class CaptureFiles:
    """The inputs of one capture as the user named them: a cuda_gpu_trace CSV or an nsys export or report (which
    holds every report), and the optional exports beside it (found by name when not given)."""

    gpu_trace: str
    kern_exec: str | None = None
    nvtx_trace: str | None = None
    api_trace: str | None = None
    ncu: tuple[str, ...] = ()

    def given(self) -> list[str]:
        """The files named (an output must not replace one)."""
        return [path for path in (self.gpu_trace, self.kern_exec, self.nvtx_trace, self.api_trace, *self.ncu) if path]


@dataclass(frozen=True)
class Sources:
    """How inputs are read: the nsys executable that converts an .nsys-rep (else $NSYS, else PATH) and the cache
    folder for conversions and stores (else the user's cache folder); `use_cache` false reads every input anew."""

    nsys: str | None = None
    cache_dir: Path | None = None
    use_cache: bool = True


@dataclass(frozen=True)
class CaptureInputs:
    """The inputs of one capture, resolved: their forms known, an .nsys-rep converted, siblings found."""

    gpu_trace: Input
    kern_exec: Input | None
    nvtx_trace: Input | None
    api_trace: Input | None
    ncu: tuple[Input, ...]
    api_summary: Input | None = None
    kernel_summary: Input | None = None

    def roles(self) -> list[tuple[str, Input]]:
        """Each input with its role."""
        named = [("gpu_trace", self.gpu_trace), ("kern_exec", self.kern_exec), ("nvtx_trace", self.nvtx_trace),
                 ("api_trace", self.api_trace), ("api_summary", self.api_summary),
                 ("kernel_summary", self.kernel_summary), *(("ncu", i) for i in self.ncu)]
        return [(role, i) for role, i in named if i is not None]


def _sibling(gpu: Input, report: str) -> Input | None:
    found = None if gpu.streamed else sibling(gpu.label, report)  # a stream has no file name to go by
    return as_input(found) if found else None


def resolve(files: CaptureFiles, sources: Sources, need_nvtx: bool = False, want_nvtx: bool = False) -> CaptureInputs:
    """The capture's inputs: an export gives every report itself, a CSV's siblings are found by name; with
    `need_nvtx`, a missing NVTX trace is an error; with `want_nvtx`, NVTX ranges are read when there are some."""

    def given(text: str | None) -> Input | None:
        return forms.resolve(text, sources.nsys, sources.cache_dir) if text is not None else None

    gpu = given(files.gpu_trace)
    summaries = ()
    if gpu.is_export:  # an export holds the traces the summaries are made of
        kern_exec, api, nvtx = (given(files.kern_exec) or gpu, given(files.api_trace) or gpu,
                                given(files.nvtx_trace) or (gpu if need_nvtx or want_nvtx else None))
    else:
        summaries = (_sibling(gpu, "cuda_api_sum"), _sibling(gpu, "cuda_gpu_kern_sum"))
        kern_exec = given(files.kern_exec) or _sibling(gpu, "cuda_kern_exec_trace")
        api = given(files.api_trace) or _sibling(gpu, "cuda_api_trace")
        nvtx = given(files.nvtx_trace) or (_sibling(gpu, "nvtx_pushpop_trace") if need_nvtx or want_nvtx else None)
        if need_nvtx and nvtx is None:
            raise InputError(f"no sibling nvtx_pushpop_trace for {files.gpu_trace}: give --nvtx-trace FILE")
    return CaptureInputs(gpu, kern_exec, nvtx, api, tuple(given(path) for path in files.ncu), *summaries)
