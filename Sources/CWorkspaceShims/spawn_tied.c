#define _GNU_SOURCE
#include "wb_shims.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

// Linux delivers PR_SET_PDEATHSIG when the *thread* that forked the child ends, not the process:
// a child forked from a pool thread that the pool later retires would be killed with it. So every
// child is forked by one thread that is never retired, and the signal means "this process died".

struct spawn_request {
    const char *path;
    char *const *argv;
    char *const *envp;
    int in_fd, out_fd;
    pid_t pid;
    int error;
    int done;
};

static pthread_mutex_t spawner_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t spawner_cond = PTHREAD_COND_INITIALIZER;
static struct spawn_request *spawner_request;  // guarded by spawner_lock
static int spawner_started;                    // guarded by spawner_lock

/// The child, between fork and exec: only async-signal-safe calls. Reports a failure as its
/// errno on `report` (close-on-exec, so a successful exec reports nothing).
static void child(const struct spawn_request *r, pid_t parent, int report) {
    int e;
    // Its own process group, so its children (an MCP server it starts) can be signalled with it.
    setpgid(0, 0);
#if defined(__linux__)
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) goto fail;
    if (getppid() != parent) _exit(127);  // the parent died before the line above
#else
    (void)parent;
#endif
    // What a shell gives a program: no blocked signals, none ignored (we ignore SIGPIPE).
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (int s = 1; s < NSIG; s++) {
        if (s != SIGKILL && s != SIGSTOP) sigaction(s, &dfl, NULL);
    }
    if (dup2(r->in_fd, 0) < 0 || dup2(r->out_fd, 1) < 0) goto fail;
    execve(r->path, r->argv, r->envp);
fail:
    e = errno;
    (void)!write(report, &e, sizeof e);
    _exit(127);
}

static void run(struct spawn_request *r) {
    int report[2];
#if defined(__linux__)
    if (pipe2(report, O_CLOEXEC) != 0) { r->error = errno; return; }
#else
    if (pipe(report) != 0) { r->error = errno; return; }
    fcntl(report[0], F_SETFD, FD_CLOEXEC);
    fcntl(report[1], F_SETFD, FD_CLOEXEC);
#endif
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) child(r, parent, report[1]);
    close(report[1]);
    if (pid < 0) {
        r->error = errno;
        close(report[0]);
        return;
    }
    // Set here too, so the group exists before the caller can signal it.
    setpgid(pid, pid);
    int e = 0;
    ssize_t n;
    do { n = read(report[0], &e, sizeof e); } while (n < 0 && errno == EINTR);
    close(report[0]);
    if (n == (ssize_t)sizeof e) {
        int status;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
        r->error = e ? e : ENOEXEC;
        return;
    }
    r->pid = pid;
}

static void *spawner(void *unused) {
    (void)unused;
    pthread_mutex_lock(&spawner_lock);
    for (;;) {
        while (spawner_request == NULL || spawner_request->done) pthread_cond_wait(&spawner_cond, &spawner_lock);
        struct spawn_request *r = spawner_request;
        pthread_mutex_unlock(&spawner_lock);
        run(r);
        pthread_mutex_lock(&spawner_lock);
        r->done = 1;
        pthread_cond_broadcast(&spawner_cond);
    }
    return NULL;
}

/// `file` as execvp would find it: itself when it has a slash, else the first executable
/// regular file of that name in PATH.
static int resolve(const char *file, char *out, size_t size) {
    if (strchr(file, '/')) {
        if (strlen(file) >= size) return ENAMETOOLONG;
        strcpy(out, file);
        return 0;
    }
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
    int found = ENOENT;
    for (const char *p = path;; p++) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        const char *dir = len ? p : ".";
        size_t dlen = len ? len : 1;
        if (dlen + 1 + strlen(file) < size) {
            memcpy(out, dir, dlen);
            out[dlen] = '/';
            strcpy(out + dlen + 1, file);
            struct stat st;
            if (stat(out, &st) == 0 && S_ISREG(st.st_mode)) {
                if (access(out, X_OK) == 0) return 0;
                found = EACCES;
            }
        }
        if (!end) break;
        p = end;
    }
    return found;
}

int wb_spawn_tied(const char *file, char *const argv[], char *const envp[], int stdin_fd, int stdout_fd, int *pid_out) {
    char path[PATH_MAX];
    int e = resolve(file, path, sizeof path);
    if (e) return e;
    struct spawn_request r = {path, argv, envp, stdin_fd, stdout_fd, 0, 0, 0};
    pthread_mutex_lock(&spawner_lock);
    if (!spawner_started) {
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        e = pthread_create(&t, &attr, spawner, NULL);
        pthread_attr_destroy(&attr);
        if (e) { pthread_mutex_unlock(&spawner_lock); return e; }
        spawner_started = 1;
    }
    // One request at a time: wait for the slot, fill it, wait for it to be done.
    while (spawner_request != NULL && !spawner_request->done) pthread_cond_wait(&spawner_cond, &spawner_lock);
    spawner_request = &r;
    pthread_cond_broadcast(&spawner_cond);
    while (!r.done) pthread_cond_wait(&spawner_cond, &spawner_lock);
    spawner_request = NULL;
    pthread_cond_broadcast(&spawner_cond);
    pthread_mutex_unlock(&spawner_lock);
    if (r.error) return r.error;
    *pid_out = r.pid;
    return 0;
}
