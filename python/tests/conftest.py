"""Shared pieces of the Python tests: the module under test, a cheap session, and a counter of
what the tests compared, printed at the end so a run shows how much it checked.

ctest runs these with the module of the build tree on PYTHONPATH and GEMMTUNE_CACHE=off, so no
test writes a tuning store in the user's home; tests that need a store make it in tmp_path.
"""
import os

import pytest

IN_CI = os.environ.get("CI") == "true"


def skip_unless_ci(reason):
    """Skips outside CI; under CI=true (.ci/run) a missing part fails instead."""
    if IN_CI:
        pytest.fail("CI=true: this test must run, but " + reason)
    pytest.skip(reason)


try:
    import numpy as np
except ImportError:  # python3-numpy is in deps/debian-packages.txt
    np = None

import gemmtune  # noqa: E402  (the module under test: failing to import it is a failure)

# ctest names the folder the module under test lies in (the build tree's, or a scratch install's):
# another gemmtune on the path must not stand in for it.
_expected_dir = os.environ.get("GEMMTUNE_TEST_MODULE_DIR")
if _expected_dir and os.path.dirname(os.path.realpath(gemmtune.__file__)) != os.path.realpath(_expected_dir):
    raise ImportError(f"testing {gemmtune.__file__}, not the module in {_expected_dir}")

if np is None:
    # Every test needs numpy: none is collected, and the run ends as a skip (77, ctest's
    # SKIP_RETURN_CODE) outside CI and as a failure under CI=true.
    collect_ignore_glob = ["test_*.py"]


def pytest_sessionfinish(session, exitstatus):
    if np is None:
        print("\nnumpy is not installed (python3-numpy): " + ("failing under CI=true" if IN_CI else "skipped"))
        session.exitstatus = 1 if IN_CI else 77
        return
    # A file whose every test skipped (test_cuda.py without a GPU) is a skip for ctest, not a pass.
    stats = session.config.pluginmanager.get_plugin("terminalreporter").stats
    if exitstatus == 0 and stats.get("skipped") and not stats.get("passed"):
        session.exitstatus = 77


_counts = {"products": 0, "elements": 0, "errors": 0}


# Tunings of one short sample per choice: the tests check results, not picks.
QUICK = dict(store="off", samples=1, min_sample_ms=0.05)


@pytest.fixture(scope="session", autouse=True)
def _quick_default_sessions():
    """gemmtune.matmul's default sessions tune as quickly as the test sessions."""
    gemmtune.configure(**QUICK)


@pytest.fixture(scope="session")
def session():
    """A CPU session without a store whose tunings are quick."""
    return gemmtune.Session(device="cpu", **QUICK)


@pytest.fixture
def compare():
    """compare(got, expected, tolerance): asserts every element of C and counts them."""

    def check(got, expected, tolerance=0.0):
        got = np.asarray(got, dtype=np.float64)
        expected = np.asarray(expected, dtype=np.float64)
        assert got.shape == expected.shape
        scale = max(1.0, float(np.abs(expected).max(initial=0.0)))
        worst = float(np.abs(got - expected).max(initial=0.0))
        assert worst <= tolerance * scale, f"largest error {worst} over a tolerance of {tolerance * scale}"
        _counts["products"] += 1
        _counts["elements"] += expected.size

    return check


@pytest.fixture
def raises():
    """raises(kind, *phrases): pytest.raises that also checks the message names what is wrong."""

    class Raises:
        def __init__(self, kind, *phrases):
            self.context = pytest.raises(kind)
            self.phrases = phrases

        def __enter__(self):
            self.info = self.context.__enter__()
            return self.info

        def __exit__(self, *exc):
            suppressed = self.context.__exit__(*exc)
            for phrase in self.phrases:
                assert phrase in str(self.info.value), f"{phrase!r} not in {str(self.info.value)!r}"
            _counts["errors"] += 1
            return suppressed

    return Raises


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line(
        f"gemmtune python tests: {_counts['elements']} elements of C compared with numpy over "
        f"{_counts['products']} products; {_counts['errors']} errors checked for their type and message")
