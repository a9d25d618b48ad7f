"""Operands through __dlpack__: CPU tensors of other libraries (numpy behind a wrapper, ctypes
producers with strides, offsets and bfloat16) read in place and released, and CUDA tensors,
which on this machine without a GPU must end in the "no CUDA device" error, or in "not built"
where the build has no CUDA."""
import numpy as np
import pytest

import gemmtune
from dlpack_tensors import KDL_BFLOAT, KDL_CUDA, KDL_FLOAT, Forwarding, Tensor, bfloat16_bits, from_numpy

RNG = np.random.default_rng(34)


def ints(rows, cols, dtype=np.float32):
    return RNG.integers(-3, 4, size=(rows, cols)).astype(dtype)


def reference(a, b):
    return a.astype(np.float64) @ b.astype(np.float64)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8])
def test_numpy_behind_dlpack_gives_the_same_product(session, compare, dtype):
    a, b = ints(11, 6, dtype), ints(6, 5, dtype)
    c = session.matmul(Forwarding(a), Forwarding(b))
    assert isinstance(c, np.ndarray)
    compare(c, reference(a, b))


def test_strided_and_offset_dlpack_tensors_are_read_where_they_say(session, compare):
    storage = ints(10, 16)
    a = storage[1:9:2, 3:10]  # 4x7: rows 2 apart, starting 19 elements in
    tensor = Tensor(storage, (4, 7), KDL_FLOAT, 32, strides=[32, 1], offset=(16 + 3) * 4)
    b = ints(7, 3)
    compare(session.matmul(tensor, from_numpy(b.T.copy().T)), reference(a, b))
    assert tensor.streams == [None], "CPU producers take no stream"


def test_every_capsule_taken_is_released(session):
    a, b = from_numpy(ints(3, 4)), from_numpy(ints(4, 2))
    out = from_numpy(np.zeros((3, 2), dtype=np.float32))
    for _ in range(3):
        session.matmul(a, b, out=out)
    with pytest.raises(gemmtune.InvalidArgumentError):
        session.matmul(a, from_numpy(ints(3, 2)))  # a failed call lets go too
    for tensor in (a, b, out):
        assert tensor.deleted == tensor.exports > 0


def test_a_dlpack_out_is_written_in_place(session, compare):
    a, b = ints(5, 4), ints(4, 6)
    storage = ints(5, 6)
    expected = reference(a, b) - storage
    out = from_numpy(storage)
    assert session.matmul(Forwarding(a), b, out=out, beta=-1.0) is out
    compare(storage, expected)


def test_bfloat16_tensors_multiply_into_float32(session, compare):
    a, b = ints(9, 8), ints(8, 5)
    a_bits, b_bits = bfloat16_bits(a), bfloat16_bits(b)
    c = session.matmul(Tensor(a_bits, (9, 8), KDL_BFLOAT, 16), Tensor(b_bits, (8, 5), KDL_BFLOAT, 16))
    assert c.dtype == np.float32
    compare(c, reference(a, b))
    out = np.zeros((5, 9), dtype=np.float32).T  # column-major: computed as its transpose
    b_t = np.ascontiguousarray(b_bits.T)
    session.matmul(Tensor(a_bits, (9, 8), KDL_BFLOAT, 16), Tensor(b_t, (8, 5), KDL_BFLOAT, 16, strides=[1, 8]), out=out)
    compare(out, reference(a, b))


def test_a_bfloat16_out_receives_bfloat16(session, compare):
    a, b = ints(6, 4), ints(4, 3)
    out_bits = np.zeros((6, 3), dtype=np.uint16)
    session.matmul(Tensor(bfloat16_bits(a), (6, 4), KDL_BFLOAT, 16), Tensor(bfloat16_bits(b), (4, 3), KDL_BFLOAT, 16),
                   out=Tensor(out_bits, (6, 3), KDL_BFLOAT, 16))
    compare((out_bits.astype(np.uint32) << 16).view(np.float32), reference(a, b))


def test_an_unknown_dlpack_dtype_is_a_type_error(session, raises):
    tensor = Tensor(np.zeros((2, 2), dtype=np.float64), (2, 2), KDL_FLOAT, 64)
    with raises(TypeError, "a has DLPack dtype code 2 bits 64"):
        session.matmul(tensor, np.ones((2, 2), dtype=np.float32))
    assert tensor.deleted == tensor.exports == 1


def test_an_unknown_dlpack_device_is_a_type_error(session, raises):
    tensor = Tensor(np.zeros((2, 2), dtype=np.float32), (2, 2), KDL_FLOAT, 32, device_type=14)  # kDLOneAPI
    with raises(TypeError, "a is on DLPack device type 14"):
        session.matmul(tensor, np.ones((2, 2), dtype=np.float32))


# CUDA tensors. Their memory here is host memory declared as a device's: the tests only reach the
# checks before any kernel would read it, so they must not run where a GPU is.
def cuda_tensor(rows, cols):
    return Tensor(np.zeros((rows, cols), dtype=np.float32), (rows, cols), KDL_FLOAT, 32, device_type=KDL_CUDA)


@pytest.fixture
def no_gpu():
    try:
        gemmtune.Session(device="cuda", store="off")
    except gemmtune.Error:
        return
    pytest.skip("a GPU is present: these tests drive the CUDA path with host memory")


def cuda_built():
    return all(b["available"] for b in gemmtune.compiled_backends("cuda"))


def test_cuda_tensors_without_a_gpu_end_in_the_no_device_error(no_gpu, raises):
    a, b, out = cuda_tensor(4, 3), cuda_tensor(3, 2), cuda_tensor(4, 2)
    if cuda_built():
        with raises(gemmtune.UnavailableError, "device 'cuda:0': no CUDA device") as info:
            gemmtune.matmul(a, b, out=out)
        assert info.value.code == "unavailable"
    else:
        with raises(gemmtune.Error, "cuda"):
            gemmtune.matmul(a, b, out=out)
    assert a.streams == [1], "a CUDA producer is told gemmtune's stream: the legacy default stream"
    assert a.deleted == a.exports == 1


def test_a_cuda_producer_is_told_the_stream_gemmtune_will_run_on(no_gpu):
    a, b, out = cuda_tensor(4, 3), cuda_tensor(3, 2), cuda_tensor(4, 2)
    with pytest.raises(gemmtune.Error):  # no GPU: the call ends at the session
        gemmtune.matmul(a, b, out=out, stream=0x7F00AB)
    assert a.streams == b.streams == out.streams == [0x7F00AB]


@pytest.mark.parametrize("stream", [0, -1])
def test_a_stream_that_dlpack_does_not_number_is_refused(raises, stream):
    with raises(gemmtune.InvalidArgumentError, f"stream={stream} is not a stream"):
        gemmtune.matmul(cuda_tensor(4, 3), cuda_tensor(3, 2), out=cuda_tensor(4, 2), stream=stream)


def test_a_stream_for_cpu_operands_is_refused(session, raises):
    with raises(gemmtune.InvalidArgumentError, "stream= is for CUDA operands; a and b are on cpu"):
        session.matmul(np.ones((2, 2), dtype=np.float32), np.ones((2, 2), dtype=np.float32), stream=1)


def test_cuda_tensors_need_an_out(no_gpu, raises):
    with raises(gemmtune.InvalidArgumentError, "a and b are on cuda:0: pass out="):
        gemmtune.matmul(cuda_tensor(4, 3), cuda_tensor(3, 2))


def test_operands_on_two_devices_are_refused(raises):
    with raises(gemmtune.InvalidArgumentError, "a is on cpu but b is on cuda:0"):
        gemmtune.matmul(np.ones((4, 3), dtype=np.float32), cuda_tensor(3, 2))
    with raises(gemmtune.InvalidArgumentError, "a is on cuda:0 but out is on cpu"):
        gemmtune.matmul(cuda_tensor(4, 3), cuda_tensor(3, 2), out=np.ones((4, 2), dtype=np.float32))


def test_a_cpu_session_refuses_cuda_operands(session, raises):
    with raises(gemmtune.InvalidArgumentError, "the operands are on cuda:0 but the session runs on cpu"):
        session.matmul(cuda_tensor(4, 3), cuda_tensor(3, 2), out=cuda_tensor(4, 2))


def test_a_cuda_out_that_shares_memory_with_an_input_is_refused(raises):
    shared = np.zeros((4, 4), dtype=np.float32)
    a = Tensor(shared, (4, 4), KDL_FLOAT, 32, device_type=KDL_CUDA)
    with raises(gemmtune.InvalidArgumentError, "out shares memory with a on cuda:0"):
        gemmtune.matmul(a, cuda_tensor(4, 4), out=Tensor(shared, (4, 4), KDL_FLOAT, 32, device_type=KDL_CUDA))


def test_cuda_operands_gemmtune_cannot_address_are_refused_not_copied(raises):
    strided = Tensor(np.zeros((4, 6), dtype=np.float32), (4, 3), KDL_FLOAT, 32, device_type=KDL_CUDA, strides=[6, 2])
    with raises(gemmtune.InvalidArgumentError, "a (4x3, steps of 24 and 8 bytes) cannot be read in place on cuda:0"):
        gemmtune.Session(store="off").matmul(strided, cuda_tensor(3, 2), out=cuda_tensor(4, 2))
