"""GemmOp: one op for a family whose m varies, a sub-kernel per size hint, each new shape
routed; operands not in the family's layout are copied into it, wrong ones refused."""
import numpy as np
import pytest

import gemmtune
from conftest import QUICK

RNG = np.random.default_rng(35)
N, K = 24, 16


def ints(rows, cols, dtype=np.float32):
    return RNG.integers(-3, 4, size=(rows, cols)).astype(dtype)


@pytest.fixture(scope="module")
def op(session):
    # C = X·Wᵀ with a dynamic batch: the layout of a linear layer.
    return gemmtune.GemmOp(session, n=N, k=K, layout="nt", hints=[4, 32], route="distance")


@pytest.fixture(scope="module")
def weights():
    return ints(N, K)


@pytest.mark.parametrize("m", [1, 3, 4, 17, 32, 50])
def test_every_batch_size_gives_numpys_product(op, weights, compare, m):
    x = ints(m, K)
    compare(op(x, weights.T), x.astype(np.float64) @ weights.T)
    assert 0 <= op.route(m, N, K) < len(op.sub_kernels)


def test_a_benchmark_route_is_checked_in_use_once(session, weights, compare):
    # Its first 3 calls are timed; after them the route held or was routed again, for good.
    # A route no rival could run (a kernel made for the 4 hint's rows, say) is not checked.
    checked = gemmtune.GemmOp(session, n=N, k=K, layout="nt", hints=[4, 32], route="benchmark",
                              persist_routes=False, revisit_after_calls=3)
    x = ints(20, K)
    for call in range(6):
        compare(checked(x, weights.T), x.astype(np.float64) @ weights.T)
        if call == 1 and len(checked.sub_kernels) > 1 and checked.routes_alone == 0:
            assert not checked.route_settled(20, N, K)  # 2 calls: its check is still to come
    assert checked.route_settled(20, N, K)
    assert not checked.route_settled(21, N, K)  # not routed yet
    if len(checked.sub_kernels) > 1:
        assert checked.routes_held_in_use + checked.routes_revisited + checked.routes_alone == 1
    assert checked.routes_changed_on_revisit <= checked.routes_revisited


def test_a_negative_revisit_count_is_refused(session, raises):
    with raises(ValueError, "revisit_after_calls must be >= 0"):
        gemmtune.GemmOp(session, n=N, k=K, hints=[4], revisit_after_calls=-1)


def test_the_op_tells_its_sub_kernels_and_policy(op):
    assert op.route_policy == "distance"
    hints = sorted(h for sub in op.sub_kernels for h in sub["hints"])
    assert hints == [4, 32]
    assert all(sub["backend"] for sub in op.sub_kernels)


def test_operands_in_another_layout_are_copied_into_the_familys(op, weights, compare):
    x = np.asfortranarray(ints(9, K))
    w_t = np.ascontiguousarray(weights.T)  # row-major k×n where the family reads it column-major
    out = np.zeros((9, N), dtype=np.float32)
    assert op(x, w_t, out=out) is out
    compare(out, x.astype(np.float64) @ weights.T)
    padded = np.zeros((9, N + 3), dtype=np.float32)[:, :N]  # ldc = n + 3, where the op needs n
    op(x, w_t, out=padded)
    compare(padded, x.astype(np.float64) @ weights.T)


def test_a_static_dim_other_than_the_familys_gets_gemmtunes_message(op, raises):
    with raises(gemmtune.InvalidArgumentError, "n is static in this op (24), got 25"):
        op(ints(3, K), ints(K, N + 1))


def test_a_dtype_other_than_the_familys_is_a_type_error(op, raises):
    with raises(TypeError, "a has dtype f16 but the op multiplies f32"):
        op(ints(3, K, np.float16), ints(K, N))


def test_the_op_keeps_its_session_alive(compare):
    session = gemmtune.Session(**QUICK)
    op = gemmtune.GemmOp(session, m=6, k=5, dtype="int8", hints=[8], route="fixed:0")
    del session
    a, b = ints(6, 5, np.int8), ints(5, 13, np.int8)
    c = op(a, b)
    assert c.dtype == np.int32
    compare(c, a.astype(np.int64) @ b.astype(np.int64))


def test_a_bad_route_is_refused(session, raises):
    with raises(gemmtune.InvalidArgumentError, "unknown route 'fastest'"):
        gemmtune.GemmOp(session, n=4, k=4, route="fastest")


def test_a_bfloat16_op_takes_dlpack_operands_and_gives_float32(session, compare):
    from dlpack_tensors import KDL_BFLOAT, Tensor, bfloat16_bits

    op = gemmtune.GemmOp(session, n=3, k=4, dtype="bfloat16", hints=[4], route="fixed:0")
    a, b = ints(5, 4), ints(4, 3)
    c = op(Tensor(bfloat16_bits(a), (5, 4), KDL_BFLOAT, 16), Tensor(bfloat16_bits(b), (4, 3), KDL_BFLOAT, 16))
    assert c.dtype == np.float32
    compare(c, a.astype(np.float64) @ b)
