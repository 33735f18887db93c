/*
 * child_runner.h - run one GPU test case in a forked child under a timeout.
 *
 * CUDA state does not survive fork(), and a crash or hang in one case must
 * not take the suite down: each case runs in its own child, which opens its
 * own driver/runtime. The child's message travels back through a pipe.
 */
#ifndef TIRX_TESTS_GPU_CHILD_RUNNER_H
#define TIRX_TESTS_GPU_CHILD_RUNNER_H

#include <stddef.h>

/* ctest's skip code doubles as the child's "skipped" exit status. */
enum { CHILD_PASS = 0, CHILD_FAIL = 1, CHILD_SKIP = 77 };

/* The case body, run in the child: returns CHILD_PASS / CHILD_FAIL /
 * CHILD_SKIP and writes why into msg (cap bytes). */
typedef int (*child_fn)(void *arg, char *msg, size_t cap);

/* Fork, run fn(arg) in the child with an alarm of timeout_s seconds (the
 * parent also kills it 5 s later), and return its outcome; msg receives
 * the child's message, or the timeout / crash description. */
int child_run(child_fn fn, void *arg, int timeout_s, char *msg, size_t cap);

/* Tally one outcome: prints "PASS name", "SKIP name (why)" or
 * "FAIL name: why" and bumps the matching counter. */
typedef struct child_tally {
  int passed, failed, skipped;
} child_tally;
void child_report(child_tally *t, const char *name, int outcome, const char *msg);
/* Prints "N passed, M failed, K skipped"; returns the process exit code:
 * 1 on any failure, 77 when everything skipped, else 0. */
int child_summary(const child_tally *t);

#endif
