/*
 * clock.h - a monotonic clock for stage timings (tirxc --time, the compile
 * statistics). Reads the clock; keeps no state.
 */
#ifndef TIRX_SUPPORT_CLOCK_H
#define TIRX_SUPPORT_CLOCK_H

/* Milliseconds on a monotonic clock (0 when the clock cannot be read): only
 * differences between two calls mean anything. */
double tx_now_ms(void);

#endif
