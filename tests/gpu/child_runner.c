/*
 * child_runner.c - fork/timeout/report plumbing shared by the GPU test
 * drivers (test_gpu_kernels, test_runtime_gpu).
 */
#include "child_runner.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int child_run(child_fn fn, void *arg, int timeout_s, char *msg, size_t cap) {
  int fds[2];
  msg[0] = '\0';
  if (pipe(fds) != 0) {
    snprintf(msg, cap, "pipe: %s", strerror(errno));
    return CHILD_FAIL;
  }
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(msg, cap, "fork: %s", strerror(errno));
    close(fds[0]);
    close(fds[1]);
    return CHILD_FAIL;
  }
  if (pid == 0) {
    close(fds[0]);
    alarm((unsigned)timeout_s); /* the default SIGALRM action ends a hung child */
    char buf[4096] = "";
    int r = fn(arg, buf, sizeof buf);
    size_t n = strlen(buf);
    if (write(fds[1], buf, n) != (ssize_t)n) r = CHILD_FAIL;
    close(fds[1]);
    fflush(stdout);
    _exit(r == CHILD_PASS || r == CHILD_SKIP ? r : CHILD_FAIL);
  }
  close(fds[1]);
  /* Wait for the child (polling, so the parent's own deadline covers a
   * child stuck where SIGALRM cannot end it), then read its message:
   * messages are far below a pipe's capacity, so the child never blocks
   * writing. */
  size_t got = 0;
  int status = 0, reaped = 0;
  struct timespec start, now, tick = {0, 10 * 1000 * 1000};
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (;;) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) {
      reaped = 1;
      break;
    }
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec - start.tv_sec > timeout_s + 5) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    nanosleep(&tick, NULL);
  }
  ssize_t k;
  while (got + 1 < cap && (k = read(fds[0], msg + got, cap - 1 - got)) > 0)
    got += (size_t)k;
  msg[got] = '\0';
  close(fds[0]);
  while (got && (msg[got - 1] == '\n' || msg[got - 1] == ' '))
    msg[--got] = '\0';
  if (!reaped || (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)) {
    snprintf(msg, cap, "timed out after %d s (hang?)", timeout_s);
    return CHILD_FAIL;
  }
  if (WIFSIGNALED(status)) {
    snprintf(msg + got, cap - got, "%scrashed with signal %d", got ? "; " : "", WTERMSIG(status));
    return CHILD_FAIL;
  }
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : CHILD_FAIL;
  /* A sanitizer that stops the child exits with its own status (ASan 1,
   * TSan 66) and no message: say so, its report is on stderr. */
  if (code != CHILD_PASS && code != CHILD_SKIP && code != CHILD_FAIL && !got)
    snprintf(msg, cap, "exited with status %d (a sanitizer report? see stderr)", code);
  return code == CHILD_PASS ? CHILD_PASS : code == CHILD_SKIP ? CHILD_SKIP : CHILD_FAIL;
}

void child_report(child_tally *t, const char *name, int outcome, const char *msg) {
  switch (outcome) {
  case CHILD_PASS:
    t->passed++;
    printf("PASS %s\n", name);
    break;
  case CHILD_SKIP:
    t->skipped++;
    printf("SKIP %s (%s)\n", name, msg && msg[0] ? msg : "no reason given");
    break;
  default:
    t->failed++;
    printf("FAIL %s: %s\n", name, msg && msg[0] ? msg : "no message");
    break;
  }
  fflush(stdout);
}

int child_summary(const child_tally *t) {
  printf("%d passed, %d failed, %d skipped\n", t->passed, t->failed, t->skipped);
  if (t->failed) return 1;
  return t->passed == 0 && t->skipped > 0 ? CHILD_SKIP : 0;
}
