"""Products of CUDA tensors on a GPU: device memory from the CUDA runtime the module loaded,
exported through DLPack, multiplied in place and compared with numpy. Without a GPU (CI, the
build machine) every test here skips; scripts/gpu-check's machine runs them."""
import ctypes

import numpy as np
import pytest

import gemmtune
from dlpack_tensors import KDL_BFLOAT, KDL_CUDA, KDL_FLOAT, KDL_INT, Tensor, bfloat16_bits

RNG = np.random.default_rng(36)
H2D, D2H = 1, 2  # cudaMemcpyKind


@pytest.fixture(scope="module")
def gpu():
    try:
        session = gemmtune.Session(device="cuda", store="off", samples=1, min_sample_ms=0.05)
    except gemmtune.Error as error:
        pytest.skip(f"no GPU: {error}")
    # The runtime the module itself loaded: the same library, so one CUDA context.
    paths = [line.split()[-1] for line in open("/proc/self/maps") if "libcudart.so" in line]
    runtime = ctypes.CDLL(paths[0])
    runtime.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
    runtime.cudaMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    runtime.cudaFree.argtypes = [ctypes.c_void_p]
    allocations = []

    class Gpu:
        def __init__(self):
            self.session = session

        def upload(self, host, code, bits, transposed=False):
            """A device copy of a host matrix; transposed=True stores it column-major."""
            stored = np.ascontiguousarray(host.T if transposed else host)
            pointer = ctypes.c_void_p()
            assert runtime.cudaMalloc(ctypes.byref(pointer), max(stored.nbytes, 1)) == 0
            allocations.append(pointer)
            assert runtime.cudaMemcpy(pointer, stored.ctypes.data, stored.nbytes, H2D) == 0
            rows, cols = host.shape
            strides = [1, rows] if transposed else [cols, 1]
            return Tensor(stored, (rows, cols), code, bits, device_type=KDL_CUDA, strides=strides,
                          address=pointer.value)

        def download(self, tensor):
            host = np.empty_like(tensor.storage)
            assert runtime.cudaMemcpy(host.ctypes.data, tensor.address, host.nbytes, D2H) == 0  # waits for the GPU
            return host

    yield Gpu()
    for pointer in allocations:
        runtime.cudaFree(pointer)


def ints(rows, cols):
    return RNG.integers(-3, 4, size=(rows, cols)).astype(np.float32)


@pytest.mark.parametrize("a_t, b_t", [(False, False), (False, True), (True, False), (True, True)])
def test_float16_tensors_in_every_layout(gpu, compare, a_t, b_t):
    a, b = ints(64, 48), ints(48, 80)
    out = gpu.upload(np.zeros((64, 80), dtype=np.float16), KDL_FLOAT, 16)
    gemmtune.matmul(gpu.upload(a.astype(np.float16), KDL_FLOAT, 16, a_t),
                    gpu.upload(b.astype(np.float16), KDL_FLOAT, 16, b_t), out=out)
    compare(gpu.download(out), a.astype(np.float64) @ b)


def test_bfloat16_with_alpha_and_beta(gpu, compare):
    a, b, c = ints(32, 64), ints(64, 40), ints(32, 40)
    out = gpu.upload(bfloat16_bits(c), KDL_BFLOAT, 16)
    gpu.session.matmul(gpu.upload(bfloat16_bits(a), KDL_BFLOAT, 16), gpu.upload(bfloat16_bits(b), KDL_BFLOAT, 16, True),
                       out=out, alpha=0.5, beta=2.0)
    got = (gpu.download(out).astype(np.uint32) << 16).view(np.float32)
    # Up to 0.5·576 + 6 = 294: bfloat16's 8-bit significand rounds above 256.
    compare(got, 0.5 * (a.astype(np.float64) @ b) + 2.0 * c, tolerance=2.0**-8)


def test_int8_into_int32(gpu, compare):
    a, b = ints(16, 64).astype(np.int8), ints(32, 64).astype(np.int8)  # B read k-major ("nt")
    out = gpu.upload(np.zeros((16, 32), dtype=np.int32), KDL_INT, 32)
    gemmtune.matmul(gpu.upload(a, KDL_INT, 8), gpu.upload(b.T, KDL_INT, 8, True), out=out, stream=1)
    compare(gpu.download(out), a.astype(np.int64) @ b.T.astype(np.int64))
