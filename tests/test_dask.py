"""Dask (issue 27): a scheduler that never answers is refused in one line; Ctrl-C stops a Dask run at once; local
workers end with the run however it ends (kill -9 too). Loopback only; skipped without dask.distributed."""
import contextlib
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from sim import inputs
from cli_runs import alive, cli, one_line_error

pytest.importorskip("dask.distributed", reason="the Dask backend is optional: pip install 'balance-sim[dask]'")
pytestmark = pytest.mark.slow  # `make test-fast` leaves these out (processes, a silent scheduler)

ROOT = Path(__file__).resolve().parents[1]


@contextlib.contextmanager
def listening(on_accept):
    """127.0.0.1:PORT whose connections go to `on_accept`; closed when the block ends."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.2)
    done = threading.Event()

    def accept():
        deadline = time.monotonic() + 120  # bounded even if the test hangs
        while not done.is_set() and time.monotonic() < deadline:
            try:
                on_accept(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        done.set()
        thread.join(5)
        server.close()


@pytest.fixture
def silent_listener():
    """127.0.0.1:PORT that accepts connections and never says a word; closed (with them) after the test."""
    accepted = []
    with listening(accepted.append) as address:
        yield address, accepted
        for conn in accepted:
            conn.close()


def test_a_scheduler_that_never_answers_is_one_line(tmp_path, monkeypatch, silent_listener):
    address, accepted = silent_listener
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(inputs, "SCHEDULER_TIMEOUT_S", 0.5)  # it never answers, however long one waits
    one_line_error(cli("run", "mohur", "-n", 20, "--batch-size", 10, "-s", "greedy,greedy", "-q", "--no-report", "-o",
                       "out", "--backend", "dask", "--scheduler", address), f"--scheduler {address}", "does not answer")
    assert accepted, "the check never connected"
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_stops_a_dask_run_at_the_first_signal():
    """Loky and threading finish the batch in hand on a first Ctrl-C; in the Dask phase a batch may never come
    back (a scheduler gone silent), so the first Ctrl-C stops at once."""
    from sim.runner import _StopOnCtrlC
    before = signal.getsignal(signal.SIGINT)  # an earlier test in this process may have left its own
    with _StopOnCtrlC() as stop:
        os.kill(os.getpid(), signal.SIGINT)
        assert stop.requested  # the first one is only noted ...
        stop.at_once = True
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)  # ... except in the Dask phase
            time.sleep(5)  # the handler raises here, between bytecodes
    assert signal.getsignal(signal.SIGINT) is before


HOLD = textwrap.dedent("""
    import os, sys, time
    from pathlib import Path
    from sim.runner import _client

    def hold(folder):  # one long C call that keeps the GIL, as a compiled batch does, once it has said so
        Path(folder, str(os.getpid())).touch()
        return pow(3, 3 * 10**7).bit_length()

    if __name__ == "__main__":
        client = _client(2, "dask", None)
        pids = sorted(client.run(os.getpid).values())
        futures = [client.submit(hold, sys.argv[1], pure=False, key=f"hold-{i}") for i in range(2)]
        while len(os.listdir(sys.argv[1])) < 2:  # both workers are in their long call (not a guess at how soon)
            time.sleep(0.1)
        print(*pids, flush=True)
        time.sleep(600)
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the prompt end uses Linux's PR_SET_PDEATHSIG")
def test_local_workers_end_with_a_killed_run(tmp_path):
    script = tmp_path / "hold.py"
    script.write_text(HOLD)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    started = tmp_path / "started"
    started.mkdir()
    proc = subprocess.Popen([sys.executable, str(script), str(started)], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=env)
    pids = []
    try:
        line = proc.stdout.readline()  # the workers' process ids, once both hold the GIL
        pids = [int(p) for p in line.split()]
        assert len(pids) == 2, line
        proc.kill()
        proc.wait(30)
        deadline = time.monotonic() + 15  # their batches would hold them for a minute or more
        while any(alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not [p for p in pids if alive(p)], "worker processes outlived the killed run"
    finally:
        proc.kill()
        for pid in pids:  # the workers this test started, should the check have failed
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def test_a_real_scheduler_passes_the_check_and_a_closing_listener_does_not():
    from dask.distributed import LocalCluster

    from sim.errors import UserError
    with LocalCluster(n_workers=0, processes=False, protocol="tcp", dashboard_address=None) as cluster:
        inputs.dask_scheduler("dask", cluster.scheduler_address)  # answers: no error
    with listening(lambda conn: conn.close()) as address:  # something listens, but not Dask
        with pytest.raises(UserError, match="not a Dask scheduler"):
            inputs.dask_scheduler("dask", address)
