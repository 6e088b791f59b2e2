"""Protocol version 2 of league_game.server (run by make test through
tests/check_remote.c): the version rule of the Hello, per-seat spaces,
legal-action lists, returns per seat as the payoff declares, and the
N-player Kuhn poker of python/examples."""
import os
import struct
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir))
sys.path.insert(0, os.path.join(HERE, os.pardir, "examples"))
from league_game import Box, Discrete, Game, game_pb2 as pb  # noqa: E402
from league_game.server import _Conn, check_spec  # noqa: E402
from kuhn import Kuhn  # noqa: E402
from tictactoe import TicTacToe  # noqa: E402


def floats(b):
    return list(struct.unpack("<%df" % (len(b) // 4), b))


def hello(*versions, game="", **params):
    h = pb.Hello(version=min(versions), game=game)
    if len(versions) > 1:
        h.versions.extend(versions)
    for k, v in params.items():
        h.params.add(key=k, value=v)
    return h


def connect(cls, *versions, **params):
    """A connection to cls after a Hello of versions: (conn, Welcome)."""
    c = _Conn(cls, None, None, None)
    return c, c.welcome(hello(*versions, **params))


class Seats(Game):
    """Three simultaneous seats of two roles: seat 0 ("sheriff") sees 2
    floats and has 3 actions, seats 1 and 2 ("smuggler", one team) see 3
    and have 100, listed. Each step every seat plays; after one step the
    returns are general-sum: seat 0 gets its action, seats 1 and 2 the
    sum of theirs. A seed of 7 makes seat 2 list a duplicate."""
    name = "seats"
    players = 3
    simultaneous = True
    max_steps = 1
    payoff = "general_sum"
    teams = (0, 1, 1)
    roles = ("sheriff", "smuggler", "smuggler")

    def observation_space(self, agent):
        return Box((2,) if agent == 0 else (3,))

    def action_space(self, agent):
        return Discrete(3 if agent == 0 else 100)

    def reset(self, seed):
        self.seed, self.acts = seed, None

    @property
    def terminated(self):
        return self.acts is not None

    def observe(self, agent):
        return [float(agent)] * (2 if agent == 0 else 3)

    def legal_actions(self, agent):
        if agent == 0:
            return [2, 0]
        if agent == 2 and self.seed in (7, 8, 9):
            return {7: [99, 5, 5], 8: [99, -5], 9: [99, 5.0]}[self.seed]
        return [99, 5]

    def step(self, actions):
        self.acts = actions

    def returns(self):
        a = self.acts
        return {0: a[0], 1: a[1] + a[2], 2: a[1] + a[2]}


class VersionTest(unittest.TestCase):
    def test_a_version_1_hello_gets_version_1(self):
        c, w = connect(TicTacToe, 1)
        self.assertEqual((w.version, w.error), (1, ""))
        self.assertEqual(len(w.spec.seats), 0)
        self.assertEqual((w.spec.players, w.spec.num_actions,
                          list(w.spec.obs_shape)), (2, 9, [3, 3, 3]))
        r = c.answer(pb.Batch(env=[1], kind=[0], seed=[1]))
        self.assertEqual((len(r.mask), len(r.legal_n)), (9, 0))

    def test_versions_1_and_2_get_2(self):
        c, w = connect(TicTacToe, 1, 2)
        self.assertEqual((w.version, w.error), (2, ""))
        self.assertEqual([(list(s.obs_shape), s.num_actions, s.team, s.role)
                          for s in w.spec.seats], [([3, 3, 3], 9, 0, "")] * 2)
        r = c.answer(pb.Batch(env=[1], kind=[0], seed=[1]))
        self.assertEqual((list(r.legal_n), len(r.mask)), ([0], 9))
        # a future client (2 and 3) still gets 2; 3 alone gets nothing
        self.assertEqual(connect(TicTacToe, 2, 3)[1].version, 2)
        w = connect(TicTacToe, 3)[1]
        self.assertIn("protocol version 3; this server speaks 1 and 2",
                      w.error)

    def test_a_game_beyond_version_1_refuses_a_version_1_league(self):
        w = connect(Kuhn, 1)[1]
        self.assertIn("game 'kuhn_py' needs protocol version 2 (3 players)",
                      w.error)
        self.assertEqual(connect(Kuhn, 1, players="2")[1].error, "")
        two = type("G", (Seats,), {"players": 2, "teams": None,
                                   "roles": ("a", "b")})
        self.assertIn("needs protocol version 2 (seats of different",
                      connect(two, 1)[1].error)
        self.assertIn("needs protocol version 2 (3 players)",
                      connect(Seats, 1)[1].error)
        w = connect(Kuhn, 1, 2, players="9")[1]
        self.assertIn("env.params: players: expected 2..8, got '9'",
                      w.error)

    def test_params_set_the_spec(self):
        w = connect(Kuhn, 1, 2, players="5")[1]
        self.assertEqual(w.spec.players, 5)
        self.assertEqual([list(s.obs_shape) for s in w.spec.seats],
                         [[29]] * 5)
        self.assertEqual(w.spec.max_steps, 9)


class SeatsTest(unittest.TestCase):
    def test_per_seat_spaces_lists_and_returns(self):
        c, w = connect(Seats, 1, 2)
        self.assertEqual(w.error, "")
        sp = w.spec
        self.assertEqual((sp.payoff, sp.teams), (pb.GENERAL_SUM, 2))
        self.assertEqual([(list(s.obs_shape), s.num_actions, s.team, s.role)
                          for s in sp.seats],
                         [([2], 3, 0, "sheriff"), ([3], 100, 1, "smuggler"),
                          ([3], 100, 1, "smuggler")])
        r = c.answer(pb.Batch(env=[1, 2], kind=[0, 0], seed=[1, 7]))
        # env 2's seat 2 lists 5 twice: that op fails, env 1's stands
        self.assertEqual(list(r.player), [-2, -3])
        self.assertIn("legal_actions(2): distinct", r.failures[0].error)
        self.assertEqual(floats(r.obs), [0, 0, 1, 1, 1, 2, 2, 2])
        self.assertEqual((list(r.legal_n), list(r.legal), r.mask),
                         ([2, 2, 2], [2, 0, 99, 5, 99, 5], b""))
        # a negative or a float action fails its op too, and only it
        r = c.answer(pb.Batch(env=[3, 4, 5], kind=[0, 0, 0],
                              seed=[8, 9, 1]))
        self.assertEqual(list(r.player), [-3, -3, -2])
        self.assertEqual([f.op for f in r.failures], [0, 1])
        self.assertEqual(list(r.legal), [2, 0, 99, 5, 99, 5])
        r = c.answer(pb.Batch(env=[1], kind=[1], actions=[2, 99, 5]))
        self.assertEqual(list(r.player), [-1])
        self.assertEqual(list(r.returns), [2.0, 104.0, 104.0])

    def test_returns_are_checked_as_declared(self):
        cases = [("zero_sum", 0.0, [1, -0.5, -0.5], None),
                 ("zero_sum", 0.0, [1, 0, 0], "not zero_sum"),
                 ("constant_sum", 3.0, [1, 1, 1], None),
                 ("constant_sum", 3.0, [1, 1, 0], "not constant_sum (3)"),
                 ("common_payoff", 0.0, [2, 2, 2], None),
                 ("common_payoff", 0.0, [2, 2, 1], "not common_payoff"),
                 ("general_sum", 0.0, [1, 5, 6], "seats 1 and 2 of team 1"),
                 ("general_sum", 0.0, [1, float("nan"), 0], "not finite"),
                 ("general_sum", 0.0, [1, 2], "2 values for 3 players")]
        for payoff, psum, rets, error in cases:
            cls = type("G", (Seats,), {
                "payoff": payoff, "payoff_sum": psum, "teams": (0, 1, 1),
                "returns": lambda self, rets=rets: rets})
            c, w = connect(cls, 2)
            self.assertEqual(w.error, "")
            c.answer(pb.Batch(env=[1], kind=[0], seed=[1]))
            r = c.answer(pb.Batch(env=[1], kind=[1], actions=[0, 5, 5]))
            if error is None:
                self.assertEqual(list(r.player), [-1], payoff)
                self.assertEqual(list(r.returns), rets)
            else:
                self.assertEqual(list(r.player), [-3], error)
                self.assertEqual(list(r.returns), [])
                self.assertIn(error, r.failures[0].error)

    def test_bad_specs_are_refused(self):
        def spec_error(**attrs):
            with self.assertRaises(ValueError) as e:
                check_spec(type("G", (Seats,), attrs))
            return str(e.exception)
        self.assertIn("team ids must be 0 .. T-1",
                      spec_error(teams=(0, 2, 2)))
        self.assertIn("teams has 2 entries for 3 players",
                      spec_error(teams=(0, 1)))
        self.assertIn("seats of the role 'player' differ",
                      spec_error(roles=None))
        self.assertIn("role must match", spec_error(roles=("A", "b", "b")))
        self.assertIn("players must be 1..8", spec_error(players=9))
        self.assertIn("payoff must be one of", spec_error(payoff="zero"))
        self.assertIn("seat 1's num_actions must be 1..65536", spec_error(
            action_space=lambda self, a: Discrete(3 if a == 0 else 65537)))


class KuhnTest(unittest.TestCase):
    def play(self, seed, actions, players="3"):
        """Kuhn's episode from seed with actions, over the protocol:
        (the cards, the players of each reply, the returns)."""
        c, w = connect(Kuhn, 1, 2, players=players)
        r = c.answer(pb.Batch(env=[1], kind=[0], seed=[seed]))
        cards = [c.envs[1].cards[p] for p in range(w.spec.players)]
        movers = [r.player[0]]
        for a in actions:
            r = c.answer(pb.Batch(env=[1], kind=[1], actions=[a]))
            movers.append(r.player[0])
        return cards, movers, list(r.returns)

    def test_all_pass_goes_to_the_highest_card(self):
        cards, movers, rets = self.play(3, [0, 0, 0])
        self.assertEqual(movers, [0, 1, 2, -1])
        best = cards.index(max(cards))
        self.assertEqual(rets, [2.0 if p == best else -1.0
                                for p in range(3)])

    def test_a_bet_is_answered_by_every_other_seat_once(self):
        # seat 1 bets, seat 2 calls, seat 0 folds
        cards, movers, rets = self.play(11, [0, 1, 1, 0])
        self.assertEqual(movers, [0, 1, 2, 0, -1])
        win = 1 if cards[1] > cards[2] else 2
        self.assertEqual(rets, [-1.0] + [3.0 if p == win else -2.0
                                         for p in (1, 2)])
        # seat 0 bets, both fold: it takes the antes
        cards, movers, rets = self.play(5, [1, 0, 0])
        self.assertEqual((movers, rets), ([0, 1, 2, -1], [2.0, -1.0, -1.0]))

    def test_observation_is_seat_card_and_betting(self):
        c, w = connect(Kuhn, 2)
        r = c.answer(pb.Batch(env=[1], kind=[0], seed=[9]))
        c.answer(pb.Batch(env=[1], kind=[1], actions=[1]))
        o = c.envs[1].observe(2)
        card = c.envs[1].cards[2]
        want = [0, 0, 1] + [1 if k == card else 0 for k in range(4)] + \
            [0, 1] + [0] * 8
        self.assertEqual(o, want)
        self.assertEqual(len(floats(r.obs)), 17)


class Named(TicTacToe):
    """Tic-tac-toe naming its cells "c0" .. "c8", except that cell 4 is
    named with a blank and, from seed 9 on, every cell "same"."""
    name = "named"

    def reset(self, seed):
        super().reset(seed)
        self.seed = seed

    def action_name(self, agent, action):
        if self.seed >= 9:
            return "same"
        return "c 4" if action == 4 and self.seed == 4 else "c%d" % action


class TextTest(unittest.TestCase):
    """The TEXT op (kind 3): describe() and the names of the seat's legal
    actions, sent only to a version-2 league by a game that has them."""

    def text(self, c, env, seat):
        return c.answer(pb.Batch(env=[env], kind=[3], actions=[seat]))

    def test_kuhn_describes_and_names_as_the_builtin(self):
        c, w = connect(Kuhn, 1, 2, players="2")
        self.assertTrue(w.spec.text)
        c.answer(pb.Batch(env=[1], kind=[0], seed=[5]))
        g = c.envs[1]
        card = "JQK"[g.cards[0]]
        r = self.text(c, 1, 0)
        self.assertEqual((list(r.player), len(r.failures)), ([-3], 0))
        self.assertEqual(list(r.text), [
            "kuhn poker, 2 players: you are seat 0\nyour card: %s\n"
            "pot: 2 (you put in 1)\nmoves: none yet" % card])
        self.assertEqual((list(r.names_n), list(r.named), list(r.names)),
                         ([2], [0, 1], ["check", "bet"]))
        # seat 1 does not move: described, nothing named
        r = self.text(c, 1, 1)
        self.assertEqual((list(r.names_n), list(r.named)), ([0], []))
        self.assertIn("you are seat 1", r.text[0])
        # a TEXT op leaves the state: the step after it is seat 0's bet
        r = c.answer(pb.Batch(env=[1, 1], kind=[1, 3], actions=[1, 1]))
        self.assertEqual(list(r.player), [1, -3])
        self.assertEqual(list(r.names), ["fold", "call"])
        self.assertIn("pot: 3 (you put in 1)\nmoves: seat0 bet", r.text[0])
        r = c.answer(pb.Batch(env=[1, 1], kind=[1, 3], actions=[0, 0]))
        self.assertEqual(list(r.player), [-1, -3])
        self.assertIn("moves: seat0 bet, seat1 fold\nhand over: your "
                      "return +1", r.text[0])
        self.assertEqual(list(r.names_n), [0])

    def test_no_text_for_a_game_without_it_or_a_version_1_league(self):
        c, w = connect(TicTacToe, 1, 2)
        self.assertFalse(w.spec.text)
        c.answer(pb.Batch(env=[1], kind=[0], seed=[1]))
        r = self.text(c, 1, 0)
        self.assertEqual(list(r.player), [-3])
        self.assertIn("no describe() or action_name()", r.failures[0].error)
        self.assertNotIn(1, c.envs)  # a failed op breaks its env
        c, w = connect(Kuhn, 1, players="2")
        self.assertEqual((w.version, w.spec.text), (1, False))

    def test_bad_names_fail_the_op_only(self):
        c, w = connect(Named, 2)
        self.assertTrue(w.spec.text)
        c.answer(pb.Batch(env=[1, 2, 3], kind=[0, 0, 0], seed=[1, 4, 9]))
        r = c.answer(pb.Batch(env=[1, 2, 3, 1], kind=[3, 3, 3, 3],
                              actions=[0, 0, 0, 5]))
        self.assertEqual(list(r.player), [-3] * 4)
        self.assertEqual([f.op for f in r.failures], [1, 2, 3])
        self.assertIn("action_name(0, 4) = 'c 4'", r.failures[0].error)
        self.assertIn("not distinct", r.failures[1].error)
        self.assertIn("a TEXT op for seat 5", r.failures[2].error)
        # op 0 stands: no describe(), so "", and the 9 cells named
        self.assertEqual(list(r.text), [""])
        self.assertEqual(list(r.names_n), [9])
        self.assertEqual(list(r.names), ["c%d" % a for a in range(9)])


if __name__ == "__main__":
    unittest.main()
