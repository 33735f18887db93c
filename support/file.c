/*
 * file.c - the one safe whole-file writer (file.h).
 *
 * POSIX only: lstat/realpath to see what the path is, open(O_EXCL) for a
 * temporary that cannot collide with another writer or a file of the user's,
 * rename for the atomic replacement. Paths live in fixed PATH_MAX buffers,
 * so writing allocates nothing. Must not print.
 */
/* realpath is XSI, not in the POSIX base the build asks for. */
#define _XOPEN_SOURCE 700

#include "support/file.h"

#include "support/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* Writes all of data to fd, retrying short writes and interruptions. */
static int write_fd(int fd, const char *data, size_t len) {
  while (len > 0) {
    ssize_t n = write(fd, data, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    data += n;
    len -= (size_t)n;
  }
  return 0;
}

/* A device, FIFO or other non-regular file: write into it, never replace it. */
static int write_through(const char *path, const char *data, size_t len) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return errno;
  int err = write_fd(fd, data, len);
  if (close(fd) != 0 && !err) err = errno;
  return err;
}

/* Opens a new temporary file beside `path` (same directory, so the rename is
 * atomic), its name in tmp. The name mixes the pid, the time and a stack
 * address, so concurrent writers in other processes and threads differ;
 * O_EXCL makes a collision a retry, never a shared or clobbered file. */
static int open_temp(const char *path, char tmp[PATH_MAX]) {
  const char *slash = strrchr(path, '/');
  int dirlen = slash ? (int)(slash - path + 1) : 0;
  const char *base = slash ? slash + 1 : path;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  for (unsigned attempt = 0; attempt < 100; attempt++) {
    int n = snprintf(tmp, PATH_MAX, "%.*s.%s.%ld.%lx.%u.tmp", dirlen, path, base, (long)getpid(),
                     (unsigned long)((uintptr_t)&attempt ^ (uintptr_t)ts.tv_nsec), attempt);
    if (n < 0 || n >= PATH_MAX) {
      errno = ENAMETOOLONG;
      return -1;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

/* A regular file (or none yet): temporary, then rename over it. mode < 0:
 * a new file, whose permissions come from 0666 and the umask as usual. */
static int replace_regular(const char *path, const char *data, size_t len, long mode,
                           tx_write_flags flags) {
  char tmp[PATH_MAX];
  int fd = open_temp(path, tmp);
  if (fd < 0) return errno;
  int err = mode >= 0 && fchmod(fd, (mode_t)mode) != 0 ? errno : 0;
  if (!err) err = write_fd(fd, data, len);
  if (!err && (flags & TX_WRITE_DURABLE) && fsync(fd) != 0) err = errno;
  if (close(fd) != 0 && !err) err = errno;
  if (!err && rename(tmp, path) != 0) err = errno;
  if (err) unlink(tmp);
  return err;
}

int tx_file_write(const char *path, const char *data, size_t len, tx_write_flags flags) {
  if (!path || (!data && len)) return EINVAL;
  char resolved[PATH_MAX];
  struct stat st;
  const char *target = path;
  if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
    /* A dangling link: writing through it creates its target. */
    if (!realpath(path, resolved)) return errno == ENOENT ? write_through(path, data, len) : errno;
    target = resolved;
  }
  if (stat(target, &st) != 0)
    return errno == ENOENT ? replace_regular(target, data, len, -1, flags) : errno;
  if (!S_ISREG(st.st_mode)) return write_through(target, data, len);
  /* As a shell redirection would: a file the user may not write stays. */
  if (access(target, W_OK) != 0) return errno;
  return replace_regular(target, data, len, (long)(st.st_mode & 07777), flags);
}

int tx_read_file(const tirx_allocator *alloc, const char *path, char **data, size_t *len) {
  tx_strbuf sb = {.alloc = alloc};
  int e = tx_sb_read_file(&sb, path);
  if (e) {
    tx_sb_free(&sb);
    return e;
  }
  *len = sb.len;
  *data = sb.data; /* tx_sb_read_file gives even an empty file a buffer */
  return 0;
}

static int mkdir_p(const char *dir) {
  char tmp[4096];
  int n = snprintf(tmp, sizeof tmp, "%s", dir);
  if (n <= 0 || (size_t)n >= sizeof tmp) return 0;
  for (char *p = tmp + 1; *p; p++)
    if (*p == '/') {
      *p = 0;
      if (mkdir(tmp, 0755) != 0 && errno != EEXIST) return 0;
      *p = '/';
    }
  return mkdir(tmp, 0755) == 0 || errno == EEXIST;
}

tirx_status tx_write_atomic(const char *dir, const char *name, const char *data, size_t len) {
  if (!mkdir_p(dir)) return TIRX_ERR_IO;
  char path[4096];
  if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) return TIRX_ERR_IO;
  return tx_file_write(path, data, len, TX_WRITE_DURABLE) ? TIRX_ERR_IO : TIRX_OK;
}
