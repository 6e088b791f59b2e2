"""The game interface: the names follow PettingZoo's AEC games (reset,
step, observe, action_mask, agent_selection, terminated), with agents
numbered 0 and 1."""


class Game:
    """One instance per env: the server makes a fresh one for each env the
    league opens, so instance state is episode state.

    Class attributes (the spec, sent once per connection):
      name          [a-z0-9_-]{1,31}; a config's env.name must match it
      num_actions   1..64; actions are 0 .. num_actions-1
      obs_shape     a tuple of 1 to 4 positive ints; observe() returns
                    their product of floats, flattened row-major
      simultaneous  True: both agents act at every step, and step() gets
                    a pair of actions (agent 0's, agent 1's)
      max_steps     no episode is longer (the league truncates there and
                    scores a draw)

    The constructor gets env.params of the config as keyword arguments
    (strings); raise ValueError naming the bad one to refuse them (the
    league prints the message and exits 2).
    """

    name = None
    num_actions = None
    obs_shape = None
    simultaneous = False
    max_steps = None

    def __init__(self, **params):
        if params:
            raise ValueError("unknown params: " + ", ".join(sorted(params)))

    # -- what a game implements ------------------------------------------

    def reset(self, seed):
        """Start an episode. Draw every chance event from a generator
        seeded with seed (random.Random(seed)), so the league can replay
        it."""
        raise NotImplementedError

    @property
    def agent_selection(self):
        """The agent to move (0 or 1); not read in simultaneous games or
        once terminated is true."""
        raise NotImplementedError

    @property
    def terminated(self):
        """True once the episode is over."""
        raise NotImplementedError

    def observe(self, agent):
        """agent's observation: a flat sequence of floats (list, tuple,
        array) of the obs_shape's size."""
        raise NotImplementedError

    def action_mask(self, agent):
        """A sequence of num_actions 0/1 values, 1 where agent may act now
        (never all 0 for an agent that must move)."""
        raise NotImplementedError

    def step(self, action):
        """Apply the mover's action (simultaneous games: the pair). The
        league only sends actions the mask allowed."""
        raise NotImplementedError

    def returns(self):
        """(agent 0's return, agent 1's) at the end; they sum to 0."""
        raise NotImplementedError
