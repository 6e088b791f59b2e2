#!/usr/bin/env python3
"""Discrete-event model of a vectorized env manager on the seed workload.

Why it exists: the collector issue asks for async within 1.10x of the lower
bound (24000 x (step + infer) + resets x reset) / 8. That bound charges every
transition its own inference with no waiting, so whether it is reachable
depends on how many inference calls may run at once. This model answers it
before any C is written (python3 bench/collector_model.py):

  * one serial inference device: sync ~1.4-2.6x, async wait_num=7 ~1.3-1.7x,
    greedy batching (infer whatever is ready whenever the device is free)
    ~1.22x on small/middle -- 1.10x is out of reach;
  * two concurrent inference slots with greedy batching: ~1.02-1.12x;
  * one slot per env: the bound itself.

Modes: 'sync' waits for all envs; 'async' waits for wait_num; 'greedy' takes
every ready env as soon as a slot is free. Times and episode lengths are
jittered uniformly in [0.4, 1.6] x nominal, as in the seed experiment.
"""
import random, heapq
def run(step, infer, reset, mode, slots=1, wait_num=7, timeout=0.01, n=8, total=24000, seed=1, eplen=500):
    rnd = random.Random(seed)
    J = lambda x: x*rnd.uniform(0.4,1.6)
    t = 0.0
    # env state: time when env becomes ready for inference
    ready_at = []
    remaining = [int(round(J(eplen))) for _ in range(n)]
    for i in range(n):
        ready_at.append(J(reset))  # initial reset
    resets = n
    done = 0
    waiting = set()
    events = [(ready_at[i], i) for i in range(n)]; heapq.heapify(events)
    slot_free = [0.0]*slots
    now = 0.0
    while done < total:
        # advance to next event
        if mode == 'greedy':
            # any ready env: infer all ready at earliest free slot
            tm, i = heapq.heappop(events); waiting.add(i)
            while events and events[0][0] <= tm: waiting.add(heapq.heappop(events)[1])
            s = min(range(slots), key=lambda k: slot_free[k])
            start = max(tm, slot_free[s])
            # collect those ready by start
            while events and events[0][0] <= start: waiting.add(heapq.heappop(events)[1])
        elif mode == 'sync':
            batch=[]
            while len(waiting) < n:
                tm,i = heapq.heappop(events); waiting.add(i)
            start = max(tm, min(slot_free)); s = slot_free.index(min(slot_free))
        elif mode == 'async':
            while len(waiting) < wait_num:
                tm,i = heapq.heappop(events); waiting.add(i)
            start = tm
            while events and events[0][0] <= start: waiting.add(heapq.heappop(events)[1])
            s = min(range(slots), key=lambda k: slot_free[k]); start=max(start, slot_free[s])
        d = J(infer); end = start + d; slot_free[s] = end
        for i in waiting:
            st = J(step); done += 1
            remaining[i] -= 1
            r = end + st
            if remaining[i] <= 0:
                r += J(reset); resets += 1; remaining[i] = int(round(J(eplen)))
            heapq.heappush(events, (r, i))
        now = end
        waiting = set()
    lb = (total*(step+infer) + (resets)*reset)/n
    return now, lb, now/lb
for name,(step,infer,reset) in {'small':(0.005,0.004,0.1),'middle':(0.01,0.008,0.5),'big':(0.1,0.02,2)}.items():
  for rm in (1,5):
    for mode,slots in (('sync',1),('async',1),('greedy',1),('greedy',2),('greedy',8)):
        t,lb,r = run(step,infer,reset*rm,mode,slots)
        print(f"{name:6} reset x{rm} {mode:6} slots={slots}: {t:7.1f}s lb {lb:6.1f} ratio {r:.3f}")
