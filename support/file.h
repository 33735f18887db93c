/*
 * file.h - writing a whole file without destroying what is there.
 *
 * One writer for every place that writes a file the user named (tirxc -o,
 * the golden runner's --update, tirx_executable_save) or the compile cache's
 * entries. A regular file is replaced atomically: the bytes go to a fresh
 * temporary file in the same directory, which is renamed over it, so readers
 * see the old file or the new one, never a torn one, and a failed write
 * leaves the old file as it was. Anything that is not a regular file (a
 * device such as /dev/null, a FIFO, a terminal) is written through, never
 * replaced. A symbolic link is followed to its target, which is then treated
 * as above, so the link itself is never replaced. Must not print.
 */
#ifndef TIRX_SUPPORT_FILE_H
#define TIRX_SUPPORT_FILE_H

#include <stddef.h>

#include "tirx/tirx.h"

typedef enum tx_write_flags {
  TX_WRITE_DEFAULT = 0,
  TX_WRITE_DURABLE = 1, /* fsync the file before it replaces the old one */
} tx_write_flags;

/* Write data[0..len) to `path` as described above. Returns 0, or the errno
 * of the step that failed (nothing at `path` has changed then, except for a
 * write-through target, which may hold part of the data). */
int tx_file_write(const char *path, const char *data, size_t len, tx_write_flags flags);

/* Whole file into a buffer from `alloc` (NULL: malloc; free it with
 * tx_mem_free). Returns 0, or an errno value: ENOMEM when an allocation
 * failed, another one when the file does not exist or cannot be read. */
int tx_read_file(const tirx_allocator *alloc, const char *path, char **data, size_t *len);
/* Write through a temporary file in the same directory and rename(2), so a
 * reader sees either no file or a whole one. Creates the directory. */
tirx_status tx_write_atomic(const char *dir, const char *name, const char *data, size_t len);

#endif
