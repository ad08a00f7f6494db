// A disk that fills up, for tests (LD_PRELOAD): writes to files under FOEHN_FULL_DISK_DIR succeed
// until FOEHN_FULL_DISK_BYTES bytes have been written there in all, then fail with ENOSPC, as on
// a full file system (the write that crosses the limit writes what still fits, as write(2)
// does). write, pwrite, pwrite64 and writev are covered: HDF5's sec2 driver, C stdio and C++
// streams use them. Other files (MPI's shared memory, the terminal) are left alone.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static long long written_bytes = 0;

// Whether `fd` is a file under FOEHN_FULL_DISK_DIR (the disk that fills up).
static int on_full_disk(int fd) {
  const char* dir = getenv("FOEHN_FULL_DISK_DIR");
  if (dir == NULL || getenv("FOEHN_FULL_DISK_BYTES") == NULL) return 0;
  char link[64], target[PATH_MAX];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t length = readlink(link, target, sizeof target - 1);
  if (length <= 0) return 0;
  target[length] = '\0';
  const size_t dir_length = strlen(dir);
  return strncmp(target, dir, dir_length) == 0 && target[dir_length] == '/';
}

// How many of `count` bytes still fit (0: none, the caller fails with ENOSPC).
static size_t room_for(size_t count) {
  const long long room = atoll(getenv("FOEHN_FULL_DISK_BYTES")) - written_bytes;
  if (room <= 0) return 0;
  return (long long)count <= room ? count : (size_t)room;
}

typedef ssize_t (*write_function)(int, const void*, size_t);
typedef ssize_t (*pwrite_function)(int, const void*, size_t, off_t);
typedef ssize_t (*pwrite64_function)(int, const void*, size_t, off64_t);
typedef ssize_t (*writev_function)(int, const struct iovec*, int);

// The C library's own function of that name (looked up once).
#define NEXT(name)                           \
  static name##_function next_##name = NULL; \
  if (next_##name == NULL) next_##name = (name##_function)dlsym(RTLD_NEXT, #name)

// Runs `call` with the count that fits, counting what it wrote; ENOSPC when nothing fits.
#define LIMITED(fd, count, call)                               \
  do {                                                         \
    if (!on_full_disk(fd) || (count) == 0) return call(count); \
    const size_t fits = room_for(count);                       \
    if (fits == 0) {                                           \
      errno = ENOSPC;                                          \
      return -1;                                               \
    }                                                          \
    const ssize_t done = call(fits);                           \
    if (done > 0) written_bytes += done;                       \
    return done;                                               \
  } while (0)

ssize_t write(int fd, const void* buffer, size_t count) {
  NEXT(write);
#define CALL(n) next_write(fd, buffer, n)
  LIMITED(fd, count, CALL);
#undef CALL
}

ssize_t pwrite(int fd, const void* buffer, size_t count, off_t offset) {
  NEXT(pwrite);
#define CALL(n) next_pwrite(fd, buffer, n, offset)
  LIMITED(fd, count, CALL);
#undef CALL
}

ssize_t pwrite64(int fd, const void* buffer, size_t count, off64_t offset) {
  NEXT(pwrite64);
#define CALL(n) next_pwrite64(fd, buffer, n, offset)
  LIMITED(fd, count, CALL);
#undef CALL
}

// writev: all or nothing here (the buffers' total must fit), enough for the writers in use.
ssize_t writev(int fd, const struct iovec* buffers, int buffer_count) {
  NEXT(writev);
  size_t total = 0;
  for (int i = 0; i < buffer_count; ++i) total += buffers[i].iov_len;
  if (!on_full_disk(fd) || total == 0) return next_writev(fd, buffers, buffer_count);
  if (room_for(total) < total) {
    errno = ENOSPC;
    return -1;
  }
  const ssize_t done = next_writev(fd, buffers, buffer_count);
  if (done > 0) written_bytes += done;
  return done;
}
