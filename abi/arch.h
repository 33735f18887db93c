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

#endif
