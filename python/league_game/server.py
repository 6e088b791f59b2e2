"""The game server: net/game.proto over a stream socket, one thread per
league connection (a connection carries the batches of many envs)."""

import array
import math
import operator
import os
import random
import socket
import struct
import sys
import threading
import time
import traceback

from .game import Game, PAYOFFS

try:
    from . import game_pb2 as pb
except ImportError as e:  # pragma: no cover - a message, not a fix
    raise ImportError(
        "league_game.game_pb2 is generated from net/game.proto by `make` "
        "(protoc, python3-protobuf): " + str(e))

VERSIONS = (1, 2)  # of net/game.proto this server speaks
FRAME_MAX = 16 << 20
_RESET, _STEP, _CLOSE, _TEXT = 0, 1, 2, 3  # Batch.kind
_BIG_ENDIAN = sys.byteorder == "big"  # obs go little-endian
_NAME_CHARS = set("abcdefghijklmnopqrstuvwxyz0123456789_-")


_FAILURE_TEXT_MAX = 4000


def _failure_text(e):
    """The game's exception as the league logs it: the traceback (file and
    line of every frame, the game's own last) ending in one line naming
    the exception; the frames cut from the top to fit the league's cap."""
    last = ("%s: %s" % (type(e).__name__, e)).replace("\n", " ")
    frames = "".join(traceback.format_tb(e.__traceback__))
    room = _FAILURE_TEXT_MAX - len(last) - 40
    if room < 0:
        return last[:_FAILURE_TEXT_MAX]
    if len(frames) > room:
        frames = "  ...\n" + frames[len(frames) - room:]
    return "Traceback (most recent call last):\n%s%s" % (frames, last)


PLAYERS_MAX = 8
ACTIONS_MAX = 65536
OBS_MAX = 1 << 20
RETURN_MAX = 1e9
_ROLE_MAX = 15
TEXT_MAX = 4095  # bytes of describe()'s UTF-8
NAME_MAX = 63    # bytes of action_name()'s UTF-8


class GameSpec:
    """A game's spec as the server sends it: per seat obs_shape, obs_len,
    num_actions, team and role; payoff; whether the class lists legal
    actions (legal_actions) or masks them; and whether it has text
    (describe, action_name)."""

    def __init__(self, name, players, seats, payoff, payoff_sum, teams,
                 simultaneous, max_steps, lists, text=False):
        self.name = name
        self.players = players
        self.seats = seats  # [(obs_shape, obs_len, num_actions, team, role)]
        self.payoff = payoff
        self.payoff_sum = payoff_sum
        self.teams = teams  # 0: each seat its own team
        self.simultaneous = simultaneous
        self.max_steps = max_steps
        self.lists = lists
        self.text = text
        self.obs_len = [s[1] for s in seats]
        self.num_actions = [s[2] for s in seats]

    def fits_v1(self):
        """Why the game needs protocol version 2, or "" when version 1
        carries it (two seats of one shape, zero-sum, <= 64 actions)."""
        s = self.seats
        if self.players != 2:
            return "%d players" % self.players
        if s[0][:3] != s[1][:3]:
            return "seats of different spaces"
        if s[0][2] > 64:
            return "%d actions" % s[0][2]
        if self.payoff != 0:
            return "a %s payoff" % PAYOFFS[self.payoff]
        if self.teams or any(x[4] for x in s):
            return "teams or roles"
        return ""

    def message(self, version):
        """The Spec message of protocol version (1 or 2)."""
        s0 = self.seats[0]
        spec = pb.Spec(name=self.name, players=self.players,
                       num_actions=s0[2], simultaneous=self.simultaneous,
                       max_steps=self.max_steps)
        spec.obs_shape.extend(s0[0])
        if version >= 2:
            for shape, _, na, team, role in self.seats:
                seat = spec.seats.add(num_actions=na, team=team, role=role)
                seat.obs_shape.extend(shape)
            spec.payoff = self.payoff
            spec.payoff_sum = self.payoff_sum
            spec.teams = self.teams
            spec.text = self.text
        return spec


def _seq(value, n, what):
    """value as a tuple of n entries (None: None each)."""
    if value is None:
        return (None,) * n
    value = tuple(value)
    if len(value) != n:
        raise ValueError("%s has %d entries for %d players" % (what,
                         len(value), n))
    return value


def _int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _seat(g, p, team, role, where):
    """Seat p's (obs_shape, obs_len, num_actions, team, role)."""
    shape = tuple(getattr(g.observation_space(p), "shape", None) or ())
    if not 1 <= len(shape) <= 4 or any(not _int(d) or d < 1 for d in shape):
        raise ValueError("%s: seat %d's obs_shape must be 1 to 4 positive "
                         "ints" % (where, p))
    obs_len = 1
    for d in shape:
        obs_len *= d
    if obs_len > OBS_MAX:
        raise ValueError("%s: seat %d's obs_shape is over %d floats"
                         % (where, p, OBS_MAX))
    try:  # an int, or numpy's (gymnasium's Discrete.n)
        na = operator.index(getattr(g.action_space(p), "n", None))
    except TypeError:
        na = None
    if na is None or not 1 <= na <= ACTIONS_MAX:
        raise ValueError("%s: seat %d's num_actions must be 1..%d"
                         % (where, p, ACTIONS_MAX))
    if role is None:
        role = ""
    if not isinstance(role, str) or len(role) > _ROLE_MAX or \
            not set(role) <= _NAME_CHARS:
        raise ValueError("%s: seat %d's role must match [a-z0-9_-]{1,15}"
                         % (where, p))
    return (shape, obs_len, na, team, "" if role == "player" else role)


def check_spec(game):
    """The spec of game (an instance, or a class made without params),
    checked as the league will check it."""
    g = game() if isinstance(game, type) else game
    cls = type(g)
    where = cls.__name__
    name = cls.name
    if not isinstance(name, str) or not 1 <= len(name) <= 31 or \
            not set(name) <= _NAME_CHARS:
        raise ValueError("%s.name must match [a-z0-9_-]{1,31}" % where)
    n = g.players
    if not _int(n) or not 1 <= n <= PLAYERS_MAX:
        raise ValueError("%s.players must be 1..%d" % (where, PLAYERS_MAX))
    teams = _seq(g.teams, n, where + ".teams")
    roles = _seq(g.roles, n, where + ".roles")
    nteams = 0
    if g.teams is not None:
        if any(not _int(t) or t < 0 for t in teams) or \
                set(teams) != set(range(max(teams) + 1)):
            raise ValueError("%s.teams: team ids must be 0 .. T-1, each "
                             "with a seat" % where)
        nteams = max(teams) + 1
    seats = [_seat(g, p, teams[p] or 0, roles[p], where) for p in range(n)]
    by_role = {}
    for p, s in enumerate(seats):
        if by_role.setdefault(s[4], s[:3]) != s[:3]:
            raise ValueError("%s: seats of the role '%s' differ in their "
                             "spaces" % (where, s[4] or "player"))
    if g.payoff not in PAYOFFS:
        raise ValueError("%s.payoff must be one of %s"
                         % (where, ", ".join(PAYOFFS)))
    psum = float(g.payoff_sum)
    if not math.isfinite(psum) or abs(psum) > RETURN_MAX:
        raise ValueError("%s.payoff_sum must be finite" % where)
    ms = g.max_steps
    if not _int(ms) or ms < 1:
        raise ValueError("%s.max_steps must be a positive int" % where)
    lists = cls.legal_actions is not Game.legal_actions
    text = (cls.describe is not Game.describe or
            cls.action_name is not Game.action_name)
    return GameSpec(name, n, seats, PAYOFFS.index(g.payoff), psum, nteams,
                    bool(g.simultaneous), ms, lists, text)


def _name_ok(name):
    """An action's name: a str of 1..NAME_MAX bytes, no blank or control
    character."""
    return (isinstance(name, str) and
            1 <= len(name.encode("utf-8")) <= NAME_MAX and
            not any(c.isspace() or ord(c) < 0x20 or ord(c) == 0x7f
                    for c in name))


def game_text(g, spec, seat):
    """The text of game instance g for seat (a TEXT op's answer): its
    description ("" without describe()), and its legal actions now with
    their names (none without action_name(), or when seat does not move
    now), checked as the league checks them; ValueError says what is
    wrong."""
    cls = type(g)
    if not _int(seat) or not 0 <= seat < spec.players:
        raise ValueError("a TEXT op for seat %r (0 .. %d)"
                         % (seat, spec.players - 1))
    desc = ""
    if cls.describe is not Game.describe:
        desc = g.describe(seat)
        if not isinstance(desc, str) or \
                len(desc.encode("utf-8")) > TEXT_MAX:
            raise ValueError("describe(%d): a str of at most %d bytes of "
                             "UTF-8" % (seat, TEXT_MAX))
    acts, names = [], []
    if cls.action_name is not Game.action_name and not g.terminated and \
            (spec.simultaneous or g.agent_selection == seat):
        na = spec.num_actions[seat]
        acts = [operator.index(a) for a in g.legal_actions(seat)]
        if any(not 0 <= a < na for a in acts):
            raise ValueError("legal_actions(%d): actions of 0 .. %d"
                             % (seat, na - 1))
        names = [g.action_name(seat, a) for a in acts]
        for a, name in zip(acts, names):
            if not _name_ok(name):
                raise ValueError("action_name(%d, %d) = %r: a str of 1 to %d "
                                 "bytes of UTF-8 without blanks"
                                 % (seat, a, name, NAME_MAX))
        if len(set(names)) != len(names):
            raise ValueError("action_name(%d, ...): the names of its legal "
                             "actions are not distinct: %r" % (seat, names))
    return desc, acts, names


def check_returns(spec, r, version):
    """The returns r (a sequence or {agent: return}) as floats, checked
    against the spec; ValueError says what is wrong."""
    n = spec.players
    if isinstance(r, dict):
        r = [r[a] for a in range(n)]
    r = [float(v) for v in r]
    if len(r) != n:
        raise ValueError("returns: %d values for %d players" % (len(r), n))
    if version == 1:
        r0, r1 = r
        if not (math.isfinite(r0) and math.isfinite(r1) and
                abs(r0 + r1) <= 1e-6 * (1 + abs(r0))):
            raise ValueError("returns %r, %r: not finite and summing to 0"
                             % (r0, r1))
        return r
    if not all(math.isfinite(v) and abs(v) <= RETURN_MAX for v in r):
        raise ValueError("returns %r: not finite (|r| <= 1e9)" % (r,))
    tol = 1e-6 * (1 + max(abs(v) for v in r))
    pay = spec.payoff
    if (pay == 0 and abs(math.fsum(r)) > tol) or \
            (pay == 1 and abs(math.fsum(r) - spec.payoff_sum) > tol) or \
            (pay == 2 and max(r) - min(r) > tol):
        raise ValueError("returns %r: not %s%s" % (
            r, PAYOFFS[pay], " (%g)" % spec.payoff_sum if pay == 1 else ""))
    if spec.teams:
        first = {}
        for p, s in enumerate(spec.seats):
            q = first.setdefault(s[3], p)
            if abs(r[p] - r[q]) > tol:
                raise ValueError("returns %r: seats %d and %d of team %d "
                                 "differ" % (r, q, p, s[3]))
    return r


def _recv_exact(sock, n):
    buf = bytearray(n)
    view = memoryview(buf)
    got = 0
    while got < n:
        k = sock.recv_into(view[got:], n - got)
        if k == 0:
            return None
        got += k
    return bytes(buf)


def _recv_frame(sock):
    head = _recv_exact(sock, 4)
    if head is None:
        return None
    (n,) = struct.unpack("<I", head)
    if n > FRAME_MAX:
        raise ValueError("a frame of %d bytes (the cap is %d)" % (n, FRAME_MAX))
    return _recv_exact(sock, n) if n else b""


def _send(sock, msg):
    body = msg.SerializeToString()
    sock.sendall(struct.pack("<I", len(body)) + body)


class _Conn:
    """One league connection: its envs, and the loop that answers its
    batches in the protocol version agreed in the Hello (1 until then)."""

    def __init__(self, cls, spec, sock, peer, version=1, versions=VERSIONS):
        self.cls = cls
        self.versions = tuple(versions)
        self.spec = spec
        self.sock = sock
        self.peer = peer
        self.envs = {}
        self.params = {}
        self.version = version

    def answer(self, batch):
        """The BatchReply to batch, column by column (net/game.proto)."""
        players = []
        obs = array.array("f")
        mask = bytearray()
        legal, legal_n = array.array("I"), []
        text = ([], [], [], [])  # the columns text, names_n, named, names
        rets = []
        failures = []
        envs = self.envs
        spec = self.spec
        v2 = self.version >= 2
        lists = v2 and spec.lists
        nplay = spec.players
        seats = range(nplay)
        simul = spec.simultaneous
        ol, na = spec.obs_len, spec.num_actions
        ids = list(batch.env)
        kinds = list(batch.kind)
        seeds = list(batch.seed)
        acts = list(batch.actions)
        if len(kinds) != len(ids):
            raise ValueError("a Batch with %d envs and %d kinds"
                             % (len(ids), len(kinds)))
        si = ai = 0
        nact = nplay if simul else 1
        # the hot loop: names bound locally, masks through bytearray.extend
        # (any iterable of ints 0..255: a list, bools, an int array)
        append, oext, mext = players.append, obs.extend, mask.extend
        new = self.cls
        params = self.params
        for env, kind in zip(ids, kinds):
            if kind == _CLOSE:
                envs.pop(env, None)
                append(-3)
                continue
            if kind == _TEXT:
                seat = acts[ai] if ai < len(acts) else None
                ai += 1
                append(-3)
                try:
                    if not (v2 and spec.text):
                        raise ValueError("a TEXT op: this game has no "
                                         "describe() or action_name()")
                    desc, named, names = game_text(envs[env], spec, seat)
                except Exception as e:  # the env's failure
                    envs.pop(env, None)
                    failures.append(pb.Failure(op=len(players) - 1,
                                               error=_failure_text(e)))
                    continue
                text[0].append(desc)
                text[1].append(len(named))
                text[2].extend(named)
                text[3].extend(names)
                continue
            n_obs, n_mask = len(obs), len(mask)
            n_legal, n_ln, n_ret = len(legal), len(legal_n), len(rets)
            # An op's seed or actions are its own whatever happens to
            # it: take them before the game can fail.
            if kind == _STEP:
                a = tuple(acts[ai:ai + nact]) if nact > 1 else acts[ai]
                ai += nact
            elif kind == _RESET:
                seed = seeds[si]
                si += 1
            try:
                if kind == _STEP:
                    g = envs[env]
                    g.step(a)
                elif kind == _RESET:
                    g = envs.get(env)
                    if g is None:
                        g = envs[env] = new(**params)
                    g.reset(seed)
                else:
                    raise ValueError("op kind %d" % kind)
                if g.terminated:
                    rets.extend(check_returns(spec, g.returns(),
                                              self.version))
                    append(-1)
                    continue
                if simul:
                    player, movers = -2, seats
                else:
                    player = g.agent_selection
                    if player not in seats:
                        raise ValueError("agent_selection %r (not 0 .. %d)"
                                         % (player, nplay - 1))
                    player = int(player)
                    movers = (player,)
                for p in movers:
                    o = g.observe(p)
                    if len(o) != ol[p]:
                        raise ValueError(
                            "observe(%d) gave %d floats; the spec says %d"
                            % (p, len(o), ol[p]))
                    oext(o)
                    if lists:
                        # into the array here: a value that is no
                        # unsigned int fails the op, not the reply
                        k = len(legal)
                        legal.extend(g.legal_actions(p))
                        la = legal[k:]
                        k = len(la)
                        if not k or len(set(la)) != k or max(la) >= na[p]:
                            raise ValueError(
                                "legal_actions(%d): distinct actions of "
                                "0 .. %d, at least one" % (p, na[p] - 1))
                        legal_n.append(k)
                        continue
                    n_m = len(mask)
                    mext(g.action_mask(p))
                    if len(mask) - n_m != na[p]:
                        raise ValueError(
                            "action_mask(%d) gave %d entries; the spec "
                            "says %d" % (p, len(mask) - n_m, na[p]))
                    if max(mask[n_m:]) > 1 or not any(mask[n_m:]):
                        raise ValueError("action_mask(%d): entries must be "
                                         "0 or 1, at least one 1" % p)
                    if v2:
                        legal_n.append(0)
                append(player)
            except Exception as e:  # the env's failure, not the connection's
                del obs[n_obs:]
                del mask[n_mask:]
                del legal[n_legal:]
                del legal_n[n_ln:]
                del rets[n_ret:]
                envs.pop(env, None)
                failures.append(pb.Failure(op=len(players),
                                           error=_failure_text(e)))
                append(-3)
        if _BIG_ENDIAN:
            obs.byteswap()
        reply = pb.BatchReply(obs=obs.tobytes(), mask=bytes(mask))
        reply.player.extend(players)
        reply.returns.extend(rets)
        reply.failures.extend(failures)
        if v2:
            reply.legal_n.extend(legal_n)
            reply.legal.extend(legal)
            reply.text.extend(text[0])
            reply.names_n.extend(text[1])
            reply.named.extend(text[2])
            reply.names.extend(text[3])
        return reply

    def welcome(self, hello):
        """The Welcome to hello: the version both speak and the spec of
        the game made with its params, or the reason for refusing."""
        common = (set(hello.versions) | {hello.version}) & set(self.versions)
        version = max(common) if common else self.versions[-1]
        welcome = pb.Welcome(version=version)
        self.params = {p.key: p.value for p in hello.params}
        if not common:
            welcome.error = "protocol version %s; this server speaks %s" % (
                " or ".join(str(v) for v in sorted(
                    set(hello.versions) | {hello.version})),
                " and ".join(str(v) for v in self.versions))
            return welcome
        if hello.game and hello.game != self.cls.name:
            welcome.error = "this server serves '%s', not '%s'" % (
                self.cls.name, hello.game)
            return welcome
        try:
            g = self.cls(**self.params)
        except Exception as e:
            welcome.error = ("env.params: %s" % e).replace("\n", " ")
            return welcome
        try:
            self.spec = check_spec(g)
        except Exception as e:
            welcome.error = ("the game's spec: %s" % e).replace("\n", " ")
            return welcome
        why = self.spec.fits_v1()
        if version == 1 and why:
            welcome.error = ("game '%s' needs protocol version 2 (%s), "
                             "not 1" % (self.spec.name, why))
            return welcome
        self.version = version
        welcome.spec.CopyFrom(self.spec.message(version))
        return welcome

    def run(self):
        data = _recv_frame(self.sock)
        if data is None:
            return
        welcome = self.welcome(pb.Hello.FromString(data))
        _send(self.sock, welcome)
        if welcome.error:
            return
        while True:
            data = _recv_frame(self.sock)
            if data is None:
                return
            _send(self.sock, self.answer(pb.Batch.FromString(data)))


class Server:
    """Serves cls at address ("HOST:PORT" or "unix:PATH") in the protocol
    versions up to `protocol` (a league that speaks 2 gets 1 from a
    server limited to it: how a version-1 server is tried)."""

    def __init__(self, cls, address, protocol=VERSIONS[-1]):
        self.cls = cls
        self.versions = tuple(v for v in VERSIONS if v <= protocol)
        if not self.versions:
            raise ValueError("protocol %r: this server speaks %s"
                             % (protocol, " and ".join(map(str, VERSIONS))))
        try:
            g = cls()
        except Exception:  # it needs params: checked per connection
            g = None
        self.spec = check_spec(g) if g is not None else None
        self.address = address
        if address.startswith("unix:"):
            path = address[5:]
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.sock.bind(path)
        else:
            host, _, port = address.rpartition(":")
            if not host or not port.isdigit():
                raise ValueError("address %r: not HOST:PORT or unix:PATH"
                                 % address)
            self.sock = socket.create_server((host, int(port)))
        self.sock.listen(64)

    def _serve_one(self, sock, peer):
        try:
            if sock.family != socket.AF_UNIX:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            _Conn(self.cls, self.spec, sock, peer,
                  versions=self.versions).run()
        except (OSError, ValueError) as e:
            print("league_game: %s: %s" % (peer or "unix", e), file=sys.stderr)
        except Exception as e:  # a bad frame: close this connection only
            print("league_game: %s: closing: %s: %s" % (
                peer or "unix", type(e).__name__, e), file=sys.stderr)
        finally:
            sock.close()

    def serve_forever(self):
        print("league_game: serving %s at %s" % (self.cls.name, self.address),
              file=sys.stderr, flush=True)
        while True:
            sock, peer = self.sock.accept()
            threading.Thread(target=self._serve_one, args=(sock, peer),
                             daemon=True).start()


def selfplay_steps_per_s(cls, seconds=2.0, seed=1, **params):
    """The game's own step loop, no protocol: random legal moves, with
    observe() and the legal actions (action_mask(), or legal_actions()
    when the class lists them) of every mover at every step as the server
    computes them. The reference `league bench env --remote` compares the
    remote loop with."""
    rng = random.Random(seed)
    g = cls(**params)
    spec = check_spec(g)
    seats = tuple(range(spec.players))
    g.reset(rng.getrandbits(64))
    steps = 0
    t0 = time.perf_counter()
    end = t0 + seconds
    while True:
        for _ in range(256):
            if g.terminated:
                g.returns()
                g.reset(rng.getrandbits(64))
            movers = seats if spec.simultaneous else (g.agent_selection,)
            acts = []
            for p in movers:
                g.observe(p)
                if spec.lists:
                    acts.append(rng.choice(g.legal_actions(p)))
                    continue
                m = g.action_mask(p)
                acts.append(rng.choice([a for a, v in enumerate(m) if v]))
            g.step(tuple(acts) if spec.simultaneous else acts[0])
            steps += 1
        now = time.perf_counter()
        if now >= end:
            return steps / (now - t0)


def serve(cls, address=None, argv=None):
    """The main of a game script: serve cls at address, or --listen ADDR,
    or $LEAGUE_GAME_ADDRESS; --protocol N speaks versions up to N only.
    With --selfplay-bench SECONDS, print the game's own step rate as JSON
    instead (for `league bench env --remote`)."""
    argv = sys.argv[1:] if argv is None else argv
    if "--selfplay-bench" in argv:
        secs = float(argv[argv.index("--selfplay-bench") + 1])
        print('{"python_steps_per_s": %.1f}' % selfplay_steps_per_s(cls, secs),
              flush=True)
        return
    if "--listen" in argv:
        address = argv[argv.index("--listen") + 1]
    address = address or os.environ.get("LEAGUE_GAME_ADDRESS")
    protocol = VERSIONS[-1]
    if "--protocol" in argv:
        arg = argv[argv.index("--protocol") + 1]
        if not arg.isdigit():
            sys.exit("league_game: --protocol %r: not a version" % arg)
        protocol = int(arg)
    if not address:
        sys.exit("league_game: no address: pass --listen HOST:PORT or set "
                 "LEAGUE_GAME_ADDRESS")
    try:
        server = Server(cls, address, protocol)
    except (OSError, ValueError) as e:
        sys.exit("league_game: cannot serve at %s: %s" % (address, e))
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
