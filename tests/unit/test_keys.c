// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The keys and signals of a fetch (lib/symprov_keys.c) where the session's
 * tests cannot look: a background job, a host handler that ends the
 * program, a signal the program ignores, the flags of the host's handler.
 * Each case runs in a child, on a pseudo-terminal.
 */
#include <errno.h>
#include <pty.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#include <cmocka.h>

#include "symprov.h"
#include "symprov_keys.h"

static int master = -1, slave = -1;

static int setup(void **state)
{
	(void)state;
	return openpty(&master, &slave, NULL, NULL, NULL);
}

static int teardown(void **state)
{
	(void)state;
	close(master);
	close(slave);
	return 0;
}

/* The child's status, or -1 after killing a child stopped on the way */
static int wait_child(pid_t pid)
{
	int ws;

	if (waitpid(pid, &ws, WUNTRACED) != pid)
		return -1;
	if (WIFSTOPPED(ws)) {
		kill(pid, SIGKILL);
		waitpid(pid, &ws, 0);
		return -1;
	}
	return ws;
}

static void canonical_with_echo(void)
{
	struct termios term;

	assert_int_equal(tcgetattr(slave, &term), 0);
	assert_true(term.c_lflag & ICANON);
	assert_true(term.c_lflag & ECHO);
}

/* A job in the background of its terminal leaves it alone, not stopped */
static void test_background_job(void **state)
{
	pid_t pid, job;
	int ws;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		/* a session with the pty as its terminal, us in front */
		if (setsid() < 0 || ioctl(slave, TIOCSCTTY, 0) < 0)
			_exit(10);
		job = fork();
		if (!job) {
			setpgid(0, 0); /* a job of its own, in the background */
			_exit(symprov_keys_begin(slave) ? 11 : 0);
		}
		ws = wait_child(job);
		if (ws < 0)
			_exit(12); /* stopped by SIGTTOU */
		if (!WIFEXITED(ws) || WEXITSTATUS(ws))
			_exit(WIFEXITED(ws) ? WEXITSTATUS(ws) : 13);
		/* in front, the keys are read */
		if (!symprov_keys_begin(slave))
			_exit(14);
		symprov_keys_end();
		_exit(0);
	}
	ws = wait_child(pid);
	assert_true(WIFEXITED(ws));
	assert_int_equal(WEXITSTATUS(ws), 0);
}

static void exit_by_default(int sig)
{
	signal(sig, SIG_DFL);
	raise(sig);
}

/* The host's handler ends the program: the terminal is put back first */
static void test_host_handler_ends_the_program(void **state)
{
	pid_t pid;
	int ws;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		signal(SIGINT, exit_by_default);
		if (!symprov_keys_begin(slave))
			_exit(10);
		raise(SIGINT);
		_exit(11);
	}
	ws = wait_child(pid);
	assert_true(WIFSIGNALED(ws));
	assert_int_equal(WTERMSIG(ws), SIGINT);
	canonical_with_echo();
}

/* An ignored SIGINT stays ignored and stops nothing */
static void test_ignored_signal(void **state)
{
	struct sigaction now;

	(void)state;
	signal(SIGINT, SIG_IGN);
	assert_true(symprov_keys_begin(slave));
	raise(SIGINT);
	assert_int_equal(symprov_keys_poll(), SYMPROV_PROGRESS_CONTINUE);
	symprov_keys_end();
	assert_int_equal(sigaction(SIGINT, NULL, &now), 0);
	assert_ptr_equal(now.sa_handler, SIG_IGN);
	signal(SIGINT, SIG_DFL);
	canonical_with_echo();
}

static void count_it(int sig)
{
	(void)sig;
}

/* During a fetch the handler keeps the host's SA_RESTART and mask */
static void test_host_flags_kept(void **state)
{
	struct sigaction sa = { .sa_handler = count_it, .sa_flags = SA_RESTART },
			 now;

	(void)state;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR1);
	assert_int_equal(sigaction(SIGTERM, &sa, NULL), 0);
	assert_true(symprov_keys_begin(slave));
	assert_int_equal(sigaction(SIGTERM, NULL, &now), 0);
	assert_true(now.sa_flags & SA_SIGINFO);
	assert_true(now.sa_flags & SA_RESTART);
	assert_true(sigismember(&now.sa_mask, SIGUSR1));
	/* 'd' after 's': stop */
	assert_int_equal(write(master, "sd", 2), 2);
	assert_int_equal(symprov_keys_poll(), SYMPROV_PROGRESS_STOP);
	symprov_keys_end();
	assert_int_equal(sigaction(SIGTERM, NULL, &now), 0);
	assert_ptr_equal(now.sa_handler, count_it);
	signal(SIGTERM, SIG_DFL);
	canonical_with_echo();
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_background_job),
		T(test_host_handler_ends_the_program),
		T(test_ignored_signal),
		T(test_host_flags_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
