"""The game interface: the names follow PettingZoo's AEC games (reset,
step, observe, action_mask, agent_selection, possible_agents,
observation_space, action_space), with agents numbered by seat: 0 ..
players-1."""

PAYOFFS = ("zero_sum", "constant_sum", "common_payoff", "general_sum")


class Discrete:
    """Actions 0 .. n-1: what action_space(agent) returns (gymnasium's
    Discrete has the same `n`, and is accepted too)."""

    def __init__(self, n):
        self.n = n

    def __repr__(self):
        return "Discrete(%r)" % (self.n,)


class Box:
    """Observations of a shape, flattened row-major to floats: what
    observation_space(agent) returns (gymnasium's Box has the same
    `shape`, and is accepted too)."""

    def __init__(self, shape):
        self.shape = tuple(shape)

    def __repr__(self):
        return "Box(%r)" % (self.shape,)


class Game:
    """One instance per env: the server makes a fresh one for each env the
    league opens, so instance state is episode state.

    The spec (sent once per connection; read from an instance made with
    the connection's params, so params may set it, e.g. `players`):
      name          [a-z0-9_-]{1,31}; a config's env.name must match it
      players       1..8 seats (default 2); agents are 0 .. players-1
      num_actions   every seat's: actions 0 .. num_actions-1 (1..65536)
      obs_shape     every seat's: 1 to 4 positive ints; observe() returns
                    their product of floats, flattened row-major
      (a seat of its own spaces: override observation_space(agent) and
      action_space(agent))
      payoff        "zero_sum" (default), "constant_sum" (returns sum to
                    payoff_sum), "common_payoff" (all equal) or
                    "general_sum"
      teams         None (each seat its own team) or a team id per seat,
                    0 .. T-1, each team with a seat; seats of one team get
                    the same return
      roles         None (every seat "player") or a role name per seat,
                    [a-z0-9_-]{1,15}; seats of one role have the same
                    spaces (a league gives each role its own model)
      simultaneous  True: every seat acts at every step, and step() gets
                    a tuple of actions in seat order
      max_steps     no episode is longer (the league truncates there and
                    scores a draw)

    The constructor gets env.params of the config as keyword arguments
    (strings); raise ValueError naming the bad one to refuse them (the
    league prints the message and exits 2).
    """

    name = None
    players = 2
    num_actions = None
    obs_shape = None
    payoff = "zero_sum"
    payoff_sum = 0.0
    teams = None
    roles = None
    simultaneous = False
    max_steps = None

    def __init__(self, **params):
        if params:
            raise ValueError("unknown params: " + ", ".join(sorted(params)))

    # -- PettingZoo's names for the spec ----------------------------------

    @property
    def possible_agents(self):
        """The agents: seats 0 .. players-1."""
        return list(range(self.players))

    @property
    def num_agents(self):
        return self.players

    def observation_space(self, agent):
        """agent's observation space (a Box: its shape). Every seat's is
        obs_shape unless overridden."""
        return Box(self.obs_shape or ())

    def action_space(self, agent):
        """agent's action space (a Discrete: its n). Every seat's is
        num_actions unless overridden."""
        return Discrete(self.num_actions)

    # -- what a game implements ------------------------------------------

    def reset(self, seed):
        """Start an episode. Draw every chance event from a generator
        seeded with seed (random.Random(seed)), so the league can replay
        it."""
        raise NotImplementedError

    @property
    def agent_selection(self):
        """The agent to move (0 .. players-1); not read in simultaneous
        games or once terminated is true. Defaults to current_player (the
        name OpenSpiel users know): implement either."""
        return self.current_player

    @property
    def current_player(self):
        raise NotImplementedError("implement agent_selection or "
                                  "current_player")

    @property
    def terminated(self):
        """True once the episode is over."""
        raise NotImplementedError

    def observe(self, agent):
        """agent's observation: a flat sequence of floats (list, tuple,
        array) of its observation space's size."""
        raise NotImplementedError

    def action_mask(self, agent):
        """A sequence of the agent's n (action_space) 0/1 values, 1 where
        it may act now (never all 0 for an agent that must move).
        Implement this or legal_actions."""
        raise NotImplementedError("implement action_mask or legal_actions")

    def legal_actions(self, agent):
        """Optional instead of action_mask: the agent's legal actions now,
        distinct ints in any order (cheaper than a mask when few of many
        actions are legal). When a class defines it, the server sends
        these lists to a version-2 league."""
        m = self.action_mask(agent)
        return [a for a, v in enumerate(m) if v]

    def step(self, action):
        """Apply the mover's action (simultaneous games: the tuple, one
        per seat). The league only sends legal actions."""
        raise NotImplementedError

    def returns(self):
        """At the end: one return per seat, a sequence in seat order or a
        dict {agent: return}, as payoff declares."""
        raise NotImplementedError

    # -- optional text, for human play and checks -------------------------

    def describe(self, agent):
        """Optional: the state as agent sees it, for a human (its own
        cards, the pot, the board; nothing it may not know): a str,
        lines separated by "\n", at most 4,095 bytes of UTF-8. With it
        (or action_name) `league play` shows it to a human in that seat
        and `league env check` checks it. Any state, terminal too."""
        raise NotImplementedError

    def action_name(self, agent, action):
        """Optional: the name of agent's legal action now ("bet", "c3"):
        a str of 1 to 63 bytes of UTF-8 without blanks, distinct among
        the agent's legal actions. A human types it in `league play`.
        Without it actions are named by their numbers."""
        raise NotImplementedError
