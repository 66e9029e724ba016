// Giving memory back while the server is idle (see wb_release_idle_memory in wb_shims.h).
// The whole trick is this file: the executable calls it from `--idle-release-after`'s idle
// callback, nothing else depends on it, and Tests/e2e/test_idle_memory.py is its test
// (docs/decisions.md, "Start-up and memory tricks").
#define _GNU_SOURCE
#include "wb_shims.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__linux__)
#include <malloc.h>
#include <sys/mman.h>
#endif

#if defined(__linux__)
/// Reads a whole /proc file into a malloc'd, NUL-terminated buffer (procfs reports size 0).
static char *read_proc(const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    size_t cap = 16384, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (len + 1 >= cap) {
            char *bigger = realloc(buf, cap * 2);
            if (!bigger) { free(buf); buf = NULL; break; }
            buf = bigger;
            cap *= 2;
        }
        ssize_t n = read(fd, buf + len, cap - len - 1);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        len += (size_t)n;
    }
    close(fd);
    if (buf) buf[len] = 0;
    return buf;
}

/// Whether a debugger or tracer is attached: its breakpoints live in private copies of code
/// pages, which MADV_DONTNEED would silently discard.
static int is_traced(void) {
    char *status = read_proc("/proc/self/status");
    if (!status) return 1;
    const char *t = strstr(status, "\nTracerPid:");
    int traced = t ? atoi(t + 11) != 0 : 1;
    free(status);
    return traced;
}
#endif

long wb_release_idle_memory(void) {
#if defined(__linux__)
    if (is_traced()) { errno = EPERM; return -1; }
    char *maps = read_proc("/proc/self/maps");
    if (!maps) return -1;
    long released = 0;
    for (char *line = maps; *line; ) {
        char *next = strchr(line, '\n');
        if (next) *next = 0;
        // start-end perms offset dev inode path
        unsigned long start = 0, end = 0, inode = 0;
        char perms[8] = {0};
        int path_at = 0;
        if (sscanf(line, "%lx-%lx %7s %*s %*s %lu %n", &start, &end, perms, &inode, &path_at) >= 4
                && strcmp(perms, "r-xp") == 0 && inode != 0 && path_at > 0 && line[path_at] == '/'
                && !strstr(line + path_at, " (deleted)")) {
            // Clean, file-backed code: the page cache keeps it; the next touch is a minor fault.
            if (madvise((void *)start, end - start, MADV_DONTNEED) == 0) released += (long)(end - start);
        }
        if (!next) break;
        line = next + 1;
    }
    free(maps);
    malloc_trim(0);
    return released;
#else
    errno = ENOSYS;
    return -1;
#endif
}
