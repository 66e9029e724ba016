#define _GNU_SOURCE
#include "wb_shims.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <linux/openat2.h>
#endif

int wb_openat2_beneath(int dirfd, const char *path, int flags, unsigned int mode) {
#if defined(__linux__) && defined(SYS_openat2)
    struct open_how how = {0};
    how.flags = (uint64_t)(unsigned int)flags;
    how.mode = ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) ? mode : 0;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    long fd;
    do {
        fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
    } while (fd < 0 && errno == EAGAIN);
    return (int)fd;
#else
    (void)dirfd; (void)path; (void)flags; (void)mode;
    errno = ENOSYS;
    return -1;
#endif
}

int wb_open_regular(int dirfd, const char *path, int flags, unsigned int mode, int beneath, unsigned int *type) {
    *type = 0;
    int all = flags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
    int fd;
    do {
        if (beneath) {
#if defined(__APPLE__)
            fd = openat(dirfd, path, all | O_NOFOLLOW | O_NOFOLLOW_ANY, (mode_t)mode);
#else
            fd = wb_openat2_beneath(dirfd, path, all | O_NOFOLLOW, mode);
#endif
        } else {
            fd = openat(dirfd, path, all, (mode_t)mode);
        }
    } while (fd < 0 && errno == EINTR);
    struct stat st;
    if (fd < 0) {
        int e = errno;
        /* ENXIO: a socket, or a FIFO opened for writing with no reader; EOPNOTSUPP: a socket on
           Apple systems; ENODEV, EACCES, EPERM: a device without a driver, or on a `nodev` mount.
           These come only once the path resolved (no link on the way), so the lstat that tells a
           FIFO, socket or device apart looks at the same entry. */
        if ((e == ENXIO || e == EOPNOTSUPP || e == ENODEV || e == EACCES || e == EPERM)
            && fstatat(dirfd, path, &st, AT_SYMLINK_NOFOLLOW) == 0
            && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) && !S_ISLNK(st.st_mode)) {
            *type = (unsigned int)(st.st_mode & S_IFMT);
            e = ENXIO;
        }
        errno = e;
        return -1;
    }
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        *type = (unsigned int)(st.st_mode & S_IFMT);
        errno = S_ISDIR(st.st_mode) ? EISDIR : ENXIO;
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

int wb_have_openat2(void) {
#if defined(__linux__) && defined(SYS_openat2)
    static int cached = -1;
    if (cached < 0) {
        int fd = wb_openat2_beneath(AT_FDCWD, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
        if (fd >= 0) { close(fd); cached = 1; } else { cached = (errno == ENOSYS) ? 0 : 1; }
    }
    return cached;
#else
    return 0;
#endif
}

int wb_renameat_noreplace(int olddirfd, const char *oldpath, int newdirfd, const char *newpath) {
#if defined(__linux__)
    return (int)syscall(SYS_renameat2, olddirfd, oldpath, newdirfd, newpath, RENAME_NOREPLACE);
#elif defined(__APPLE__)
    return renameatx_np(olddirfd, oldpath, newdirfd, newpath, RENAME_EXCL);
#else
    errno = ENOSYS;
    return -1;
#endif
}

int wb_full_fsync(int fd) {
#if defined(__APPLE__)
    if (fcntl(fd, F_FULLFSYNC) == 0) return 0;
    return fsync(fd);  /* file systems without F_FULLFSYNC support */
#else
    return fsync(fd);
#endif
}

long wb_copy_file_range(int fd_in, int fd_out, unsigned long len) {
#if defined(__linux__)
    return (long)copy_file_range(fd_in, NULL, fd_out, NULL, len, 0);
#else
    (void)fd_in; (void)fd_out; (void)len;
    errno = ENOSYS;
    return -1;
#endif
}

#include <string.h>
const void *wb_memmem(const void *haystack, unsigned long haystack_len, const void *needle, unsigned long needle_len) {
    return memmem(haystack, haystack_len, needle, needle_len);
}

#include <sys/xattr.h>
int wb_mark_dropbox_ignored(const char *path) {
#if defined(__APPLE__)
    return setxattr(path, "com.dropbox.ignored", "1", 1, 0, 0);
#else
    return setxattr(path, "user.com.dropbox.ignored", "1", 1, 0);
#endif
}

int wb_pidfd_open(int pid) {
#if defined(__linux__) && defined(SYS_pidfd_open)
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}
