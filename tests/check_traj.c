/* tests/check_traj.c: trajectory streams with credit flow control, over real
 * loopback sockets: nothing lost, duplicated or reordered per sender; the
 * queue never holds more than senders x window; a sender ignoring credit is
 * cut off; a wrong token is refused. */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "net/net.h"

enum { SENDERS = 3, PER_SENDER = 400, WINDOW = 8 };

static net_traj_server *start(const char *token)
{
	struct net_traj_server_opts o = { .token = token, .window = WINDOW,
					  .max_senders = 4 };
	net_traj_server *s;
	char err[256];

	ck_assert_msg(net_traj_server_start(&s, &o, err, sizeof err) == 0, "%s",
		      err);
	return s;
}

static void fill_segment(net_msg *m, League__Segment *seg, float *obs,
			 uint32_t env, uint64_t seq)
{
	league__envelope__init(m);
	league__segment__init(seg);
	seg->player = 1;
	seg->env_index = env;
	seg->segment_seq = seq;
	seg->obs_len = 4;
	seg->count = 1;
	for (int i = 0; i < 4; i++)
		obs[i] = (float)(seq * 4 + (uint64_t)i);
	seg->n_obs = 4;
	seg->obs = obs;
	m->body_case = LEAGUE__ENVELOPE__BODY_SEGMENT;
	m->segment = seg;
}

START_TEST(every_segment_once_in_order_within_bound)
{
	net_traj_server *s;
	uint16_t port;
	pid_t pids[SENDERS];
	uint64_t next[SENDERS] = { 0 };
	int got = 0, go[2];

	/* The senders are forked before the server's thread exists: a fork
	 * while another thread holds an allocator lock (ASan's, at least)
	 * can leave the child hung on its first malloc. They learn the port
	 * through a pipe. */
	ck_assert_int_eq(pipe(go), 0);
	for (int k = 0; k < SENDERS; k++) {
		pids[k] = fork();
		ck_assert_int_ge(pids[k], 0);
		if (pids[k] == 0) {
			net_traj_sender *tx;
			close(go[1]);
			if (read(go[0], &port, sizeof port) != sizeof port)
				_exit(3);
			/* Generous timeouts: under ASan on a loaded 2-core
			 * machine a slice of 10 s was seen to pass. */
			if (net_traj_sender_connect(&tx, "127.0.0.1", port, "tok",
						    "c", 30, NULL, 0))
				_exit(1);
			for (uint64_t i = 0; i < PER_SENDER; i++) {
				net_msg m;
				League__Segment seg;
				float obs[4];
				fill_segment(&m, &seg, obs, (uint32_t)k, i);
				if (net_traj_send(tx, &m, 30))
					_exit(2);
			}
			net_traj_sender_close(tx);
			_exit(0);
		}
	}
	s = start("tok");
	port = net_traj_server_port(s);
	close(go[0]);
	for (int k = 0; k < SENDERS; k++)
		ck_assert_int_eq(write(go[1], &port, sizeof port),
				 (ssize_t)sizeof port);
	close(go[1]);
	/* A slow consumer: the senders must wait for credit. */
	while (got < SENDERS * PER_SENDER) {
		net_msg *m;
		int prc = net_traj_pop(s, &m, 30);
		if (prc) { /* say which sender gave up, and how */
			for (int k = 0; k < SENDERS; k++) {
				int st;
				if (waitpid(pids[k], &st, WNOHANG) == pids[k])
					fprintf(stderr, "traj: sender %d exited "
						"%d after %llu segments\n", k,
						WIFEXITED(st) ? WEXITSTATUS(st)
							      : -1,
						(unsigned long long)next[k]);
				else
					fprintf(stderr, "traj: sender %d still "
						"running, %llu segments "
						"received, queue depth %zu\n",
						k, (unsigned long long)next[k],
						net_traj_depth(s));
			}
		}
		ck_assert_int_eq(prc, 0);
		League__Segment *seg = m->segment;
		ck_assert_uint_lt(seg->env_index, SENDERS);
		ck_assert_uint_eq(seg->segment_seq, next[seg->env_index]);
		ck_assert_uint_eq(seg->n_obs, 4);
		ck_assert(seg->obs[3] == (float)(seg->segment_seq * 4 + 3));
		next[seg->env_index]++;
		net_traj_release(s, m);
		if (++got % 50 == 0)
			lg_sleep_s(0.005);
	}
	for (int k = 0; k < SENDERS; k++) {
		int st;
		ck_assert_int_eq(waitpid(pids[k], &st, 0), pids[k]);
		ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		ck_assert_uint_eq(next[k], PER_SENDER);
	}
	/* Bounded by credit, and the bound was reached: real backpressure. */
	ck_assert_uint_le(net_traj_max_depth(s), SENDERS * WINDOW);
	ck_assert_uint_ge(net_traj_max_depth(s), WINDOW);
	net_msg *none;
	ck_assert_int_eq(net_traj_pop(s, &none, 0.05), LG_ETIMEOUT);
	net_traj_server_stop(s);
}
END_TEST

START_TEST(sender_ignoring_credit_is_cut_off)
{
	net_traj_server *s;
	uint16_t port;
	int go[2];
	pid_t pid;

	/* Fork before the server's thread starts (see above). */
	ck_assert_int_eq(pipe(go), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int fd;
		close(go[1]);
		if (read(go[0], &port, sizeof port) != sizeof port)
			_exit(3);
		net_msg h = LEAGUE__ENVELOPE__INIT, *r;
		League__Hello hello = LEAGUE__HELLO__INIT;
		if (net_connect_tcp("127.0.0.1", port, &fd, NULL, 0))
			_exit(1);
		hello.protocol_version = 1;
		hello.role = LEAGUE__ROLE__ROLE_COLLECTOR;
		h.body_case = LEAGUE__ENVELOPE__BODY_HELLO;
		h.hello = &hello;
		if (net_send_blocking(fd, &h))
			_exit(2);
		/* Flood far past the window without reading credit. */
		for (uint64_t i = 0; i < 200; i++) {
			net_msg m;
			League__Segment seg;
			float obs[4];
			fill_segment(&m, &seg, obs, 0, i);
			if (net_send_blocking(fd, &m))
				break;
		}
		/* Read until the learner hangs up. */
		while (net_recv_blocking(fd, 1 << 20, 5, &r, NULL, 0) == 0)
			net_msg_free(r);
		_exit(0);
	}
	s = start(NULL);
	port = net_traj_server_port(s);
	close(go[0]);
	ck_assert_int_eq(write(go[1], &port, sizeof port),
			 (ssize_t)sizeof port);
	close(go[1]);
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* Only the credited window was ever accepted. */
	ck_assert_uint_le(net_traj_max_depth(s), WINDOW);
	ck_assert_uint_eq(net_traj_depth(s), WINDOW);
	net_traj_server_stop(s);
}
END_TEST

START_TEST(wrong_token_refused)
{
	net_traj_server *s = start("right");
	net_traj_sender *tx;
	char err[256] = "";

	ck_assert_int_eq(net_traj_sender_connect(&tx, "127.0.0.1",
						 net_traj_server_port(s), "wrong",
						 "c", 5, err, sizeof err),
			 LG_EAUTH);
	ck_assert_ptr_nonnull(strstr(err, "wrong token"));
	net_traj_server_stop(s);
}
END_TEST

Suite *suite_traj(void)
{
	Suite *s = suite_create("traj");
	TCase *tc = tcase_create("core");

	signal(SIGPIPE, SIG_IGN);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, every_segment_once_in_order_within_bound);
	tcase_add_test(tc, sender_ignoring_credit_is_cut_off);
	tcase_add_test(tc, wrong_token_refused);
	suite_add_tcase(s, tc);
	return s;
}
