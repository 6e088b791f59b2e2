"""The game server: net/game.proto over a stream socket, one thread per
league connection (a connection carries the batches of many envs)."""

import array
import math
import os
import random
import socket
import struct
import sys
import threading
import time
import traceback

try:
    from . import game_pb2 as pb
except ImportError as e:  # pragma: no cover - a message, not a fix
    raise ImportError(
        "league_game.game_pb2 is generated from net/game.proto by `make` "
        "(protoc, python3-protobuf): " + str(e))

VERSION = 1
FRAME_MAX = 16 << 20
_RESET, _STEP, _CLOSE = 0, 1, 2  # Batch.kind
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


def check_spec(cls):
    """The class's spec, checked as the league will check it."""
    name = cls.name
    if not isinstance(name, str) or not 1 <= len(name) <= 31 or \
            not set(name) <= _NAME_CHARS:
        raise ValueError("%s.name must match [a-z0-9_-]{1,31}" % cls.__name__)
    na = cls.num_actions
    if not isinstance(na, int) or not 1 <= na <= 64:
        raise ValueError("%s.num_actions must be 1..64" % cls.__name__)
    shape = tuple(cls.obs_shape or ())
    if not 1 <= len(shape) <= 4 or \
            any(not isinstance(d, int) or d < 1 for d in shape):
        raise ValueError("%s.obs_shape must be 1 to 4 positive ints"
                         % cls.__name__)
    ms = cls.max_steps
    if not isinstance(ms, int) or ms < 1:
        raise ValueError("%s.max_steps must be a positive int" % cls.__name__)
    spec = pb.Spec(name=name, players=2, num_actions=na,
                   simultaneous=bool(cls.simultaneous), max_steps=ms)
    spec.obs_shape.extend(shape)
    return spec


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
    batches."""

    def __init__(self, cls, spec, sock, peer):
        self.cls = cls
        self.spec = spec
        self.sock = sock
        self.peer = peer
        self.envs = {}
        self.params = {}
        self.obs_len = 1
        for d in spec.obs_shape:
            self.obs_len *= d

    def answer(self, batch):
        """The BatchReply to batch, column by column (net/game.proto)."""
        players = []
        obs = array.array("f")
        mask = bytearray()
        rets = []
        failures = []
        envs = self.envs
        simul = self.spec.simultaneous
        obs_len, na = self.obs_len, self.spec.num_actions
        ids = list(batch.env)
        kinds = list(batch.kind)
        seeds = list(batch.seed)
        acts = list(batch.actions)
        if len(kinds) != len(ids):
            raise ValueError("a Batch with %d envs and %d kinds"
                             % (len(ids), len(kinds)))
        si = ai = 0
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
            n_obs, n_mask = len(obs), len(mask)
            # An op's seed or actions are its own whatever happens to
            # it: take them before the game can fail.
            if kind == _STEP:
                a = (acts[ai], acts[ai + 1]) if simul else acts[ai]
                ai += 2 if simul else 1
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
                    r0, r1 = (float(v) for v in g.returns())
                    if not (math.isfinite(r0) and math.isfinite(r1) and
                            abs(r0 + r1) <= 1e-6 * (1 + abs(r0))):
                        raise ValueError("returns %r, %r: not finite and "
                                         "summing to 0" % (r0, r1))
                    rets.append(r0)
                    rets.append(r1)
                    append(-1)
                    continue
                if simul:
                    movers = (0, 1)
                    player = -2
                else:
                    player = g.agent_selection
                    if player not in (0, 1):
                        raise ValueError("agent_selection %r (not 0 or 1)"
                                         % (player,))
                    player = int(player)
                    movers = (player,)
                for p in movers:
                    o = g.observe(p)
                    m = g.action_mask(p)
                    if len(o) != obs_len or len(m) != na:
                        raise ValueError(
                            "observe(%d) gave %d floats and action_mask(%d) "
                            "%d entries; the spec says %d and %d"
                            % (p, len(o), p, len(m), obs_len, na))
                    oext(o)
                    n_m = len(mask)
                    mext(m)
                    if max(mask[n_m:]) > 1 or not any(mask[n_m:]):
                        raise ValueError("action_mask(%d): entries must be "
                                         "0 or 1, at least one 1" % p)
                append(player)
            except Exception as e:  # the env's failure, not the connection's
                del obs[n_obs:]
                del mask[n_mask:]
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
        return reply

    def run(self):
        data = _recv_frame(self.sock)
        if data is None:
            return
        hello = pb.Hello.FromString(data)
        welcome = pb.Welcome(version=VERSION)
        self.params = {p.key: p.value for p in hello.params}
        if hello.version != VERSION:
            welcome.error = "protocol version %d; this server speaks %d" % (
                hello.version, VERSION)
        elif hello.game and hello.game != self.spec.name:
            welcome.error = "this server serves '%s', not '%s'" % (
                self.spec.name, hello.game)
        else:
            try:
                self.cls(**self.params)
            except Exception as e:
                welcome.error = ("env.params: %s" % e).replace("\n", " ")
        if not welcome.error:
            welcome.spec.CopyFrom(self.spec)
        _send(self.sock, welcome)
        if welcome.error:
            return
        while True:
            data = _recv_frame(self.sock)
            if data is None:
                return
            _send(self.sock, self.answer(pb.Batch.FromString(data)))


class Server:
    """Serves cls at address ("HOST:PORT" or "unix:PATH")."""

    def __init__(self, cls, address):
        self.cls = cls
        self.spec = check_spec(cls)
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
            _Conn(self.cls, self.spec, sock, peer).run()
        except (OSError, ValueError) as e:
            print("league_game: %s: %s" % (peer or "unix", e), file=sys.stderr)
        except Exception as e:  # a bad frame: close this connection only
            print("league_game: %s: closing: %s: %s" % (
                peer or "unix", type(e).__name__, e), file=sys.stderr)
        finally:
            sock.close()

    def serve_forever(self):
        print("league_game: serving %s at %s" % (self.spec.name, self.address),
              file=sys.stderr, flush=True)
        while True:
            sock, peer = self.sock.accept()
            threading.Thread(target=self._serve_one, args=(sock, peer),
                             daemon=True).start()


def selfplay_steps_per_s(cls, seconds=2.0, seed=1, **params):
    """The game's own step loop, no protocol: random legal moves, with
    observe() and action_mask() of every mover at every step as the
    server computes them. The reference `league bench env --remote`
    compares the remote loop with."""
    rng = random.Random(seed)
    g = cls(**params)
    spec = check_spec(cls)
    g.reset(rng.getrandbits(64))
    steps = 0
    t0 = time.perf_counter()
    end = t0 + seconds
    while True:
        for _ in range(256):
            if g.terminated:
                g.returns()
                g.reset(rng.getrandbits(64))
            movers = (0, 1) if spec.simultaneous else (g.agent_selection,)
            acts = []
            for p in movers:
                g.observe(p)
                m = g.action_mask(p)
                acts.append(rng.choice([a for a, v in enumerate(m) if v]))
            g.step(tuple(acts) if spec.simultaneous else acts[0])
            steps += 1
        now = time.perf_counter()
        if now >= end:
            return steps / (now - t0)


def serve(cls, address=None, argv=None):
    """The main of a game script: serve cls at address, or --listen ADDR,
    or $LEAGUE_GAME_ADDRESS. With --selfplay-bench SECONDS, print the
    game's own step rate as JSON instead (for `league bench env
    --remote`)."""
    argv = sys.argv[1:] if argv is None else argv
    if "--selfplay-bench" in argv:
        secs = float(argv[argv.index("--selfplay-bench") + 1])
        print('{"python_steps_per_s": %.1f}' % selfplay_steps_per_s(cls, secs),
              flush=True)
        return
    if "--listen" in argv:
        address = argv[argv.index("--listen") + 1]
    address = address or os.environ.get("LEAGUE_GAME_ADDRESS")
    if not address:
        sys.exit("league_game: no address: pass --listen HOST:PORT or set "
                 "LEAGUE_GAME_ADDRESS")
    try:
        server = Server(cls, address)
    except (OSError, ValueError) as e:
        sys.exit("league_game: cannot serve at %s: %s" % (address, e))
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
