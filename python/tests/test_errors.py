"""Every misuse ends in a Python exception that names what is wrong: the module's own checks
(types, shapes, devices) and gemmtune's (dtype combinations, scalars, options), the latter
with the library's message, as gemmtune.Error subclasses carrying the error code."""
import numpy as np
import pytest

import gemmtune


def f32(rows, cols):
    return np.ones((rows, cols), dtype=np.float32)


def test_the_exception_classes_are_gemmtune_errors_and_builtin_kinds():
    assert issubclass(gemmtune.Error, RuntimeError)
    assert issubclass(gemmtune.InvalidArgumentError, gemmtune.Error)
    assert issubclass(gemmtune.InvalidArgumentError, ValueError)
    assert issubclass(gemmtune.UnsupportedError, ValueError)
    assert issubclass(gemmtune.NotFoundError, LookupError)
    assert issubclass(gemmtune.UnavailableError, gemmtune.Error)


@pytest.mark.parametrize("dtype", [np.float64, np.int16, np.uint8, np.complex64, np.int64])
def test_a_dtype_gemmtune_does_not_multiply_is_a_type_error_naming_it(session, raises, dtype):
    with raises(TypeError, "a has dtype " + np.dtype(dtype).name, "float32, float16 and int8"):
        session.matmul(np.ones((2, 3), dtype=dtype), f32(3, 2))


def test_a_non_native_byte_order_is_a_type_error(session, raises):
    with raises(TypeError, "b has dtype >f4"):
        session.matmul(f32(2, 3), np.ones((3, 2), dtype=">f4"))


def test_inputs_of_two_dtypes_get_gemmtunes_message(session, raises):
    with raises(gemmtune.UnsupportedError, "A and B must have the same dtype (got f32 and f16)") as info:
        session.matmul(f32(2, 3), np.ones((3, 2), dtype=np.float16))
    assert info.value.code == "unsupported"


def test_an_out_dtype_the_inputs_cannot_write_gets_gemmtunes_message(session, raises):
    with raises(gemmtune.UnsupportedError, "output dtype f16 is not supported for f32 inputs"):
        session.matmul(f32(2, 3), f32(3, 2), out=np.zeros((2, 2), dtype=np.float16))


def test_int8_with_a_fractional_alpha_gets_gemmtunes_message(session, raises):
    a = np.ones((2, 3), dtype=np.int8)
    with raises(gemmtune.UnsupportedError, "s8 GEMM supports alpha = 1"):
        session.matmul(a, a.T.copy(), alpha=0.5)


def test_non_finite_scalars_are_invalid_arguments(session, raises):
    with raises(gemmtune.InvalidArgumentError, "alpha and beta must be finite") as info:
        session.matmul(f32(2, 3), f32(3, 2), alpha=float("nan"))
    assert info.value.code == "invalid_argument"


def test_mismatched_inner_dims_name_both_shapes(session, raises):
    with raises(gemmtune.InvalidArgumentError, "a is 2x3 and b is 4x2", "a's columns (3) must equal b's rows (4)"):
        session.matmul(f32(2, 3), f32(4, 2))


@pytest.mark.parametrize("shape", [(), (2, 2, 3)])
def test_operands_other_than_matrices_are_refused_with_their_shape(session, raises, shape):
    with raises(gemmtune.InvalidArgumentError, "a must be a 2-D matrix; got shape " + str(shape)):
        session.matmul(np.ones(shape, dtype=np.float32), f32(3, 2))


def test_an_out_of_the_wrong_shape_is_refused(session, raises):
    with raises(gemmtune.InvalidArgumentError, "out is 3x3 but a·b is 2x2"):
        session.matmul(f32(2, 3), f32(3, 2), out=f32(3, 3))


def test_a_read_only_out_is_refused(session, raises):
    out = f32(2, 2)
    out.setflags(write=False)
    with raises(gemmtune.InvalidArgumentError, "out is read-only"):
        session.matmul(f32(2, 3), f32(3, 2), out=out)


def test_beta_without_out_is_refused(session, raises):
    with raises(gemmtune.InvalidArgumentError, "beta = 1.0 reads C: pass it as out="):
        session.matmul(f32(2, 3), f32(3, 2), beta=1.0)


@pytest.mark.parametrize("operand", [[[1.0, 2.0]], 3.0, "ab", None])
def test_objects_that_are_neither_arrays_nor_dlpack_are_type_errors(session, raises, operand):
    with raises(TypeError, "b is a " + type(operand).__name__, "numpy arrays and objects with __dlpack__"):
        session.matmul(f32(1, 2), operand)


def test_session_options_are_checked(raises):
    with raises(TypeError, "unknown session option 'stor'", "known: device, store"):
        gemmtune.Session(stor="off")
    with raises(gemmtune.InvalidArgumentError, "unknown store mode 'sometimes' (expected rw, ro or off)"):
        gemmtune.Session(store_mode="sometimes")
    with raises(gemmtune.InvalidArgumentError, "unknown search space 'wide'"):
        gemmtune.Session(search="wide")
    with raises(gemmtune.InvalidArgumentError, "give either fast or search/benchmark"):
        gemmtune.Session(fast=True, search="default")
    with raises(gemmtune.NotFoundError, "unknown device 'tpu'"):
        gemmtune.Session(device="tpu")
    with raises(gemmtune.NotFoundError, "backend 'nobackend' is not available on cpu"):
        gemmtune.Session(store="off", backends=["nobackend"])


def test_configure_checks_its_options_before_keeping_them(raises):
    with raises(gemmtune.InvalidArgumentError, "unknown benchmark space 'some'"):
        gemmtune.configure(benchmark="some")
    with raises(TypeError, "unknown session option 'cache'"):
        gemmtune.configure(cache="off")


def test_tune_checks_the_problem(session, raises):
    with raises(gemmtune.InvalidArgumentError, "m must be >= 0 (got -1)"):
        session.tune(-1, 2, 2)
    with raises(gemmtune.InvalidArgumentError, "unknown layout 'xy'"):
        session.tune(2, 2, 2, layout="xy")
    with raises(gemmtune.InvalidArgumentError, "lda must be >= 4"):
        session.tune(2, 2, 4, lda=3)
    with raises(TypeError, "float64"):
        session.tune(2, 2, 2, dtype=np.float64)
