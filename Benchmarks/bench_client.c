/*
 * bench_client: drives a stdio JSON-RPC server (or echo_peer, the floor) through pipes and
 * prints one JSON object per measurement on stdout.
 *
 *   bench_client [options] -- COMMAND [ARGS...]
 *
 *   --framing lsp|ndjson   framing of the request bytes (default lsp)
 *   --label NAME           "target" field of every output line (default "server")
 *   --tests LIST           comma list of rtt,pipe,spawn,rss,blob (default rtt,pipe,spawn,rss)
 *   --rtt N                measured sequential round trips (default 20000)
 *   --warmup N             warm-up round trips before them (default 2000)
 *   --pipe-total N         pipelined requests (default 200000)
 *   --pipe-window N        requests kept in flight (default 1000)
 *   --spawn-runs N         spawn -> initialize runs (default 50, after 3 unmeasured)
 *   --blob-bytes N         debug/blob size (default 1048576)
 *   --blob-runs N          measured debug/blob requests (default 50, after 5 unmeasured)
 *   --timeout S            seconds without progress before giving up (default 15)
 *   --child-stderr PATH    send the child's stderr there (default: inherited)
 *
 * Every request is encoded before its phase starts; the timed loops only write prepared
 * bytes and find frame boundaries in what comes back (LSP: header + Content-Length,
 * NDJSON: newline). A frame with "method" and without "id" is a server notification and is
 * skipped. Exit status: 0 when every phase ran, 2 on usage errors, 3 on a server failure
 * (timeout, early EOF, bad frame), which is also reported as a JSON line with "error".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { LSP = 0, NDJSON = 1 };

static int g_framing = LSP;
static const char *g_label = "server";
static const char *g_phase = "start";
static int g_timeout = 15;
static const char *g_child_stderr = NULL;
static char **g_cmd = NULL;

/* ---------- time ---------- */
static inline uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---------- growable byte buffer ---------- */
typedef struct { char *p; size_t len, cap; } buf_t;

static void buf_reserve(buf_t *b, size_t extra) {
    if (b->len + extra <= b->cap) return;
    size_t c = b->cap ? b->cap : 4096;
    while (c < b->len + extra) c *= 2;
    b->p = realloc(b->p, c);
    if (!b->p) { perror("realloc"); exit(2); }
    b->cap = c;
}
static void buf_add(buf_t *b, const void *d, size_t n) {
    buf_reserve(b, n);
    memcpy(b->p + b->len, d, n);
    b->len += n;
}

/* Appends one framed message with body `body`. */
static void add_frame(buf_t *b, const char *body, size_t n) {
    if (g_framing == LSP) {
        char h[64];
        int hl = snprintf(h, sizeof h, "Content-Length: %zu\r\n\r\n", n);
        buf_add(b, h, (size_t)hl);
        buf_add(b, body, n);
    } else {
        buf_add(b, body, n);
        buf_add(b, "\n", 1);
    }
}
static void add_framef(buf_t *b, const char *fmt, ...) {
    char body[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    add_frame(b, body, (size_t)n);
}

/* ---------- child process ---------- */
typedef struct {
    pid_t pid;
    int wfd;   /* our end of the child's stdin */
    int rfd;   /* our end of the child's stdout */
} child_t;

static child_t *g_child = NULL; /* the one the watchdog kills */

static int spawn_child(child_t *c) {
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC)) { perror("pipe"); return -1; }
    pid_t pid = fork();
    if (pid < 0) { perror("fork"); return -1; }
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        if (g_child_stderr) {
            int fd = open(g_child_stderr, O_WRONLY | O_CREAT | O_APPEND, 0644);
            if (fd >= 0) dup2(fd, 2);
        }
        signal(SIGPIPE, SIG_DFL);
        execvp(g_cmd[0], g_cmd);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    c->pid = pid;
    c->wfd = in[1];
    c->rfd = out[0];
    return 0;
}

/* ---------- frame reader ---------- */
typedef struct {
    int fd;
    char *buf;
    size_t cap, start, end;
    size_t scan;       /* NDJSON: bytes from start already known to hold no newline */
    uint64_t frames;   /* frames returned so far, for diagnostics */
} reader_t;

static void reader_init(reader_t *r, int fd) {
    memset(r, 0, sizeof *r);
    r->fd = fd;
    r->cap = 1 << 20;
    r->buf = malloc(r->cap);
}
static void reader_free(reader_t *r) { free(r->buf); r->buf = NULL; }

/* Makes room for at least `want` more bytes at the end. */
static void reader_room(reader_t *r, size_t want) {
    if (r->start == r->end) { r->start = r->end = 0; r->scan = 0; }
    if (r->cap - r->end >= want) return;
    if (r->start > 0) {
        memmove(r->buf, r->buf + r->start, r->end - r->start);
        r->end -= r->start;
        r->start = 0;
    }
    while (r->cap - r->end < want) {
        r->cap *= 2;
        r->buf = realloc(r->buf, r->cap);
        if (!r->buf) { perror("realloc"); exit(2); }
    }
}

static const char *mem_icase(const char *h, size_t hl, const char *n) {
    size_t nl = strlen(n);
    for (size_t i = 0; i + nl <= hl; i++)
        if (strncasecmp(h + i, n, nl) == 0) return h + i;
    return NULL;
}

/* 1: a frame is complete (body at *body, *blen); 0: need more bytes; -1: bad frame. */
static int parse_frame(reader_t *r, const char **body, size_t *blen) {
    for (;;) {
        char *p = r->buf + r->start;
        size_t avail = r->end - r->start;
        if (avail == 0) return 0;
        if (g_framing == NDJSON) {
            char *nl = memchr(p + r->scan, '\n', avail - r->scan);
            if (!nl) { r->scan = avail; return 0; }
            size_t l = (size_t)(nl - p);
            r->start += l + 1;
            r->scan = 0;
            if (l > 0 && p[l - 1] == '\r') l--;
            if (l == 0) continue; /* blank line */
            *body = p;
            *blen = l;
            r->frames++;
            return 1;
        } else {
            char *e = memmem(p, avail, "\r\n\r\n", 4);
            size_t hl;
            if (e) hl = (size_t)(e - p) + 4;
            else {
                if (avail > 8192) return -1;
                return 0;
            }
            const char *cl = mem_icase(p, hl, "content-length:");
            if (!cl) return -1;
            size_t n = strtoull(cl + 15, NULL, 10);
            if (avail < hl + n) {
                /* make sure the whole frame fits once it arrives */
                if (r->cap - r->start < hl + n) reader_room(r, hl + n - avail);
                return 0;
            }
            *body = p + hl;
            *blen = n;
            r->start += hl + n;
            r->frames++;
            return 1;
        }
    }
}

static int is_notification(const char *b, size_t n) {
    if (n > 65536) return 0;
    return memmem(b, n, "\"method\"", 8) && !memmem(b, n, "\"id\"", 4);
}
static int is_error(const char *b, size_t n) {
    if (n > 65536) return memmem(b, 256 < n ? 256 : n, "\"error\"", 7) != NULL;
    return memmem(b, n, "\"error\"", 7) != NULL;
}

/* ---------- reporting ---------- */
static void json_str(FILE *f, const char *s, size_t n) {
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20 || c >= 0x7f) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

static char g_sample[512];
static size_t g_sample_len;
static void keep_sample(const char *b, size_t n) {
    g_sample_len = n < sizeof g_sample ? n : sizeof g_sample;
    memcpy(g_sample, b, g_sample_len);
}

static void line_begin(const char *test) {
    printf("{\"target\":\"%s\",\"framing\":\"%s\",\"test\":\"%s\"", g_label,
           g_framing == LSP ? "lsp" : "ndjson", test);
}
static void line_end(void) {
    printf("}\n");
    fflush(stdout);
}

static reader_t *g_reader = NULL;
static const char *g_sent_desc = "";

static void die_server(const char *what) {
    int saved = errno;
    char msg[256];
    snprintf(msg, sizeof msg, "%s%s%s", what, saved ? ": " : "", saved ? strerror(saved) : "");
    line_begin(g_phase);
    printf(",\"error\":");
    json_str(stdout, msg, strlen(msg));
    printf(",\"last_sent\":");
    json_str(stdout, g_sent_desc, strlen(g_sent_desc));
    if (g_reader) {
        printf(",\"frames_received\":%llu,\"pending_bytes\":", (unsigned long long)g_reader->frames);
        size_t n = g_reader->end - g_reader->start;
        json_str(stdout, g_reader->buf + g_reader->start, n > 400 ? 400 : n);
    }
    if (g_sample_len) {
        printf(",\"sample_response\":");
        json_str(stdout, g_sample, g_sample_len);
    }
    line_end();
    fprintf(stderr, "bench_client[%s/%s]: %s in phase %s\n", g_label,
            g_framing == LSP ? "lsp" : "ndjson", msg, g_phase);
    if (g_child && g_child->pid > 0) {
        int st;
        if (waitpid(g_child->pid, &st, WNOHANG) == g_child->pid)
            fprintf(stderr, "  child had exited: %s %d\n", WIFEXITED(st) ? "status" : "signal",
                    WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
        else
            kill(g_child->pid, SIGKILL);
    }
    exit(3);
}

static void on_alarm(int sig) {
    (void)sig;
    errno = 0;
    die_server("timeout: no response"); /* not async-signal-safe, but the process ends here */
}
static inline void watchdog(void) { alarm((unsigned)g_timeout); }

/* ---------- blocking I/O ---------- */
static void write_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            die_server("write to server failed");
        }
        p += w;
        n -= (size_t)w;
    }
}

/* Reads until one response frame is complete (server notifications skipped). */
static void read_response(reader_t *r, const char **body, size_t *blen) {
    for (;;) {
        int k = parse_frame(r, body, blen);
        if (k < 0) { errno = 0; die_server("bad frame from server"); }
        if (k > 0) {
            if (is_notification(*body, *blen)) continue;
            return;
        }
        reader_room(r, 65536);
        ssize_t n = read(r->fd, r->buf + r->end, r->cap - r->end);
        if (n < 0) {
            if (errno == EINTR) continue;
            die_server("read from server failed");
        }
        if (n == 0) { errno = 0; die_server("server closed its stdout"); }
        r->end += (size_t)n;
    }
}

static void set_nonblock(int fd, int on) {
    int fl = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, on ? (fl | O_NONBLOCK) : (fl & ~O_NONBLOCK));
}

/* ---------- session helpers ---------- */
static void do_initialize(child_t *c, reader_t *r) {
    buf_t b = {0};
    add_framef(&b, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{}}");
    g_sent_desc = "initialize id 0";
    watchdog();
    write_all(c->wfd, b.p, b.len);
    const char *body; size_t n;
    read_response(r, &body, &n);
    if (is_error(body, n)) {
        keep_sample(body, n);
        errno = 0;
        die_server("initialize answered with an error");
    }
    free(b.p);
}

/* shutdown, exit, close stdin, drain stdout, wait; returns the wait status. */
static int do_shutdown(child_t *c, reader_t *r) {
    buf_t b = {0};
    add_framef(&b, "{\"jsonrpc\":\"2.0\",\"id\":999999999,\"method\":\"shutdown\"}");
    g_sent_desc = "shutdown id 999999999";
    watchdog();
    write_all(c->wfd, b.p, b.len);
    const char *body; size_t n;
    read_response(r, &body, &n);
    b.len = 0;
    add_framef(&b, "{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}");
    g_sent_desc = "exit notification, then closed stdin";
    write_all(c->wfd, b.p, b.len);
    close(c->wfd);
    c->wfd = -1;
    char tmp[65536];
    while (read(c->rfd, tmp, sizeof tmp) > 0) {}
    close(c->rfd);
    int st = 0;
    waitpid(c->pid, &st, 0);
    alarm(0);
    free(b.p);
    return st;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}
static double pct(const uint64_t *sorted, size_t n, double p) {
    size_t i = (size_t)(p * (double)n + 0.999999);
    if (i < 1) i = 1;
    if (i > n) i = n;
    return (double)sorted[i - 1];
}

static void print_sample(void) {
    printf(",\"sample\":");
    json_str(stdout, g_sample, g_sample_len);
}

/* ---------- phases ---------- */
static void phase_rtt(child_t *c, reader_t *r, long warm, long n) {
    g_phase = "rtt";
    long total = warm + n;
    buf_t b = {0};
    size_t *off = malloc(sizeof(size_t) * (size_t)(total + 1));
    for (long i = 0; i < total; i++) {
        off[i] = b.len;
        add_framef(&b, "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"ping\"}", 1000000 + i);
    }
    off[total] = b.len;
    uint64_t *lat = malloc(sizeof(uint64_t) * (size_t)n);
    long errors = 0;
    const char *body; size_t bl;
    g_sent_desc = "ping requests, one at a time";
    watchdog();
    uint64_t t_begin = 0;
    for (long i = 0; i < total; i++) {
        if ((i & 1023) == 0) watchdog();
        if (i == warm) t_begin = now_ns();
        uint64_t t0 = now_ns();
        write_all(c->wfd, b.p + off[i], off[i + 1] - off[i]);
        read_response(r, &body, &bl);
        uint64_t t1 = now_ns();
        if (i >= warm) lat[i - warm] = t1 - t0;
        if (is_error(body, bl)) errors++;
        if (i == 0) keep_sample(body, bl);
    }
    uint64_t t_end = now_ns();
    alarm(0);
    qsort(lat, (size_t)n, sizeof *lat, cmp_u64);
    double mean = (double)(t_end - t_begin) / (double)n;
    line_begin("rtt");
    printf(",\"n\":%ld,\"warmup\":%ld,\"rate_per_s\":%.0f,\"mean_us\":%.2f,\"p50_us\":%.2f,"
           "\"p90_us\":%.2f,\"p99_us\":%.2f,\"p999_us\":%.2f,\"max_us\":%.2f,\"errors\":%ld,"
           "\"request_bytes\":%zu",
           n, warm, 1e9 / mean, mean / 1e3, pct(lat, n, .50) / 1e3, pct(lat, n, .90) / 1e3,
           pct(lat, n, .99) / 1e3, pct(lat, n, .999) / 1e3, (double)lat[n - 1] / 1e3, errors,
           off[1] - off[0]);
    print_sample();
    line_end();
    free(lat); free(off); free(b.p);
}

static void phase_pipe(child_t *c, reader_t *r, long total, long window) {
    g_phase = "pipe";
    buf_t b = {0};
    size_t *off = malloc(sizeof(size_t) * (size_t)(total + 1));
    for (long i = 0; i < total; i++) {
        off[i] = b.len;
        add_framef(&b, "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"ping\"}", 3000000 + i);
    }
    off[total] = b.len;
    g_sent_desc = "pipelined ping requests";
    set_nonblock(c->wfd, 1);
    set_nonblock(c->rfd, 1);
    size_t sent = 0;
    long received = 0, errors = 0, polls = 0;
    long max_inflight = 0;
    watchdog();
    uint64_t t0 = now_ns();
    while (received < total) {
        long allow = received + window;
        if (allow > total) allow = total;
        size_t allow_bytes = off[allow];
        struct pollfd p[2];
        int np = 0, wi = -1;
        if (sent < allow_bytes) { wi = np; p[np].fd = c->wfd; p[np].events = POLLOUT; np++; }
        int ri = np;
        p[np].fd = r->fd; p[np].events = POLLIN; np++;
        int k = poll(p, (nfds_t)np, g_timeout * 1000);
        polls++;
        if (k < 0) { if (errno == EINTR) continue; die_server("poll"); }
        if (k == 0) { errno = 0; die_server("timeout: no progress in pipelined phase"); }
        if (wi >= 0 && (p[wi].revents & (POLLOUT | POLLERR | POLLHUP))) {
            ssize_t w = write(c->wfd, b.p + sent, allow_bytes - sent);
            if (w < 0 && errno != EAGAIN && errno != EINTR) die_server("write to server failed");
            if (w > 0) sent += (size_t)w;
        }
        if (p[ri].revents & (POLLIN | POLLHUP | POLLERR)) {
            reader_room(r, 65536);
            ssize_t n = read(r->fd, r->buf + r->end, r->cap - r->end);
            if (n < 0 && errno != EAGAIN && errno != EINTR) die_server("read from server failed");
            if (n == 0) { errno = 0; die_server("server closed its stdout"); }
            if (n > 0) {
                r->end += (size_t)n;
                const char *body; size_t bl;
                int fk;
                while ((fk = parse_frame(r, &body, &bl)) > 0) {
                    if (is_notification(body, bl)) continue;
                    if (received == 0) keep_sample(body, bl);
                    if (is_error(body, bl)) errors++;
                    received++;
                }
                if (fk < 0) { errno = 0; die_server("bad frame from server"); }
                watchdog();
            }
        }
        /* approximate in-flight count from bytes written */
        long lo = received, hi = allow;
        while (lo < hi) { long mid = (lo + hi + 1) / 2; if (off[mid] <= sent) lo = mid; else hi = mid - 1; }
        if (lo - received > max_inflight) max_inflight = lo - received;
    }
    uint64_t t1 = now_ns();
    alarm(0);
    set_nonblock(c->wfd, 0);
    set_nonblock(c->rfd, 0);
    double s = (double)(t1 - t0) / 1e9;
    line_begin("pipe");
    printf(",\"n\":%ld,\"window\":%ld,\"max_in_flight\":%ld,\"seconds\":%.4f,\"req_per_s\":%.0f,"
           "\"errors\":%ld,\"polls\":%ld",
           total, window, max_inflight, s, (double)total / s, errors, polls);
    print_sample();
    line_end();
    free(off); free(b.p);
}

static void phase_blob(child_t *c, reader_t *r, long bytes, long runs) {
    g_phase = "blob";
    long warm = 5, total = warm + runs;
    buf_t b = {0};
    size_t *off = malloc(sizeof(size_t) * (size_t)(total + 1));
    for (long i = 0; i < total; i++) {
        off[i] = b.len;
        add_framef(&b, "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"debug/blob\",\"params\":{\"bytes\":%ld}}",
                   4000000 + i, bytes);
    }
    off[total] = b.len;
    uint64_t *lat = malloc(sizeof(uint64_t) * (size_t)runs);
    size_t body_bytes = 0;
    long errors = 0, short_bodies = 0;
    g_sent_desc = "debug/blob requests, one at a time";
    uint64_t t_begin = 0;
    for (long i = 0; i < total; i++) {
        watchdog();
        if (i == warm) t_begin = now_ns();
        uint64_t t0 = now_ns();
        write_all(c->wfd, b.p + off[i], off[i + 1] - off[i]);
        const char *body; size_t bl;
        read_response(r, &body, &bl);
        uint64_t t1 = now_ns();
        if (i == 0) keep_sample(body, bl > 200 ? 200 : bl);
        if (is_error(body, bl)) errors++;
        if (bl < (size_t)bytes) short_bodies++;
        if (i >= warm) { lat[i - warm] = t1 - t0; body_bytes += bl; }
    }
    uint64_t t_end = now_ns();
    alarm(0);
    qsort(lat, (size_t)runs, sizeof *lat, cmp_u64);
    double s = (double)(t_end - t_begin) / 1e9;
    line_begin("blob");
    printf(",\"bytes\":%ld,\"n\":%ld,\"response_body_bytes\":%zu,\"seconds\":%.4f,\"mb_per_s\":%.1f,"
           "\"p50_ms\":%.3f,\"p90_ms\":%.3f,\"errors\":%ld,\"short_bodies\":%ld",
           bytes, runs, body_bytes, s, (double)body_bytes / s / 1e6, pct(lat, runs, .5) / 1e6,
           pct(lat, runs, .9) / 1e6, errors, short_bodies);
    print_sample();
    line_end();
    free(lat); free(off); free(b.p);
}

static int read_status_kb(pid_t pid, const char *key, long *out) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t kl = strlen(key);
    int ok = -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, kl) == 0 && line[kl] == ':') {
            *out = strtol(line + kl + 1, NULL, 10);
            ok = 0;
            break;
        }
    }
    fclose(f);
    return ok;
}

static void report_rss(const char *test, pid_t pid) {
    long rss = -1, hwm = -1, thr = -1;
    read_status_kb(pid, "VmRSS", &rss);
    read_status_kb(pid, "VmHWM", &hwm);
    read_status_kb(pid, "Threads", &thr);
    line_begin(test);
    printf(",\"vmrss_kib\":%ld,\"vmhwm_kib\":%ld,\"threads\":%ld", rss, hwm, thr);
    line_end();
}

/* A fresh process: initialize, wait 200 ms, read its memory, shut it down. */
static void phase_rss(void) {
    g_phase = "rss";
    child_t c;
    if (spawn_child(&c)) exit(2);
    g_child = &c;
    reader_t r;
    reader_init(&r, c.rfd);
    g_reader = &r;
    do_initialize(&c, &r);
    alarm(0);
    usleep(200000);
    report_rss("rss", c.pid);
    do_shutdown(&c, &r);
    g_reader = NULL;
    g_child = NULL;
    reader_free(&r);
}

static void phase_spawn(long runs) {
    g_phase = "spawn";
    long warm = 3, total = warm + runs;
    uint64_t *t = malloc(sizeof(uint64_t) * (size_t)runs);
    long bad_exits = 0;
    int last_status = 0;
    for (long i = 0; i < total; i++) {
        child_t c;
        reader_t r;
        reader_init(&r, -1);
        g_reader = &r;
        uint64_t t0 = now_ns();
        if (spawn_child(&c)) exit(2);
        g_child = &c;
        r.fd = c.rfd;
        do_initialize(&c, &r);
        uint64_t t1 = now_ns();
        if (i >= warm) t[i - warm] = t1 - t0;
        int st = do_shutdown(&c, &r);
        if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0)) { bad_exits++; last_status = st; }
        g_child = NULL;
        g_reader = NULL;
        reader_free(&r);
    }
    qsort(t, (size_t)runs, sizeof *t, cmp_u64);
    double sum = 0;
    for (long i = 0; i < runs; i++) sum += (double)t[i];
    line_begin("spawn");
    printf(",\"n\":%ld,\"median_ms\":%.3f,\"p90_ms\":%.3f,\"min_ms\":%.3f,\"max_ms\":%.3f,\"mean_ms\":%.3f,"
           "\"bad_exits\":%ld,\"last_bad_status\":%d",
           runs, pct(t, runs, .5) / 1e6, pct(t, runs, .9) / 1e6, (double)t[0] / 1e6,
           (double)t[runs - 1] / 1e6, sum / (double)runs / 1e6, bad_exits, last_status);
    line_end();
    free(t);
}

static int has_test(const char *list, const char *t) {
    size_t n = strlen(t);
    for (const char *p = list; (p = strstr(p, t)); p += n)
        if ((p == list || p[-1] == ',') && (p[n] == 0 || p[n] == ',')) return 1;
    return 0;
}

int main(int argc, char **argv) {
    const char *tests = "rtt,pipe,spawn,rss";
    long rtt = 20000, warm = 2000, pipe_total = 200000, pipe_window = 1000, spawn_runs = 50;
    long blob_bytes = 1048576, blob_runs = 50;
    int i;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) { i++; break; }
        if (i + 1 >= argc) { fprintf(stderr, "missing value for %s\n", a); return 2; }
        const char *v = argv[++i];
        if (!strcmp(a, "--framing")) {
            if (!strcmp(v, "lsp")) g_framing = LSP;
            else if (!strcmp(v, "ndjson")) g_framing = NDJSON;
            else { fprintf(stderr, "bad framing %s\n", v); return 2; }
        } else if (!strcmp(a, "--label")) g_label = v;
        else if (!strcmp(a, "--tests")) tests = v;
        else if (!strcmp(a, "--rtt")) rtt = atol(v);
        else if (!strcmp(a, "--warmup")) warm = atol(v);
        else if (!strcmp(a, "--pipe-total")) pipe_total = atol(v);
        else if (!strcmp(a, "--pipe-window")) pipe_window = atol(v);
        else if (!strcmp(a, "--spawn-runs")) spawn_runs = atol(v);
        else if (!strcmp(a, "--blob-bytes")) blob_bytes = atol(v);
        else if (!strcmp(a, "--blob-runs")) blob_runs = atol(v);
        else if (!strcmp(a, "--timeout")) g_timeout = atoi(v);
        else if (!strcmp(a, "--child-stderr")) g_child_stderr = v;
        else { fprintf(stderr, "unknown option %s\n", a); return 2; }
    }
    if (i >= argc || rtt < 1 || pipe_total < 1 || pipe_window < 1 || spawn_runs < 1 || blob_runs < 1) {
        fprintf(stderr, "usage: bench_client [options] -- COMMAND [ARGS...]\n");
        return 2;
    }
    g_cmd = argv + i;
    signal(SIGPIPE, SIG_IGN);
    signal(SIGALRM, on_alarm);

    int need_session = has_test(tests, "rtt") || has_test(tests, "pipe") || has_test(tests, "blob");
    if (need_session) {
        g_phase = "initialize";
        child_t c;
        if (spawn_child(&c)) return 2;
        g_child = &c;
        reader_t r;
        reader_init(&r, c.rfd);
        g_reader = &r;
        do_initialize(&c, &r);
        if (has_test(tests, "rtt")) phase_rtt(&c, &r, warm, rtt);
        if (has_test(tests, "pipe")) phase_pipe(&c, &r, pipe_total, pipe_window);
        if (has_test(tests, "blob")) phase_blob(&c, &r, blob_bytes, blob_runs);
        g_phase = "session_end";
        long rss = -1, hwm = -1;
        read_status_kb(c.pid, "VmRSS", &rss);
        read_status_kb(c.pid, "VmHWM", &hwm);
        int st = do_shutdown(&c, &r);
        line_begin("session_end");
        printf(",\"vmrss_kib\":%ld,\"vmhwm_kib\":%ld,\"exit_status\":%d,\"exit_signal\":%d", rss, hwm,
               WIFEXITED(st) ? WEXITSTATUS(st) : -1, WIFSIGNALED(st) ? WTERMSIG(st) : 0);
        line_end();
        g_child = NULL;
        g_reader = NULL;
        reader_free(&r);
    }
    if (has_test(tests, "rss")) phase_rss();
    if (has_test(tests, "spawn")) phase_spawn(spawn_runs);
    return 0;
}
