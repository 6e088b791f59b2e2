"""The game server: net/game.proto over a stream socket, one thread per
league connection (a connection carries the batches of many envs)."""

import os
import random
import socket
import struct
import sys
import threading
import time

try:
    from . import game_pb2 as pb
except ImportError as e:  # pragma: no cover - a message, not a fix
    raise ImportError(
        "league_game.game_pb2 is generated from net/game.proto by `make` "
        "(protoc, python3-protobuf): " + str(e))

VERSION = 1
FRAME_MAX = 16 << 20
_NAME_CHARS = set("abcdefghijklmnopqrstuvwxyz0123456789_-")


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

    def fill(self, st, g):
        """st from g: who moves, their observations and masks, or the
        returns at the end."""
        if g.terminated:
            st.player = -1
            r = g.returns()
            st.returns.extend((float(r[0]), float(r[1])))
            return
        movers = (0, 1) if self.spec.simultaneous else (g.agent_selection,)
        st.player = -2 if self.spec.simultaneous else movers[0]
        mask = bytearray()
        for p in movers:
            o = g.observe(p)
            if len(o) != self.obs_len:
                raise ValueError("observe(%d) gave %d floats, obs_shape "
                                 "says %d" % (p, len(o), self.obs_len))
            st.obs.extend(o)
            m = g.action_mask(p)
            if len(m) != self.spec.num_actions:
                raise ValueError("action_mask(%d) gave %d entries, not %d"
                                 % (p, len(m), self.spec.num_actions))
            mask += bytes(1 if v else 0 for v in m)
        st.mask = bytes(mask)

    def op(self, st, op):
        if op.kind == pb.Op.CLOSE:
            self.envs.pop(op.env, None)
            return
        st.env = op.env
        try:
            if op.kind == pb.Op.RESET:
                g = self.envs.get(op.env)
                if g is None:
                    g = self.cls(**self.params)
                    self.envs[op.env] = g
                g.reset(op.seed)
            else:
                g = self.envs[op.env]
                if self.spec.simultaneous:
                    g.step((op.actions[0], op.actions[1]))
                else:
                    g.step(op.actions[0])
            self.fill(st, g)
        except Exception as e:  # the env's failure, not the connection's
            st.Clear()
            st.env = op.env
            st.error = "%s: %s" % (type(e).__name__, e)
            self.envs.pop(op.env, None)

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
                welcome.error = "env.params: %s" % e
        if not welcome.error:
            welcome.spec.CopyFrom(self.spec)
        _send(self.sock, welcome)
        if welcome.error:
            return
        while True:
            data = _recv_frame(self.sock)
            if data is None:
                return
            batch = pb.Batch.FromString(data)
            reply = pb.BatchReply()
            for op in batch.ops:
                self.op(reply.states.add(), op)
            _send(self.sock, reply)


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
