#ifndef WB_SHIMS_H
#define WB_SHIMS_H
#include <stdint.h>

/// openat2(2) with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS on Linux
/// (kernel 5.6+). Returns the fd, or -1 with errno; errno ENOSYS when the kernel (or the
/// platform) has no openat2, so callers fall back to a component-by-component O_NOFOLLOW walk.
int wb_openat2_beneath(int dirfd, const char *path, int flags, unsigned int mode);

/// Renames without replacing an existing target (Linux renameat2 RENAME_NOREPLACE, Apple
/// renameatx_np RENAME_EXCL). -1 with errno EEXIST when the target exists; ENOSYS/EINVAL
/// when the file system cannot do it atomically.
int wb_renameat_noreplace(int olddirfd, const char *oldpath, int newdirfd, const char *newpath);

/// Flushes a file to stable storage: F_FULLFSYNC on Apple (fsync alone does not reach the
/// platter there), fsync elsewhere.
int wb_full_fsync(int fd);

/// Opens a regular file in a way that can never wait on what the path turns out to be: the
/// open carries O_NONBLOCK | O_NOCTTY | O_CLOEXEC (a FIFO does not wait for a writer or reader,
/// a terminal never becomes the controlling one), then fstat on the descriptor refuses anything
/// but a regular file before a byte is read or written, and O_NONBLOCK is cleared again.
/// With `beneath`, `path` is resolved like wb_openat2_beneath (Linux) or with O_NOFOLLOW_ANY
/// (Apple); otherwise it is one openat. Returns the fd, or -1 with errno. When the entry is
/// not a regular file, `*type` is its S_IFMT bits (0 otherwise) and errno is EISDIR for a
/// folder, ENXIO for the rest. When the open itself fails (a socket: ENXIO, EOPNOTSUPP on
/// Apple; a device on a `nodev` mount: EACCES), an lstat of `path` tells a special file apart.
int wb_open_regular(int dirfd, const char *path, int flags, unsigned int mode, int beneath, unsigned int *type);

/// Whether the running kernel supports openat2 (probed once).
int wb_have_openat2(void);


/// copy_file_range(2) on Linux (in-kernel copy, reflinks where the file system can);
/// -1 with errno ENOSYS elsewhere.
long wb_copy_file_range(int fd_in, int fd_out, unsigned long len);

/// memmem(3) (a GNU extension the Swift Glibc module does not export).
const void *wb_memmem(const void *haystack, unsigned long haystack_len, const void *needle, unsigned long needle_len);

/// SHA-256. On Linux it comes from the system's libcrypto, loaded on first use (so a server
/// that never hashes never maps it); on Apple systems from CommonCrypto. `wb_sha256_new`
/// returns NULL when no implementation can be loaded (see `wb_sha256_error`).
void *wb_sha256_new(void);
void wb_sha256_update(void *ctx, const void *bytes, unsigned long count);
/// Writes the 32-byte digest and frees the context.
void wb_sha256_final(void *ctx, unsigned char *digest);
const char *wb_sha256_error(void);

/// Marks a folder so the Dropbox client skips it (the `com.dropbox.ignored` attribute).
int wb_mark_dropbox_ignored(const char *path);

/// Gives memory back while the server is idle (Linux): drops this process's page-table entries
/// for the code of every file-backed, private, read+execute mapping (the binary and its shared
/// libraries) with MADV_DONTNEED, and returns free heap with malloc_trim. Code pages are clean
/// copies of their files and stay in the page cache: the next instruction that needs one
/// maps it back with a minor fault. Writable and relocated mappings are never touched. Does
/// nothing (-1, errno EPERM) while a debugger or tracer is attached, whose breakpoints live
/// in private copies of code pages. Returns the bytes of code advised; -1 with errno ENOSYS
/// on other systems.
long wb_release_idle_memory(void);

/// pidfd_open(2) (Linux 5.3+): a descriptor that becomes readable when the process exits.
/// -1 with errno (ESRCH: no such process; ENOSYS: no pidfds here, including other systems).
int wb_pidfd_open(int pid);

/// Starts `file` (looked up in PATH when it has no slash) with `argv` and `envp`, its stdin and
/// stdout `stdin_fd` and `stdout_fd` (its stderr ours), tied to this process: in a process group
/// of its own (its pid), so it and its children can be signalled together; with no blocked or
/// ignored signals; and on Linux with PR_SET_PDEATHSIG SIGKILL, so it dies when this process
/// does, even by SIGKILL (it is forked by one thread that lives as long as the process: the
/// kernel sends the signal when the forking *thread* ends). Apple systems have no such signal.
/// Returns 0 and the pid in `*pid_out`, or an errno (of the lookup, the fork or the exec).
int wb_spawn_tied(const char *file, char *const argv[], char *const envp[], int stdin_fd, int stdout_fd, int *pid_out);
#endif
