"""Unit tests of league_game.server's answer() (run by make test through
tests/check_remote.c): op order, failures, and what a failure must not
disturb."""
import os
import struct
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                os.pardir))
from league_game import Game, game_pb2 as pb  # noqa: E402
from league_game.server import _Conn, check_spec  # noqa: E402


class Count(Game):
    """A counter: each step adds the action; over at 100. Seed 13 and
    action 7 raise, agent_selection 5 after a step of 9 is a bad mover."""
    name = "count"
    num_actions = 10
    obs_shape = (2,)
    max_steps = 50

    def reset(self, seed):
        if seed == 13:
            raise ValueError("unlucky seed")
        self.seed, self.total, self.last, self.bad = seed, 0, -1, False

    @property
    def agent_selection(self):
        return 5 if self.bad else self.total % 2

    @property
    def terminated(self):
        return self.total >= 100

    def observe(self, agent):
        return [float(self.total), float(self.seed)]

    def action_mask(self, agent):
        return [1] * 10

    def step(self, action):
        if action == 7:
            raise ValueError("seven")
        self.bad = action == 9
        self.total += action
        self.last = action

    def returns(self):
        return (1.0, -1.0)


def conn():
    return _Conn(Count, check_spec(Count), None, None)


def floats(b):
    return list(struct.unpack("<%df" % (len(b) // 4), b))


class AnswerTest(unittest.TestCase):
    def test_a_failed_op_does_not_shift_the_next_ones(self):
        c = conn()
        c.answer(pb.Batch(env=[1, 2], kind=[0, 0], seed=[3, 4]))
        # env 1's step raises (action 7); env 2 must get 5, not 7
        r = c.answer(pb.Batch(env=[1, 2], kind=[1, 1], actions=[7, 5]))
        self.assertEqual(list(r.player), [-3, 1])
        self.assertEqual([(f.op, "seven" in f.error) for f in r.failures],
                         [(0, True)])
        self.assertEqual(c.envs[2].last, 5)
        self.assertEqual(floats(r.obs), [5.0, 4.0])
        self.assertNotIn(1, c.envs)  # the failed env is forgotten
        # a reset that raises uses up its seed: the next reset gets its own
        r = c.answer(pb.Batch(env=[5, 6], kind=[0, 0], seed=[13, 21]))
        self.assertEqual(list(r.player), [-3, 0])
        self.assertEqual(floats(r.obs), [0.0, 21.0])

    def test_bad_game_output_fails_its_op_only(self):
        c = conn()
        c.answer(pb.Batch(env=[1, 2], kind=[0, 0], seed=[1, 2]))
        r = c.answer(pb.Batch(env=[1, 2], kind=[1, 1], actions=[9, 3]))
        self.assertEqual(list(r.player), [-3, 1])
        self.assertIn("agent_selection 5", r.failures[0].error)
        self.assertEqual(len(r.obs), 2 * 4)
        self.assertEqual(len(r.mask), 10)

    def test_columns_are_consumed_in_op_order(self):
        c = conn()
        r = c.answer(pb.Batch(env=[1, 2, 3], kind=[0, 0, 0], seed=[7, 8, 9]))
        self.assertEqual(floats(r.obs), [0, 7, 0, 8, 0, 9])
        for _ in range(12):  # 12 steps of 8: 96, and the next 4 ends it
            c.answer(pb.Batch(env=[1], kind=[1], actions=[8]))
        r = c.answer(pb.Batch(env=[1, 2, 3], kind=[1, 2, 1],
                              actions=[4, 6]))
        self.assertEqual(list(r.player), [-1, -3, 0])
        self.assertEqual(list(r.returns), [1.0, -1.0])
        self.assertEqual(floats(r.obs), [6.0, 9.0])
        self.assertNotIn(2, c.envs)


if __name__ == "__main__":
    unittest.main()
