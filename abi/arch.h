/*
 * arch.h - the architecture names executables are built for, as the
 * runtime needs them: which name a device of a compute capability runs
 * (abi/arches.def, the one table of architectures; target/target.h adds
 * the compiler's view of each row: limits, features, the backend).
 *
 * Pure functions over a read-only table: no state, safe from any thread.
 */
#ifndef TIRX_ABI_ARCH_H
#define TIRX_ABI_ARCH_H

/* The architecture to use for a device of compute capability major.minor
 * ("sm_90a" for 9.0, whose arch-specific features the kernels use), or
 * NULL when tirx-c does not support it. */
const char *tx_arch_for_cc(int major, int minor);

/* The compute capability of architecture `name` as major * 10 + minor
 * ("sm_90a": 90), or -1 for a name of no row. */
int tx_arch_sm(const char *name);

/* Can device code built for architecture `code` run on a device whose
 * architecture (tx_arch_for_cc) is `device`? The same name always can; an
 * arch-specific name (ending in 'a' or 'f') only that; a portable one
 * (sm_80, sm_90, ...) on any device of that compute capability or a later
 * one, as PTX the driver compiles for it. */
int tx_arch_runs_on(const char *code, const char *device);

/* How many rows arches.def has: the most distinct architectures an
 * executable can hold device code for. */
enum {
#define X(name, sm, dflt, static_kib, optin_kib, features) +1
  TX_ARCH_COUNT = 0
#include "abi/arches.def"
#undef X
};

#endif
