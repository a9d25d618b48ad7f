"""gemmtune.matmul and Session.matmul on numpy arrays: every dtype, layout and view numpy can
hand over, checked element by element against numpy. Inputs are small integers, so every
product and sum is exact in each dtype and the results must match exactly."""
import numpy as np
import pytest

import gemmtune

RNG = np.random.default_rng(33)


def ints(rows, cols, dtype=np.float32):
    return RNG.integers(-3, 4, size=(rows, cols)).astype(dtype)


def reference(a, b):
    return a.astype(np.float64) @ b.astype(np.float64)


@pytest.mark.parametrize("dtype, out_dtype", [(np.float32, np.float32), (np.float16, np.float16), (np.int8, np.int32)])
def test_each_dtype_gives_numpys_product_in_its_output_dtype(session, compare, dtype, out_dtype):
    a, b = ints(13, 9, dtype), ints(9, 11, dtype)
    c = session.matmul(a, b)
    assert c.dtype == out_dtype and c.shape == (13, 11)
    compare(c, reference(a, b))


def test_module_matmul_uses_the_default_cpu_session(compare):
    a, b = ints(5, 7), ints(7, 3)
    compare(gemmtune.matmul(a, b), reference(a, b))
    assert gemmtune.default_session().pick(5, 3, 7) is not None


@pytest.mark.parametrize("a_t", [False, True])
@pytest.mark.parametrize("b_t", [False, True])
def test_transposed_arrays_are_read_in_place_in_all_four_layouts(session, compare, a_t, b_t):
    a = ints(17, 10).T if a_t else ints(10, 17)  # a is 10x17 either way
    b = ints(12, 17).T if b_t else ints(17, 12)
    compare(session.matmul(a, b), reference(a, b))
    layout = ("t" if a_t else "n") + ("t" if b_t else "n")
    assert session.pick(10, 12, 17, layout=layout) is not None, "the transposed view was copied, not read in place"


def test_row_slices_are_read_in_place_with_their_leading_dimension(session, compare):
    big_a, big_b = ints(20, 9), ints(9, 30)
    a, b = big_a[::2], big_b[:, 5:17]  # a: lda 18 over 9 columns; b: ldb 30 over 12 columns
    compare(session.matmul(a, b), reference(a, b))
    assert session.pick(10, 12, 9, lda=18, ldb=30) is not None


@pytest.mark.parametrize("view", ["every_other_column", "reversed_rows", "broadcast_row", "unaligned"])
def test_views_gemmtune_cannot_address_are_copied_first(session, compare, view):
    if view == "every_other_column":
        a = ints(6, 14)[:, ::2]
    elif view == "reversed_rows":
        a = ints(6, 7)[::-1]
    elif view == "broadcast_row":
        a = np.broadcast_to(ints(1, 7), (6, 7))
    else:  # float32 elements at an odd address
        raw = np.zeros(6 * 7 * 4 + 1, dtype=np.uint8)[1:].view(np.float32).reshape(6, 7)
        raw[...] = ints(6, 7)
        a = raw
    b = ints(7, 5)
    compare(session.matmul(a, b), reference(a, b))


def test_read_only_inputs_are_accepted(session, compare):
    a, b = ints(4, 6), ints(6, 3)
    a.setflags(write=False)
    b.setflags(write=False)
    compare(session.matmul(a, b), reference(a, b))


def test_alpha_and_beta_scale_the_product_and_the_old_out(session, compare):
    a, b, c = ints(9, 8), ints(8, 7), ints(9, 7)
    expected = 0.5 * reference(a, b) + 0.25 * c
    returned = session.matmul(a, b, out=c, alpha=0.5, beta=0.25)
    assert returned is c
    compare(c, expected)


def test_a_column_major_out_is_written_in_place(session, compare):
    a, b = ints(9, 8), ints(8, 7)
    out = np.asfortranarray(ints(9, 7))
    expected = reference(a, b) + out
    session.matmul(a, b, out=out, beta=1.0)
    compare(out, expected)


@pytest.mark.parametrize("beta", [0.0, 2.0])
def test_a_strided_out_gets_the_result_through_a_temporary(session, compare, beta):
    a, b = ints(5, 4), ints(4, 6)
    storage = ints(5, 12)
    out = storage[:, ::2]  # every other column: neither row- nor column-major
    untouched = storage[:, 1::2].copy()
    expected = reference(a, b) + beta * out
    session.matmul(a, b, out=out, beta=beta)
    compare(out, expected)
    compare(storage[:, 1::2], untouched)


def test_an_out_that_shares_memory_with_an_input_gets_the_product_of_the_old_values(session, compare):
    a, b = ints(6, 6), ints(6, 6)
    expected = reference(a, b)
    session.matmul(a, b, out=a)  # numpy's matmul allows this too: the inputs are read first
    compare(a, expected)
    square = ints(6, 6)
    expected = reference(square, square.T)
    session.matmul(square, square.T, out=square)
    compare(square, expected)


def test_int8_products_accumulate_in_int32_without_wrapping(session, compare):
    a = np.full((3, 300), 127, dtype=np.int8)
    b = np.full((300, 2), -128, dtype=np.int8)
    c = session.matmul(a, b)
    assert c.dtype == np.int32
    compare(c, np.full((3, 2), 127 * -128 * 300))


def test_float16_inputs_may_write_a_float32_out(session, compare):
    a, b = ints(7, 5, np.float16), ints(5, 4, np.float16)
    out = np.zeros((7, 4), dtype=np.float32)
    session.matmul(a, b, out=out)
    compare(out, reference(a, b))


@pytest.mark.parametrize("m, n, k", [(0, 4, 3), (4, 0, 3), (4, 3, 0)])
def test_empty_dims_follow_numpy(session, compare, m, n, k):
    a, b = ints(m, k), ints(k, n)
    compare(session.matmul(a, b), reference(a, b))
    out = ints(m, n)
    expected = 3.0 * out
    session.matmul(a, b, out=out, beta=3.0)  # k = 0: C = beta·C
    compare(out, expected)


def test_a_known_shape_dispatches_to_the_same_kernel_on_later_calls(session, compare):
    a, b = ints(21, 19), ints(19, 23)
    compare(session.matmul(a, b), reference(a, b))
    first = session.pick(21, 23, 19)
    for _ in range(3):
        a, b = ints(21, 19), ints(19, 23)
        compare(session.matmul(a, b), reference(a, b))
    assert session.pick(21, 23, 19) == first


def test_threads_share_a_session_and_each_gets_its_own_product(session, compare):
    # matmul lets go of the GIL while gemmtune tunes and runs: eight threads meet one new shape
    # at once, and each must get its own operands' product.
    import threading

    operands = [(ints(37, 31), ints(31, 29)) for _ in range(8)]
    results = [None] * len(operands)

    def work(i):
        for _ in range(5):
            results[i] = session.matmul(*operands[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(operands))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for (a, b), c in zip(operands, results):
        compare(c, reference(a, b))


def test_vectors_are_read_as_numpys_matmul_reads_them(session, compare):
    m, k, n = 6, 9, 4
    a, b, v, w = ints(m, k), ints(k, n), ints(1, k)[0], ints(1, k)[0]
    for got, expected in [(session.matmul(v, b), v @ b), (session.matmul(a, v), a @ v)]:
        assert got.shape == expected.shape
        compare(got, expected)
    dot = session.matmul(v, w)
    assert np.ndim(dot) == 0 and dot.dtype == np.float32
    compare(dot, float(v.astype(np.float64) @ w))
    strided = ints(1, 2 * k)[0][::2]  # a row of elements two apart: column-major with lda 2
    compare(session.matmul(strided, b), strided @ b)
    out = np.zeros(n, dtype=np.float32)
    assert session.matmul(v, b, out=out) is out
    compare(out, v @ b)
    scalar_out = np.zeros((), dtype=np.float32)
    session.matmul(v, w, out=scalar_out)
    compare(scalar_out, v @ w)


def test_an_out_without_the_vector_products_dims_is_refused(session, raises):
    v, b = ints(1, 3)[0], ints(3, 2)
    with raises(gemmtune.InvalidArgumentError, "a·b of a vector is a vector: out must have 1 dims"):
        session.matmul(v, b, out=np.zeros((1, 2), dtype=np.float32))
    with raises(gemmtune.InvalidArgumentError, "a·b of two vectors is a scalar: out must have 0 dims"):
        session.matmul(v, v, out=np.zeros(1, dtype=np.float32))
