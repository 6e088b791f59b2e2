#!/usr/bin/python3
"""bench/collector_peer.py: the collector benchmark's same-run peer.

`league bench collector --real-inference` runs this right after its own
collection and prints both times (peer_s, ratio_to_peer). It collects the
same thing our collector does, the way the seed documents describe
DI-engine's subprocess env manager (shared/seeds/collector_overview.txt,
key_concepts.txt): every env in its own process, observations and actions
in shared memory, one policy in the main process that runs a batched numpy
forward of the same network for the envs that are ready (async: as soon as
wait_num are, or once the first ready one waited wait_timeout), and
trajectories built per env and seat and handed to a sink that drops them.
Written here from that description; no code of DI-engine's is used.

The workload is the benchmark's (every number comes from its command
line): the `timing` game with 2 alternating players, actions 0 and 1,
observations of obs_len floats written as envs/timing.c writes them,
episode lengths, step and reset times jittered uniformly in
[1 - jitter, 1 + jitter] x nominal. A step and a reset *burn* their time
as CPU time of the env's process (a spin on the thread CPU clock), as the
C env does with timing.burn, so both sides do the same work whatever the
language. The network is the benchmark's: obs_len -> hidden... (ReLU) ->
2 logits + 1 value, float32, weights from the seed.

Made as fast as the design allows: raw os pipes of one byte to wake an env
and to hear it is ready (no pickling), preallocated numpy buffers, one
BLAS call per layer per batch, OpenBLAS limited to one thread as ours.

    /usr/bin/python3 bench/collector_peer.py --envs 8 --obs 64 \
        --hidden 256,256 --step-s 0.0001 --reset-s 0.002 --episode-len 500 \
        --jitter 0.6 --collects 300 --samples 80 --wait-num 7 \
        --wait-timeout 0.0002 --segment-len 128 --seed 1 [--json]

Needs Debian's python3-numpy.
"""
import argparse
import json
import mmap
import os
import select
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np  # noqa: E402


def burn(seconds):
    """Spin until this process has used `seconds` of CPU time."""
    if seconds <= 0:
        return
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def env_main(i, a, shm, cmd_r, ready_w):
    """One env process: reset, then step on every byte from the policy."""
    rng = np.random.default_rng(a.seed * 1000003 + i)
    lo, hi = 1 - a.jitter, 1 + a.jitter
    obs, act, last = shm["obs"][i], shm["act"], shm["last"]
    n = a.obs
    pattern = ((np.arange(n) & 7) * 0.125).astype(np.float32)

    def observe(step, length):
        # envs/timing.c: obs[0] = player, obs[1] = step / length, the rest
        # ((i + step) & 7) / 8.
        obs[:] = np.roll(pattern, -(step & 7))
        obs[0] = step % 2
        if n > 1:
            obs[1] = step / length

    def reset():
        length = max(1, int(np.floor(a.episode_len * rng.uniform(lo, hi)
                                     + 0.5)))
        burn(a.reset_s * rng.uniform(lo, hi))
        observe(0, length)
        return length

    length, step = reset(), 0
    ones = [0, 0]
    os.write(ready_w, b"r")
    while True:
        c = os.read(cmd_r, 1)
        if c != b"s":
            os._exit(0)
        burn(a.step_s * rng.uniform(lo, hi))
        ones[step % 2] += int(act[i])
        step += 1
        done = step >= length
        # The transition's outcome, read by the policy before it posts
        # this env's next action: done, and the mover's return.
        last[i, 0] = 1.0 if done else 0.0
        last[i, 1] = (1.0 if ones[0] > ones[1] else
                      -1.0 if ones[0] < ones[1] else 0.0) if done else 0.0
        if done:
            length, step, ones = reset(), 0, [0, 0]
        else:
            observe(step, length)
        os.write(ready_w, b"t")


class Traj:
    """Rows of one learning seat of one env, up to segment_len."""

    def __init__(self, seg, n):
        self.obs = np.empty((seg, n), np.float32)
        self.act = np.empty(seg, np.int32)
        self.logp = np.empty(seg, np.float32)
        self.val = np.empty(seg, np.float32)
        self.rew = np.zeros(seg, np.float32)
        self.done = np.zeros(seg, np.uint8)
        self.count = 0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--envs", type=int, default=8)
    p.add_argument("--obs", type=int, default=64)
    p.add_argument("--hidden", default="256,256")
    p.add_argument("--step-s", type=float, default=0.0001)
    p.add_argument("--reset-s", type=float, default=0.002)
    p.add_argument("--episode-len", type=int, default=500)
    p.add_argument("--jitter", type=float, default=0.6)
    p.add_argument("--collects", type=int, default=300)
    p.add_argument("--samples", type=int, default=80)
    p.add_argument("--wait-num", type=int, default=7)
    p.add_argument("--wait-timeout", type=float, default=0.0002)
    p.add_argument("--segment-len", type=int, default=128)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true")
    a = p.parse_args()
    n_env, n = a.envs, a.obs
    hidden = [int(h) for h in a.hidden.split(",") if h]

    # Shared memory (anonymous, inherited by the env processes).
    sizes = {"obs": (n_env, n), "act": (n_env,), "last": (n_env, 2)}
    dtypes = {"obs": np.float32, "act": np.int32, "last": np.float32}
    shm = {}
    for k, shp in sizes.items():
        nbytes = int(np.prod(shp)) * np.dtype(dtypes[k]).itemsize
        buf = mmap.mmap(-1, max(nbytes, 1))
        shm[k] = np.frombuffer(buf, dtypes[k], int(np.prod(shp))).reshape(shp)

    t0 = time.perf_counter()
    cmd_w, ready_r, pids = [], [], []
    for i in range(n_env):
        cr, cw = os.pipe()
        rr, rw = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(cw)
            os.close(rr)
            env_main(i, a, shm, cr, rw)
            os._exit(0)
        os.close(cr)
        os.close(rw)
        cmd_w.append(cw)
        ready_r.append(rr)
        pids.append(pid)
    fd_env = {fd: i for i, fd in enumerate(ready_r)}

    # The policy: the benchmark's network, weights from the seed.
    rng = np.random.default_rng(a.seed)
    dims = [n] + hidden + [3]
    W = [(rng.standard_normal((dims[k], dims[k + 1])) *
          np.sqrt(2.0 / dims[k])).astype(np.float32)
         for k in range(len(dims) - 1)]
    B = [np.zeros(dims[k + 1], np.float32) for k in range(len(dims) - 1)]

    trajs = [[Traj(a.segment_len, n) for _ in range(2)]
             for _ in range(n_env)]
    step_of = [0] * n_env       # the env's step in its episode (the seat)
    pending = [None] * n_env    # (seat, row) awaiting its outcome
    segments = rows = 0

    def flush(tr):
        nonlocal segments, rows
        if tr.count:
            segments += 1
            rows += tr.count    # the sink: count and drop
            tr.count = 0
            tr.done[:] = 0
            tr.rew[:] = 0

    ep = select.epoll()
    for fd in ready_r:
        ep.register(fd, select.EPOLLIN)
    goal = a.collects * a.samples
    steps = forwards = 0
    ready, first_ready = [], 0.0
    batch_obs = np.empty((n_env, n), np.float32)
    shm_last, shm_obs, shm_act = shm["last"], shm["obs"], shm["act"]

    def heard(fd):
        """An env is ready: after its reset (b"r") or a step (b"t")."""
        nonlocal steps, first_ready
        i = fd_env[fd]
        if os.read(fd, 1) == b"t":
            steps += 1
            seat, row = pending[i]
            tr = trajs[i][seat]
            done, ret = shm_last[i]
            if done:
                # The episode's end reaches both seats' last rows.
                tr.done[row] = 1
                tr.rew[row] = ret if seat == 0 else -ret
                other = trajs[i][1 - seat]
                if other.count:
                    other.done[other.count - 1] = 1
                    other.rew[other.count - 1] = -ret if seat == 0 else ret
                step_of[i] = 0
                flush(tr)
                flush(other)
            else:
                step_of[i] += 1
        if not ready:
            first_ready = time.perf_counter()
        ready.append(i)

    while steps < goal:
        due = ready and (len(ready) >= a.wait_num or
                         time.perf_counter() - first_ready >= a.wait_timeout)
        if not due:
            timeout = (max(0.0, first_ready + a.wait_timeout -
                           time.perf_counter()) if ready else -1)
            for fd, _ in ep.poll(timeout):
                heard(fd)
            continue
        for fd, _ in ep.poll(0):  # whoever else is ready joins the batch
            heard(fd)
        if steps >= goal:
            break
        # One forward over the ready envs.
        m = len(ready)
        x = batch_obs[:m]
        np.take(shm_obs, ready, axis=0, out=x)
        h = x
        for k in range(len(W) - 1):
            h = h @ W[k]
            h += B[k]
            np.maximum(h, 0, out=h)
        out = h @ W[-1]
        out += B[-1]
        z = out[:, :2] - out[:, :2].max(axis=1, keepdims=True)
        logp_all = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        actions = (rng.random(m) > np.exp(logp_all[:, 0])).astype(np.int32)
        logp = logp_all[np.arange(m), actions]
        value = out[:, 2]
        forwards += 1
        for j, i in enumerate(ready):
            seat = step_of[i] % 2
            tr = trajs[i][seat]
            if tr.count == a.segment_len:
                flush(tr)
            r = tr.count
            tr.obs[r] = x[j]
            tr.act[r] = actions[j]
            tr.logp[r] = logp[j]
            tr.val[r] = value[j]
            tr.count += 1
            pending[i] = (seat, r)
            shm_act[i] = actions[j]
            os.write(cmd_w[i], b"s")
        ready = []
    seconds = time.perf_counter() - t0
    for pair in trajs:  # what is still buffered, as coll_stop hands it
        for tr in pair:
            flush(tr)
    for fd in cmd_w:
        os.write(fd, b"q")
    for pid in pids:
        os.waitpid(pid, 0)
    out = {"peer": "python", "envs": n_env, "seconds": round(seconds, 3),
           "steps": steps, "forwards": forwards, "segments": segments,
           "transitions": rows}
    if a.json:
        print(json.dumps(out))
    else:
        print("collector_peer: %d steps in %.3f s, %d forwards, %d "
              "segments (%d rows) to the sink" %
              (steps, seconds, forwards, segments, rows))


if __name__ == "__main__":
    sys.exit(main())
