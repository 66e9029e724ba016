#define _GNU_SOURCE
#include "wb_entry.h"
#include "wb_shims.h"
#include <errno.h>
#include <fcntl.h>

int wb_hold_entry(int dirfd, const char *path, int beneath) {
#if defined(__linux__) && defined(O_PATH)
    int flags = O_PATH | O_NOFOLLOW | O_CLOEXEC;
    return beneath ? wb_openat2_beneath(dirfd, path, flags, 0) : openat(dirfd, path, flags);
#else
    (void)dirfd; (void)path; (void)beneath;
    errno = ENOSYS;
    return -1;
#endif
}
