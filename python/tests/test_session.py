"""Session: tune() returns the report as a dict (the keys of `gemmtune tune --json`), pick()
tells what runs, and the tuning store is where the options say: a file in a temporary folder
here, never the user's home."""
import os

import numpy as np
import pytest

import gemmtune
from conftest import QUICK
STATUSES = {"ok", "skipped", "prepare_failed", "run_failed", "wrong_result", "pruned"}


def test_tune_returns_the_report_as_a_dict(session):
    report = session.tune(33, 17, 9, "float32", "nt")
    assert report["problem"]["m"] == 33 and report["problem"]["n"] == 17 and report["problem"]["k"] == 9
    assert report["problem"]["layout"] == "nt" and report["problem"]["a_dtype"] == "f32"
    assert report["device"]["name"] == "cpu"
    assert report["store_hit"] is False
    assert len(report["choices"]) >= 1
    assert {c["status"] for c in report["choices"]} <= STATUSES
    best = report["best"]
    chosen = report["choices"][best["index"]]
    assert chosen["status"] == "ok" and chosen["backend"] == best["backend"] and chosen["config"] == best["config"]
    assert all(c["time_us"] >= best["time_us"] * 0.5 for c in report["choices"] if c["status"] == "ok")
    assert report["table"].startswith("AUTOTUNE gemm m=33 n=17 k=9 f32 nt")
    pick = session.pick(33, 17, 9, "float32", "nt")
    assert (pick["backend"], pick["config"]) == (best["backend"], best["config"]) and pick["routed"] is False


def test_tune_takes_dtypes_by_numpy_and_gemmtune_names(session):
    for dtype in ("int8", "s8", np.int8):
        report = session.tune(8, 8, 8, dtype)
        assert report["problem"]["a_dtype"] == "s8" and report["problem"]["c_dtype"] == "s32"
    assert session.tune(8, 8, 8, "float16", out_dtype="float32")["problem"]["c_dtype"] == "f32"


def test_pick_is_none_for_a_problem_never_met(session):
    assert session.pick(1234, 5, 6) is None


def test_a_session_restricted_to_one_backend_picks_from_it():
    session = gemmtune.Session(**{**QUICK, "backends": ["reference"]})
    assert session.backends == ["reference"]
    assert session.tune(5, 6, 7)["best"]["backend"] == "reference"


def test_the_store_keeps_a_tuning_for_the_next_session(tmp_path):
    path = str(tmp_path / "tuning.sqlite")
    first = gemmtune.Session(**{**QUICK, "store": path})
    assert first.store == {"path": path, "mode": "rw", "redis_url": ""}
    tuned = first.tune(12, 10, 8)
    assert os.path.exists(path)
    second = gemmtune.Session(**{**QUICK, "store": path})
    loaded = second.tune(12, 10, 8, use_store=True)
    assert loaded["store_hit"] is True
    assert (loaded["best"]["backend"], loaded["best"]["config"]) == (tuned["best"]["backend"], tuned["best"]["config"])


def test_a_read_only_store_is_never_written(tmp_path):
    path = tmp_path / "curated.sqlite"
    session = gemmtune.Session(**{**QUICK, "store": str(path), "store_mode": "ro"})
    assert session.store["mode"] == "ro"
    session.tune(9, 9, 9)
    assert not path.exists()


def test_the_store_defaults_come_from_the_environment(tmp_path, monkeypatch):
    path = str(tmp_path / "from-env.sqlite")
    monkeypatch.setenv("GEMMTUNE_CACHE", path)
    monkeypatch.setenv("GEMMTUNE_CACHE_MODE", "ro")
    assert gemmtune.Session(samples=1).store == {"path": path, "mode": "ro", "redis_url": ""}
    assert gemmtune.Session(**QUICK).store["path"] == "off"


def test_configure_sets_the_default_sessions_store(tmp_path, compare):
    path = str(tmp_path / "default.sqlite")
    before = gemmtune.default_session()
    try:
        gemmtune.configure(**{**QUICK, "store": path})
        session = gemmtune.default_session()
        assert session is not before and session is gemmtune.default_session()
        assert session.store["path"] == path
        a, b = np.ones((3, 4), dtype=np.float32), np.ones((4, 5), dtype=np.float32)
        compare(gemmtune.matmul(a, b), np.full((3, 5), 4.0))
        assert os.path.exists(path), "matmul's tuning went to the configured store"
    finally:
        gemmtune.configure(**QUICK)
    assert gemmtune.default_session().store["path"] == "off"


def test_routing_by_distance_serves_new_shapes_from_the_family(compare):
    session = gemmtune.Session(**QUICK, route="distance", hints=[4, 64])
    a, b = np.ones((20, 8), dtype=np.float32), np.ones((8, 6), dtype=np.float32)
    compare(session.matmul(a, b), np.full((20, 6), 8.0))
    assert session.pick(20, 6, 8)["routed"] is True


def test_the_overhead_benchmarks_cpp_loop_computes_the_product(session, compare):
    a, b, out = np.full((2, 3), 2.0, dtype=np.float32), np.ones((3, 4), dtype=np.float32), np.zeros((2, 4), np.float32)
    assert session._time_gemm(a, b, out, 10) > 0
    compare(out, np.full((2, 4), 6.0))


def test_the_module_points_the_jit_check_at_the_worker_of_its_own_tree():
    # ctest leaves GEMMTUNE_WORKER unset and says which worker the module must have set it to on
    # import: build/bin beside the build tree's build/python; none where the build has no CUDA or
    # the tree no worker (the scratch install of the module alone). Otherwise the worker would be
    # looked for beside python3.
    if "GEMMTUNE_TEST_WORKER" not in os.environ:
        pytest.skip("run outside ctest: no expected worker given")
    expected = os.environ["GEMMTUNE_TEST_WORKER"]
    assert os.environ.get("GEMMTUNE_WORKER", "") == expected
    if expected:
        assert os.path.isfile(expected)


def test_there_is_one_default_session_a_device():
    assert gemmtune.default_session() is gemmtune.default_session("cpu")
    try:
        cuda = gemmtune.default_session("cuda")
    except gemmtune.Error:
        return  # no GPU: no session to share
    assert cuda is gemmtune.default_session("cuda:0")
