/*
 * clock.c - tx_now_ms (clock.h).
 */
#include "support/clock.h"

#include <time.h>

double tx_now_ms(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 0;
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}
