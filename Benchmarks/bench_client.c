/*
 * bench_client: drives a stdio JSON-RPC server (or echo_peer, the floor) through pipes and
 * prints one JSON object per measurement on stdout.
 *
 *   bench_client [options] -- COMMAND [ARGS...]
 *
 *   --framing lsp|ndjson   framing of the request bytes (default lsp)
 *   --label NAME           "target" field of every output line (default "server")
 *   --tests LIST           comma list of rtt,pipe,spawn,rss,blob (default rtt,pipe,spawn,rss)
 *                          and the workspace file tests (the server started with --local-root):
 *                          load4k, save4k, echo4k (the floor of load4k), range, list, search,
 *                          import; see "workspace file phases" below; and the storage and
 *                          session tests (below)
 *   --rtt N                measured sequential round trips (default 20000)
 *   --warmup N             warm-up round trips before them (default 2000)
 *   --pipe-total N         pipelined requests (default 200000)
 *   --pipe-window N        requests kept in flight (default 1000)
 *   --spawn-runs N         spawn -> initialize runs (default 50, after 3 unmeasured)
 *   --blob-bytes N[,N...]  debug/blob sizes, one "blob" line each (default 1048576)
 *   --blob-runs N          measured debug/blob requests per size (default 50, after 5
 *                          unmeasured); sizes under 1 MiB get more, up to 16 MiB of string
 *                          per size and at most 2,000 (so small sizes are not a handful)
 *   --timeout S            seconds without progress before giving up (default 15)
 *   --child-stderr PATH    send the child's stderr there (default: inherited)
 *   --ws-file PATH         workspace path of the 4 KiB file (default bench/file4k.txt)
 *   --save-runs N          measured saveFile requests (default 200, after 20 unmeasured)
 *   --passes N             measured passes of range/list/search/import (default 3)
 *   --warm-passes N        unmeasured passes before them (default 1; import: use 0)
 *   --range-path PATH      file read by `range`, --range-total its size in bytes,
 *   --range-bytes N        bytes per loadFile (default 1048576), --encoding utf8|base64
 *   --list-path PATH       folder listed recursively by `list` (default ""), --list-limit N
 *   --search-query Q       literal searched by `search`, --search-path PATH, --search-max N,
 *                          --search-case sensitive|insensitive (default: not sent); --search-regex 1:
 *                          Q is a regular expression (sent as it is inside a JSON string: escape \ as \\)
 *   --import-source ABS    host file imported by `import` to --import-path PATH
 *   storage and session tests (server started with --local-root, --cloud-root, --config-dir):
 *                          migrate, storageinfo, append1, recover-setup, recover, background;
 *                          see "storage and session phases" below; their options:
 *   --migrate-to local|cloud, --migrate-mode copy|move (default cloud, copy)
 *   --info-runs N          getStorageInfo calls after the first (default 50)
 *   --append-runs N        measured one-message appends (default 1000, after --append-warmup 50)
 *   --append-sessions-dir DIR  with --append-baseline FILE: append1 is paired (see below); DIR
 *                          holds the session folders (<local root>/.workspace/sessions)
 *   --msg-bytes N          content bytes of each message (default 256)
 *   --recover-messages N   messages recover-setup stores (default 10000), --recover-batch N per
 *                          appendMessages (default 10)
 *   --id-file PATH         append1 and recover-setup write the session id there, recover reads it
 *   --bg-sessions N        sessions `background` creates and moves to running (default 100)
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

/* Appends `s` JSON-escaped (no quotes). */
static void buf_add_json_escaped(buf_t *b, const char *s, size_t n) {
    buf_reserve(b, n * 6);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') { b->p[b->len++] = '\\'; b->p[b->len++] = (char)c; }
        else if (c == '\n') { b->p[b->len++] = '\\'; b->p[b->len++] = 'n'; }
        else if (c < 0x20) b->len += (size_t)sprintf(b->p + b->len, "\\u%04x", c);
        else b->p[b->len++] = (char)c;
    }
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
    /* The server writes "jsonrpc" first, then "id" (a response) or "method" (a notification,
     * whose params may well hold an "id", as session/didChangeState's do). */
    static const char pre[] = "{\"jsonrpc\":\"2.0\",";
    const size_t pl = sizeof pre - 1;
    if (n > pl + 8 && memcmp(b, pre, pl) == 0) {
        if (memcmp(b + pl, "\"method\"", 8) == 0) return 1;
        if (memcmp(b + pl, "\"id\"", 4) == 0) return 0;
    }
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

/* Sequential round trips over prepared frames b[off[i]..off[i+1]): `warm` unmeasured, then
 * `n` measured; one JSON line for `test`. `watch_mask`: the watchdog is re-armed every
 * watch_mask+1 requests (slow requests need it often). */
static void rtt_loop(const char *test, buf_t *b, size_t *off, long warm, long n, long watch_mask) {
    long total = warm + n;
    uint64_t *lat = malloc(sizeof(uint64_t) * (size_t)n);
    long errors = 0;
    size_t resp_bytes = 0;
    const char *body; size_t bl;
    watchdog();
    uint64_t t_begin = 0;
    for (long i = 0; i < total; i++) {
        if ((i & watch_mask) == 0) watchdog();
        if (i == warm) t_begin = now_ns();
        uint64_t t0 = now_ns();
        write_all(g_child->wfd, b->p + off[i], off[i + 1] - off[i]);
        read_response(g_reader, &body, &bl);
        uint64_t t1 = now_ns();
        if (i >= warm) lat[i - warm] = t1 - t0;
        if (is_error(body, bl)) { errors++; keep_sample(body, bl); }
        if (i == 0) { if (!errors) keep_sample(body, bl); resp_bytes = bl; }
    }
    uint64_t t_end = now_ns();
    alarm(0);
    qsort(lat, (size_t)n, sizeof *lat, cmp_u64);
    double mean = (double)(t_end - t_begin) / (double)n;
    line_begin(test);
    printf(",\"n\":%ld,\"warmup\":%ld,\"rate_per_s\":%.0f,\"mean_us\":%.2f,\"p50_us\":%.2f,"
           "\"p90_us\":%.2f,\"p99_us\":%.2f,\"p999_us\":%.2f,\"max_us\":%.2f,\"errors\":%ld,"
           "\"request_bytes\":%zu,\"response_bytes\":%zu",
           n, warm, 1e9 / mean, mean / 1e3, pct(lat, n, .50) / 1e3, pct(lat, n, .90) / 1e3,
           pct(lat, n, .99) / 1e3, pct(lat, n, .999) / 1e3, (double)lat[n - 1] / 1e3, errors,
           off[1] - off[0], resp_bytes);
    print_sample();
    line_end();
    free(lat);
}

static void phase_rtt(child_t *c, reader_t *r, long warm, long n) {
    (void)c; (void)r;
    g_phase = "rtt";
    long total = warm + n;
    buf_t b = {0};
    size_t *off = malloc(sizeof(size_t) * (size_t)(total + 1));
    for (long i = 0; i < total; i++) {
        off[i] = b.len;
        add_framef(&b, "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"ping\"}", 1000000 + i);
    }
    off[total] = b.len;
    g_sent_desc = "ping requests, one at a time";
    rtt_loop("rtt", &b, off, warm, n, 1023);
    free(off); free(b.p);
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

/* A fresh process: initialize, wait 200 ms, read its memory ("rss": just started); then wait
 * (sampling VmRSS every 2 ms: "peak_after_start_kib", the most it held at any moment after
 * initialize was answered) until 1.6 s after initialize, past the server's idle period (--idle-release-after, 1 s by
 * default, after which it gives its code pages back), read it again ("rss_idle"), and time the
 * first two pings after that idle period (the first one maps the code it needs back in). */
static uint64_t call(const char *method, const char *params, const char **body, size_t *bl, int must_succeed);
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
    /* The peak after start-up: VmRSS sampled every 2 ms from initialize answered to 1.6 s after,
     * and VmHWM then and at the end (a VmHWM that grew after initialize is that peak, exactly). */
    long hwm_init = -1, peak = -1, v = -1;
    read_status_kb(c.pid, "VmHWM", &hwm_init);
    uint64_t t_init = now_ns();
    int reported = 0;
    for (;;) {
        uint64_t el = now_ns() - t_init;
        if (el >= 1600000000ull) break;
        if (read_status_kb(c.pid, "VmRSS", &v) == 0 && v > peak) peak = v;
        if (!reported && el >= 200000000ull) { report_rss("rss", c.pid); reported = 1; }
        usleep(2000);
    }
    long rss = -1, hwm = -1;
    read_status_kb(c.pid, "VmRSS", &rss);
    read_status_kb(c.pid, "VmHWM", &hwm);
    const char *body; size_t bl;
    uint64_t first = call("ping", "{}", &body, &bl, 1);
    uint64_t second = call("ping", "{}", &body, &bl, 1);
    long after = -1, hwm_end = -1;
    read_status_kb(c.pid, "VmRSS", &after);
    read_status_kb(c.pid, "VmHWM", &hwm_end);
    long after_start = peak;
    if (rss > after_start) after_start = rss;
    if (after > after_start) after_start = after;
    if (hwm_end > hwm_init && hwm_end > after_start) after_start = hwm_end;
    line_begin("rss_idle");
    printf(",\"after_initialize_ms\":1600,\"vmrss_kib\":%ld,\"vmhwm_kib\":%ld,\"first_ping_us\":%.1f,"
           "\"second_ping_us\":%.1f,\"vmrss_after_pings_kib\":%ld,\"vmhwm_at_initialize_kib\":%ld,"
           "\"max_vmrss_sampled_kib\":%ld,\"peak_after_start_kib\":%ld",
           rss, hwm, first / 1e3, second / 1e3, after, hwm_init, peak, after_start);
    line_end();
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

/* ---------- workspace file phases ----------
 * For a server started with --local-root. Paths are workspace-relative and must not need
 * JSON escaping. Every request of a timed loop is encoded before the loop, except the listing
 * pages, whose cursor is only known from the previous answer.
 *
 *   load4k   saveFile of a 4 KiB text file (setup), then sequential loadFile round trips of it
 *            (--warmup, --rtt)
 *   save4k   sequential saveFile round trips, 4 KiB, the same path (durable: the server fsyncs
 *            file and folder), 20 unmeasured then --save-runs
 *   echo4k   the floor of load4k for echo_peer: the saveFile request (4 KiB of data) echoed,
 *            so 4 KiB each way (a loadFile moves ~4 KiB one way only)
 *   range    loadFile of --range-path in --range-bytes ranges (offset/length) until eof, with
 *            --encoding; MB/s of file bytes per pass; VmRSS sampled every 16 requests
 *   list     listFiles {path, recursive, limit} following nextCursor until there is none
 *   search   searchFiles {query, path, maxResults}
 *   import   importFile {source, path, overwrite: true}
 */
static const char *g_ws_file = "bench/file4k.txt";
static long g_save_runs = 200;
static long g_passes = 3, g_warm_passes = 1;
static const char *g_range_path = NULL, *g_encoding = "base64";
static long g_range_bytes = 1048576, g_range_total = 0;
static const char *g_list_path = "";
static long g_list_limit = 10000;
static const char *g_search_query = NULL, *g_search_path = "";
static long g_search_max = 100000;
static const char *g_search_case = NULL; /* "sensitive", "insensitive", or NULL: the server's default */
static int g_search_regex = 0;           /* 1: the query is a regular expression (`regex: true`) */
static const char *g_import_source = NULL, *g_import_path = "bench/import.bin";

/* 4096 bytes of plain ASCII text in lines. */
static void text4k(char *out) {
    static const char *line = "The workspace file benchmark writes this line, again and again.\n";
    size_t ll = strlen(line);
    for (size_t i = 0; i < 4096; i++) out[i] = line[i % ll];
    out[4095] = '\n';
}

/* One framed saveFile request with the 4 KiB text. */
static void add_save4k(buf_t *b, long id) {
    char data[4096];
    text4k(data);
    buf_t body = {0};
    char head[256];
    int hl = snprintf(head, sizeof head,
                      "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"saveFile\",\"params\":{\"path\":\"%s\",\"data\":\"",
                      id, g_ws_file);
    buf_add(&body, head, (size_t)hl);
    buf_add_json_escaped(&body, data, sizeof data);
    buf_add(&body, "\"}}", 3);
    add_frame(b, body.p, body.len);
    free(body.p);
}

/* Sends one prepared request and reads its answer; dies when it is an error. */
static void request_ok(const char *what, buf_t *b, const char **body, size_t *bl) {
    g_sent_desc = what;
    watchdog();
    write_all(g_child->wfd, b->p, b->len);
    read_response(g_reader, body, bl);
    alarm(0);
    if (is_error(*body, *bl)) {
        keep_sample(*body, *bl);
        errno = 0;
        die_server("setup request answered with an error");
    }
}

static void phase_save4k_setup(void) {
    buf_t b = {0};
    add_save4k(&b, 5000000);
    const char *body; size_t bl;
    request_ok("saveFile of the 4 KiB file (setup)", &b, &body, &bl);
    free(b.p);
}

static void phase_load4k(long warm, long n) {
    g_phase = "load4k";
    phase_save4k_setup();
    long total = warm + n;
    buf_t b = {0};
    size_t *off = malloc(sizeof(size_t) * (size_t)(total + 1));
    for (long i = 0; i < total; i++) {
        off[i] = b.len;
        add_framef(&b, "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"loadFile\",\"params\":{\"path\":\"%s\"}}",
                   5100000 + i, g_ws_file);
    }
    off[total] = b.len;
    g_sent_desc = "loadFile requests (4 KiB), one at a time";
    rtt_loop("load4k", &b, off, warm, n, 1023);
    free(off); free(b.p);
}

static void phase_save_or_echo4k(const char *test, long warm, long n) {
    g_phase = test;
    long total = warm + n;
    buf_t b = {0};
    size_t *off = malloc(sizeof(size_t) * (size_t)(total + 1));
    for (long i = 0; i < total; i++) {
        off[i] = b.len;
        add_save4k(&b, 5200000 + i);
    }
    off[total] = b.len;
    g_sent_desc = "saveFile requests (4 KiB), one at a time";
    rtt_loop(test, &b, off, warm, n, 15);
    free(off); free(b.p);
}

static const char *mem_find(const char *h, size_t hl, const char *n) { return memmem(h, hl, n, strlen(n)); }

/* The integer after `key` (e.g. "\"size\":") within the first and last 512 bytes of the body
 * (the fields around a large "data" string); -1 when absent. */
static long long field_int(const char *b, size_t n, const char *key) {
    size_t w = n < 512 ? n : 512;
    const char *p = mem_find(b + n - w, w, key);
    if (!p) p = mem_find(b, w, key);
    if (!p) return -1;
    return strtoll(p + strlen(key), NULL, 10);
}
static int field_true(const char *b, size_t n, const char *key_true) {
    size_t w = n < 512 ? n : 512;
    return mem_find(b + n - w, w, key_true) || mem_find(b, w, key_true);
}
static long count_occ(const char *b, size_t n, const char *needle) {
    long k = 0;
    size_t nl = strlen(needle);
    const char *p = b, *e = b + n;
    while ((p = memmem(p, (size_t)(e - p), needle, nl))) { k++; p += nl; }
    return k;
}

static void print_list_d(const char *key, const double *v, long n, const char *f) {
    printf(",\"%s\":[", key);
    for (long i = 0; i < n; i++) { if (i) printf(","); printf(f, v[i]); }
    printf("]");
}
static double median_d(const double *v, long n) {
    double *s = malloc(sizeof(double) * (size_t)n);
    memcpy(s, v, sizeof(double) * (size_t)n);
    for (long i = 1; i < n; i++) for (long j = i; j > 0 && s[j - 1] > s[j]; j--) { double t = s[j]; s[j] = s[j - 1]; s[j - 1] = t; }
    double m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    free(s);
    return m;
}

static void phase_range(void) {
    g_phase = "range";
    if (!g_range_path || g_range_total <= 0) { fprintf(stderr, "range needs --range-path and --range-total\n"); exit(2); }
    long nreq = (g_range_total + g_range_bytes - 1) / g_range_bytes;
    long passes = g_warm_passes + g_passes;
    buf_t b = {0};
    size_t *off = malloc(sizeof(size_t) * (size_t)(nreq * passes + 1));
    for (long k = 0; k < nreq * passes; k++) {  /* every request of every pass has its own id */
        long i = k % nreq;
        off[k] = b.len;
        add_framef(&b, "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"loadFile\",\"params\":{\"path\":\"%s\","
                       "\"encoding\":\"%s\",\"offset\":%ld,\"length\":%ld}}",
                   60000000 + k, g_range_path, g_encoding, i * g_range_bytes, g_range_bytes);
    }
    off[nreq * passes] = b.len;
    g_sent_desc = "loadFile range requests, one at a time";
    double *mbps = malloc(sizeof(double) * (size_t)passes), *secs = malloc(sizeof(double) * (size_t)passes);
    uint64_t *lat = malloc(sizeof(uint64_t) * (size_t)(nreq * g_passes));
    long nlat = 0, errors = 0, bad_length = 0, bad_eof = 0;
    long rss = -1, max_rss = -1, hwm0 = -1, hwm = -1;
    read_status_kb(g_child->pid, "VmHWM", &hwm0);
    size_t resp_bytes = 0;
    for (long p = 0; p < passes; p++) {
        long long file_bytes = 0;
        resp_bytes = 0;
        uint64_t t0 = now_ns();
        for (long i = 0; i < nreq; i++) {
            watchdog();
            uint64_t r0 = now_ns();
            long k = p * nreq + i;
            write_all(g_child->wfd, b.p + off[k], off[k + 1] - off[k]);
            const char *body; size_t bl;
            read_response(g_reader, &body, &bl);
            uint64_t r1 = now_ns();
            if (p >= g_warm_passes) lat[nlat++] = r1 - r0;
            resp_bytes += bl;
            if (is_error(body, bl)) { errors++; keep_sample(body, bl > 300 ? 300 : bl); continue; }
            long long len = field_int(body, bl, "\"length\":");
            long want = i + 1 < nreq ? g_range_bytes : g_range_total - i * g_range_bytes;
            if (len != want) bad_length++;
            if (len > 0) file_bytes += len;
            if (field_true(body, bl, "\"eof\":true") != (i + 1 == nreq)) bad_eof++;
            if ((i & 15) == 0) {
                if (read_status_kb(g_child->pid, "VmRSS", &rss) == 0 && rss > max_rss) max_rss = rss;
            }
        }
        uint64_t t1 = now_ns();
        alarm(0);
        secs[p] = (double)(t1 - t0) / 1e9;
        mbps[p] = (double)file_bytes / secs[p] / 1e6;
    }
    read_status_kb(g_child->pid, "VmHWM", &hwm);
    qsort(lat, (size_t)nlat, sizeof *lat, cmp_u64);
    const double *m = mbps + g_warm_passes, *sc = secs + g_warm_passes;
    line_begin("range");
    printf(",\"path\":\"%s\",\"encoding\":\"%s\",\"range_bytes\":%ld,\"file_bytes\":%ld,\"requests\":%ld,"
           "\"passes\":%ld,\"warm_passes\":%ld,\"mb_per_s\":%.1f,\"seconds\":%.4f,\"p50_ms\":%.3f,\"p99_ms\":%.3f,"
           "\"response_bytes_per_pass\":%zu,\"errors\":%ld,\"bad_length\":%ld,\"bad_eof\":%ld,"
           "\"vmhwm_before_kib\":%ld,\"max_vmrss_sampled_kib\":%ld,\"vmhwm_kib\":%ld",
           g_range_path, g_encoding, g_range_bytes, g_range_total, nreq, g_passes, g_warm_passes,
           median_d(m, g_passes), median_d(sc, g_passes), pct(lat, (size_t)nlat, .5) / 1e6,
           pct(lat, (size_t)nlat, .99) / 1e6, resp_bytes, errors, bad_length, bad_eof, hwm0, max_rss, hwm);
    print_list_d("mb_per_s_per_pass", m, g_passes, "%.1f");
    if (g_sample_len) print_sample();
    line_end();
    free(mbps); free(secs); free(lat); free(off); free(b.p);
}

static void phase_list(void) {
    g_phase = "list";
    long passes = g_warm_passes + g_passes;
    double *secs = malloc(sizeof(double) * (size_t)passes);
    long entries = 0, pages = 0, errors = 0;
    size_t resp_bytes = 0;
    buf_t b = {0};
    char cursor[1024];
    g_sent_desc = "listFiles pages, one at a time";
    for (long p = 0; p < passes; p++) {
        entries = 0; pages = 0; resp_bytes = 0;
        cursor[0] = 0;
        uint64_t t0 = now_ns();
        for (;;) {
            b.len = 0;
            if (cursor[0])
                add_framef(&b, "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"listFiles\",\"params\":{\"path\":\"%s\","
                               "\"recursive\":true,\"limit\":%ld,\"cursor\":\"%s\"}}", 7000000 + p * 100000 + pages, g_list_path, g_list_limit, cursor);
            else
                add_framef(&b, "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"listFiles\",\"params\":{\"path\":\"%s\","
                               "\"recursive\":true,\"limit\":%ld}}", 7000000 + p * 100000 + pages, g_list_path, g_list_limit);
            watchdog();
            write_all(g_child->wfd, b.p, b.len);
            const char *body; size_t bl;
            read_response(g_reader, &body, &bl);
            pages++;
            resp_bytes += bl;
            if (is_error(body, bl)) { errors++; keep_sample(body, bl > 300 ? 300 : bl); break; }
            entries += count_occ(body, bl, "\"state\":");
            const char *nc = mem_find(body, bl, "\"nextCursor\":\"");
            if (!nc) break;
            nc += 14;
            const char *q = memchr(nc, '"', (size_t)(body + bl - nc));
            size_t cl = q ? (size_t)(q - nc) : 0;
            if (!q || cl == 0 || cl >= sizeof cursor) { errno = 0; die_server("unreadable nextCursor"); }
            memcpy(cursor, nc, cl);
            cursor[cl] = 0;
        }
        alarm(0);
        secs[p] = (double)(now_ns() - t0) / 1e9;
    }
    const double *sc = secs + g_warm_passes;
    double med = median_d(sc, g_passes);
    line_begin("list");
    printf(",\"path\":\"%s\",\"limit\":%ld,\"entries\":%ld,\"pages\":%ld,\"passes\":%ld,\"seconds\":%.4f,"
           "\"entries_per_s\":%.0f,\"response_bytes\":%zu,\"errors\":%ld",
           g_list_path, g_list_limit, entries, pages, g_passes, med, (double)entries / med, resp_bytes, errors);
    print_list_d("seconds_per_pass", sc, g_passes, "%.4f");
    if (g_sample_len) print_sample();
    line_end();
    free(secs); free(b.p);
}

static void phase_search(void) {
    g_phase = "search";
    if (!g_search_query) { fprintf(stderr, "search needs --search-query\n"); exit(2); }
    long passes = g_warm_passes + g_passes;
    double *secs = malloc(sizeof(double) * (size_t)passes);
    long matches = -1, errors = 0;
    long long searched = -1;
    int truncated = -1;
    size_t resp_bytes = 0;
    buf_t b = {0};
    const char *cs = !g_search_case ? "" : !strcmp(g_search_case, "sensitive") ? ",\"caseSensitive\":true" : ",\"caseSensitive\":false";
    const char *rx = g_search_regex ? ",\"regex\":true" : "";
    g_sent_desc = "searchFiles";
    for (long p = 0; p < passes; p++) {
        /* a fresh id each pass: see the note on ids in phase_import */
        b.len = 0;
        add_framef(&b, "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"searchFiles\",\"params\":{\"query\":\"%s\","
                       "\"path\":\"%s\",\"maxResults\":%ld%s%s}}", 8000000 + p, g_search_query, g_search_path, g_search_max, cs, rx);
        watchdog();
        uint64_t t0 = now_ns();
        write_all(g_child->wfd, b.p, b.len);
        const char *body; size_t bl;
        read_response(g_reader, &body, &bl);
        secs[p] = (double)(now_ns() - t0) / 1e9;
        alarm(0);
        resp_bytes = bl;
        if (is_error(body, bl)) { errors++; keep_sample(body, bl > 300 ? 300 : bl); continue; }
        matches = count_occ(body, bl, "\"line\":");
        searched = field_int(body, bl, "\"filesSearched\":");
        truncated = field_true(body, bl, "\"truncated\":true");
        if (p == 0) keep_sample(body, bl > 300 ? 300 : bl);
    }
    const double *sc = secs + g_warm_passes;
    line_begin("search");
    printf(",\"query\":\"%s\",\"regex\":%s,\"case\":\"%s\",\"path\":\"%s\",\"max_results\":%ld,\"matches\":%ld,\"files_searched\":%lld,"
           "\"truncated\":%d,\"passes\":%ld,\"seconds\":%.4f,\"response_bytes\":%zu,\"errors\":%ld",
           g_search_query, g_search_regex ? "true" : "false", g_search_case ? g_search_case : "default", g_search_path, g_search_max, matches, searched, truncated, g_passes,
           median_d(sc, g_passes), resp_bytes, errors);
    print_list_d("seconds_per_pass", sc, g_passes, "%.4f");
    print_sample();
    line_end();
    free(secs); free(b.p);
}

static void phase_import(void) {
    g_phase = "import";
    if (!g_import_source) { fprintf(stderr, "import needs --import-source\n"); exit(2); }
    long passes = g_warm_passes + g_passes;
    double *secs = malloc(sizeof(double) * (size_t)passes);
    long errors = 0;
    long long size = -1;
    buf_t b = {0};
    g_sent_desc = "importFile";
    int saved_timeout = g_timeout;
    if (g_timeout < 120) g_timeout = 120;
    for (long p = 0; p < passes; p++) {
        /* A fresh id each time. The server writes a response before it forgets the request's
         * id, so reusing an id as soon as its answer arrives can be refused as
         * DuplicateRequestId ("already in flight"). */
        b.len = 0;
        add_framef(&b, "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"importFile\",\"params\":{\"source\":\"%s\","
                       "\"path\":\"%s\",\"overwrite\":true}}", 9000000 + p, g_import_source, g_import_path);
        watchdog();
        uint64_t t0 = now_ns();
        write_all(g_child->wfd, b.p, b.len);
        const char *body; size_t bl;
        read_response(g_reader, &body, &bl);
        secs[p] = (double)(now_ns() - t0) / 1e9;
        alarm(0);
        keep_sample(body, bl > 300 ? 300 : bl);
        if (is_error(body, bl)) { errors++; continue; }
        size = field_int(body, bl, "\"size\":");
    }
    g_timeout = saved_timeout;
    const double *sc = secs + g_warm_passes;
    double med = median_d(sc, g_passes);
    line_begin("import");
    printf(",\"source\":\"%s\",\"bytes\":%lld,\"passes\":%ld,\"seconds\":%.4f,\"mb_per_s\":%.1f,\"errors\":%ld",
           g_import_source, size, g_passes, med, size > 0 ? (double)size / med / 1e6 : 0.0, errors);
    print_list_d("seconds_per_pass", sc, g_passes, "%.4f");
    print_sample();
    line_end();
    free(secs); free(b.p);
}

/* ---------- storage and session phases ----------
 * For a server started with --local-root, --cloud-root and --config-dir. Each request is
 * encoded before its timer starts; a timed request is one round trip (write → whole response
 * read; server notifications in between are skipped). `init_ms` in their lines is this
 * process's spawn → initialize answered.
 *
 *   migrate        one migrate {to, mode}: round trip, and the result's durationMs, copied,
 *                  skipped, verified, bytes, switched
 *   storageinfo    getStorageInfo: the first call (the server walks the active root), then
 *                  --info-runs more, sequential; usage.files and usage.bytes
 *   append1        session/create, then sequential session/appendMessages of one message with
 *                  an id (durable before the answer): --append-warmup, then --append-runs.
 *                  Paired (with --append-sessions-dir and --append-baseline): after the warm-up
 *                  the last line of the session's journal.jsonl (the record the server wrote for
 *                  the last warm-up message, newline included) is the baseline's bytes; then
 *                  --append-warmup unmeasured pairs and --append-runs measured pairs, each one
 *                  server append and one C write() + fsync() of that line to FILE (opened
 *                  O_APPEND|O_TRUNC, kept open), timed apart, the server first in even pairs and
 *                  the C append first in odd ones. One "append1_paired" line: both
 *                  distributions and the median of the per-pair ratios server / C.
 *   recover-setup  session/create, then --recover-messages messages in appendMessages calls of
 *                  --recover-batch; writes the id to --id-file
 *   recover        (a fresh process) session/get {id} then session/messages {id, limit: 1}, the
 *                  first requests naming the session: each timed, and both together
 *   background     --bg-sessions × session/create, each moved to running
 *                  (session/transition), then host/didEnterBackground, timed
 */
static long g_next_id = 20000000;
static const char *g_id_file = NULL;
static const char *g_migrate_to = "cloud", *g_migrate_mode = "copy";
static long g_info_runs = 50, g_append_runs = 1000, g_append_warmup = 50, g_msg_bytes = 256;
static long g_recover_messages = 10000, g_recover_batch = 10, g_bg_sessions = 100;
static const char *g_append_sessions_dir = NULL, *g_append_baseline = NULL;
static double g_init_ms = -1;

/* Appends one framed request {id, method, params} (params: JSON object text). */
static void add_request(buf_t *b, long id, const char *method, const char *params, size_t plen) {
    buf_t m = {0};
    char head[160];
    int hl = snprintf(head, sizeof head, "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"%s\",\"params\":", id, method);
    buf_add(&m, head, (size_t)hl);
    buf_add(&m, params, plen);
    buf_add(&m, "}", 1);
    add_frame(b, m.p, m.len);
    free(m.p);
}

/* One request, encoded before the timer; returns the round trip in ns. With `must_succeed`,
 * an error answer ends the run (reported with the answer). */
static uint64_t call(const char *method, const char *params, const char **body, size_t *bl, int must_succeed) {
    static buf_t b;
    b.len = 0;
    add_request(&b, g_next_id++, method, params, strlen(params));
    g_sent_desc = method;
    watchdog();
    uint64_t t0 = now_ns();
    write_all(g_child->wfd, b.p, b.len);
    read_response(g_reader, body, bl);
    uint64_t t1 = now_ns();
    alarm(0);
    if (must_succeed && is_error(*body, *bl)) {
        keep_sample(*body, *bl > 400 ? 400 : *bl);
        errno = 0;
        die_server("request answered with an error");
    }
    return t1 - t0;
}

/* The string after `key` (e.g. "\"id\":\"") in the body, into out; 0 when absent. */
static int field_str(const char *b, size_t n, const char *key, char *out, size_t cap) {
    const char *p = mem_find(b, n, key);
    if (!p) return 0;
    p += strlen(key);
    const char *q = memchr(p, '"', (size_t)(b + n - p));
    if (!q || (size_t)(q - p) >= cap) return 0;
    memcpy(out, p, (size_t)(q - p));
    out[q - p] = 0;
    return 1;
}

static void create_session(const char *title, char *sid, size_t cap) {
    char params[256];
    snprintf(params, sizeof params, "{\"title\":\"%s\"}", title);
    const char *body; size_t bl;
    call("session/create", params, &body, &bl, 1);
    if (!field_str(body, bl, "\"id\":\"", sid, cap)) { keep_sample(body, bl); errno = 0; die_server("session/create: no id"); }
}

static void write_id_file(const char *sid) {
    if (!g_id_file) return;
    FILE *f = fopen(g_id_file, "w");
    if (!f || fprintf(f, "%s\n", sid) < 0 || fclose(f)) { perror(g_id_file); exit(2); }
}

/* Plain text of `n` bytes (no character JSON must escape), different for each `seed`. */
static void message_text(char *out, long n, long seed) {
    static const char *words[] = {"the", "agent", "reads", "a", "file", "and", "writes", "notes", "about", "it",
                                  "then", "asks", "which", "folder", "holds", "research"};
    long k = 0, w = seed;
    while (k < n) {
        const char *s = words[(w++ * 7 + seed) % 16];
        for (; *s && k < n; s++) out[k++] = *s;
        if (k < n) out[k++] = ' ';
    }
    out[n] = 0;
}

/* {"id":"PREFIXn","role":"user|assistant","content":"..."} */
static void add_message_json(buf_t *b, const char *prefix, long n, const char *text) {
    char head[128];
    int hl = snprintf(head, sizeof head, "{\"id\":\"%s%07ld\",\"role\":\"%s\",\"content\":\"", prefix, n,
                      n % 2 ? "assistant" : "user");
    buf_add(b, head, (size_t)hl);
    buf_add(b, text, strlen(text));
    buf_add(b, "\"}", 2);
}

static void phase_migrate(void) {
    g_phase = "migrate";
    char params[128];
    snprintf(params, sizeof params, "{\"to\":\"%s\",\"mode\":\"%s\"}", g_migrate_to, g_migrate_mode);
    int saved = g_timeout;
    if (g_timeout < 900) g_timeout = 900;
    const char *body; size_t bl;
    uint64_t t = call("migrate", params, &body, &bl, 0);
    g_timeout = saved;
    int err = is_error(body, bl);
    keep_sample(body, bl > 400 ? 400 : bl);
    line_begin("migrate");
    printf(",\"to\":\"%s\",\"mode\":\"%s\",\"init_ms\":%.3f,\"seconds\":%.4f,\"duration_ms\":%lld,\"copied\":%lld,"
           "\"skipped\":%lld,\"conflicts\":%lld,\"verified\":%lld,\"bytes\":%lld,\"switched\":%d,\"errors\":%d",
           g_migrate_to, g_migrate_mode, g_init_ms, (double)t / 1e9, field_int(body, bl, "\"durationMs\":"),
           field_int(body, bl, "\"copied\":"), field_int(body, bl, "\"skipped\":"), field_int(body, bl, "\"conflicts\":"),
           field_int(body, bl, "\"verified\":"), field_int(body, bl, "\"bytes\":"),
           field_true(body, bl, "\"switched\":true"), err);
    print_sample();
    line_end();
}

static void phase_storageinfo(void) {
    g_phase = "storageinfo";
    const char *body; size_t bl;
    int saved = g_timeout;
    if (g_timeout < 300) g_timeout = 300;
    uint64_t first = call("getStorageInfo", "{}", &body, &bl, 1);
    g_timeout = saved;
    long long files0 = field_int(body, bl, "\"files\":"), bytes0 = field_int(body, bl, "\"bytes\":");
    keep_sample(body, bl);
    uint64_t *t = malloc(sizeof(uint64_t) * (size_t)g_info_runs);
    long long files = files0;
    for (long i = 0; i < g_info_runs; i++) {
        t[i] = call("getStorageInfo", "{}", &body, &bl, 1);
        files = field_int(body, bl, "\"files\":");
    }
    qsort(t, (size_t)g_info_runs, sizeof *t, cmp_u64);
    line_begin("storageinfo");
    printf(",\"init_ms\":%.3f,\"first_ms\":%.3f,\"n\":%ld,\"p50_ms\":%.3f,\"p90_ms\":%.3f,\"p99_ms\":%.3f,\"max_ms\":%.3f,"
           "\"min_ms\":%.3f,\"files\":%lld,\"bytes\":%lld,\"files_last\":%lld",
           g_init_ms, (double)first / 1e6, g_info_runs, pct(t, (size_t)g_info_runs, .5) / 1e6,
           pct(t, (size_t)g_info_runs, .9) / 1e6, pct(t, (size_t)g_info_runs, .99) / 1e6,
           (double)t[g_info_runs - 1] / 1e6, (double)t[0] / 1e6, files0, bytes0, files);
    print_sample();
    line_end();
    free(t);
}

/* The last line (newline included) of DIR/SID/journal.jsonl into *line; dies without one. */
static void journal_last_line(const char *sid, buf_t *line) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/journal.jsonl", g_append_sessions_dir, sid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) die_server("append1: cannot open the session's journal (--append-sessions-dir)");
    buf_t all = {0};
    for (;;) {
        buf_reserve(&all, 65536);
        ssize_t n = read(fd, all.p + all.len, all.cap - all.len);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) die_server("append1: cannot read the session's journal");
        if (n == 0) break;
        all.len += (size_t)n;
    }
    close(fd);
    if (all.len == 0 || all.p[all.len - 1] != '\n') { errno = 0; die_server("append1: the journal does not end with a whole line"); }
    size_t start = all.len - 1;
    while (start > 0 && all.p[start - 1] != '\n') start--;
    line->len = 0;
    buf_add(line, all.p + start, all.len - start);
    free(all.p);
}

static double pct_d(const double *sorted, size_t n, double p) {
    size_t i = (size_t)(p * (double)n + 0.999999);
    if (i < 1) i = 1;
    if (i > n) i = n;
    return sorted[i - 1];
}
static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Prints ",\"PFX_mean_us\":..,\"PFX_p50_us\":.." etc. of `n` latencies (sorted in place). */
static void print_dist(const char *pfx, uint64_t *t, long n) {
    double sum = 0;
    for (long i = 0; i < n; i++) sum += (double)t[i];
    qsort(t, (size_t)n, sizeof *t, cmp_u64);
    printf(",\"%s_mean_us\":%.2f,\"%s_p50_us\":%.2f,\"%s_p90_us\":%.2f,\"%s_p99_us\":%.2f,\"%s_p999_us\":%.2f,"
           "\"%s_min_us\":%.2f,\"%s_max_us\":%.2f",
           pfx, sum / (double)n / 1e3, pfx, pct(t, (size_t)n, .5) / 1e3, pfx, pct(t, (size_t)n, .9) / 1e3,
           pfx, pct(t, (size_t)n, .99) / 1e3, pfx, pct(t, (size_t)n, .999) / 1e3, pfx, (double)t[0] / 1e3,
           pfx, (double)t[n - 1] / 1e3);
}

/* append1, paired (see "storage and session phases"): 2 × --append-warmup + --append-runs
 * prepared requests b[off[i]..off[i+1]): the first --append-warmup sent alone, the next
 * --append-warmup in unmeasured pairs, the rest in measured pairs. */
static void append1_paired(const char *sid, buf_t *b, size_t *off) {
    long warm = g_append_warmup, n = g_append_runs, total = 2 * warm + n;
    const char *body; size_t bl;
    long errors = 0;
    size_t resp_bytes = 0;
    for (long i = 0; i < warm; i++) { /* server alone: the journal gets its steady-state records */
        if ((i & 15) == 0) watchdog();
        write_all(g_child->wfd, b->p + off[i], off[i + 1] - off[i]);
        read_response(g_reader, &body, &bl);
        if (is_error(body, bl)) { errors++; keep_sample(body, bl); }
    }
    alarm(0);
    buf_t line = {0};
    if (warm > 0) journal_last_line(sid, &line);
    else { errno = 0; die_server("append1 paired needs --append-warmup of at least 1"); }
    int fd = open(g_append_baseline, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) die_server("append1: cannot open --append-baseline");
    uint64_t *ts = malloc(sizeof(uint64_t) * (size_t)n), *tc = malloc(sizeof(uint64_t) * (size_t)n);
    double *ratio = malloc(sizeof(double) * (size_t)n), *ratio_s = malloc(sizeof(double) * (size_t)n),
           *ratio_c = malloc(sizeof(double) * (size_t)n);
    long ns = 0, nc = 0;
    uint64_t t_begin = 0;
    for (long i = warm; i < total; i++) {
        if ((i & 15) == 0) watchdog();
        long k = i - 2 * warm; /* measured pair index when >= 0 */
        if (k == 0) t_begin = now_ns();
        int server_first = ((i - warm) & 1) == 0;
        uint64_t s = 0, c = 0;
        for (int step = 0; step < 2; step++) {
            if ((step == 0) == server_first) {
                uint64_t t0 = now_ns();
                write_all(g_child->wfd, b->p + off[i], off[i + 1] - off[i]);
                read_response(g_reader, &body, &bl);
                s = now_ns() - t0;
                if (is_error(body, bl)) { errors++; keep_sample(body, bl); }
                if (i == warm) { if (!errors) keep_sample(body, bl); resp_bytes = bl; }
            } else {
                uint64_t t0 = now_ns();
                for (size_t done = 0; done < line.len;) {
                    ssize_t w = write(fd, line.p + done, line.len - done);
                    if (w < 0 && errno == EINTR) continue;
                    if (w < 0) die_server("append1: write to --append-baseline failed");
                    done += (size_t)w;
                }
                if (fsync(fd)) die_server("append1: fsync of --append-baseline failed");
                c = now_ns() - t0;
            }
        }
        if (k < 0) continue;
        ts[k] = s;
        tc[k] = c;
        ratio[k] = (double)s / (double)c;
        if (server_first) ratio_s[ns++] = ratio[k]; else ratio_c[nc++] = ratio[k];
    }
    uint64_t t_end = now_ns();
    alarm(0);
    close(fd);
    buf_t last = {0};
    journal_last_line(sid, &last); /* a measured record, to show the bytes compared are alike */
    qsort(ratio, (size_t)n, sizeof *ratio, cmp_d);
    qsort(ratio_s, (size_t)ns, sizeof *ratio_s, cmp_d);
    qsort(ratio_c, (size_t)nc, sizeof *ratio_c, cmp_d);
    line_begin("append1_paired");
    printf(",\"n\":%ld,\"warmup\":%ld,\"warmup_pairs\":%ld,\"order\":\"alternating\",\"request_bytes\":%zu,"
           "\"response_bytes\":%zu,\"line_bytes\":%zu,\"last_line_bytes\":%zu,\"errors\":%ld,\"seconds\":%.3f",
           n, warm, warm, off[1] - off[0], resp_bytes, line.len, last.len, errors, (double)(t_end - t_begin) / 1e9);
    print_dist("server", ts, n);
    print_dist("c", tc, n);
    double p50s = pct(ts, (size_t)n, .5), p50c = pct(tc, (size_t)n, .5);
    printf(",\"ratio_of_p50\":%.4f,\"pair_ratio_p10\":%.4f,\"pair_ratio_p50\":%.4f,\"pair_ratio_p90\":%.4f,"
           "\"pair_ratio_p50_server_first\":%.4f,\"pair_ratio_p50_c_first\":%.4f",
           p50s / p50c, pct_d(ratio, (size_t)n, .1), pct_d(ratio, (size_t)n, .5), pct_d(ratio, (size_t)n, .9),
           ns ? pct_d(ratio_s, (size_t)ns, .5) : 0, nc ? pct_d(ratio_c, (size_t)nc, .5) : 0);
    print_sample();
    line_end();
    free(ts); free(tc); free(ratio); free(ratio_s); free(ratio_c); free(line.p); free(last.p);
}

static void phase_append1(void) {
    g_phase = "append1";
    char sid[128];
    create_session("append benchmark", sid, sizeof sid);
    write_id_file(sid);
    /* paired: the server-only warm-up, then as many unmeasured pairs, then the measured ones */
    long total = (g_append_baseline ? 2 * g_append_warmup : g_append_warmup) + g_append_runs;
    char *text = malloc((size_t)g_msg_bytes + 1);
    buf_t b = {0}, p = {0};
    size_t *off = malloc(sizeof(size_t) * (size_t)(total + 1));
    for (long i = 0; i < total; i++) {
        message_text(text, g_msg_bytes, i);
        p.len = 0;
        buf_add(&p, "{\"id\":\"", 7);
        buf_add(&p, sid, strlen(sid));
        buf_add(&p, "\",\"messages\":[", 14);
        add_message_json(&p, "a", i, text);
        buf_add(&p, "]}", 2);
        off[i] = b.len;
        add_request(&b, 21000000 + i, "session/appendMessages", p.p, p.len);
    }
    off[total] = b.len;
    g_sent_desc = "session/appendMessages of one message, one at a time";
    if (g_append_baseline) append1_paired(sid, &b, off);
    else rtt_loop("append1", &b, off, g_append_warmup, g_append_runs, 15);
    free(off); free(b.p); free(p.p); free(text);
}

static void phase_recover_setup(void) {
    g_phase = "recover-setup";
    char sid[128];
    create_session("recovery benchmark", sid, sizeof sid);
    char *text = malloc((size_t)g_msg_bytes + 1);
    buf_t p = {0};
    const char *body; size_t bl;
    long stored = 0, calls = 0;
    uint64_t t0 = now_ns();
    for (long i = 0; i < g_recover_messages; i += g_recover_batch) {
        p.len = 0;
        buf_add(&p, "{\"id\":\"", 7);
        buf_add(&p, sid, strlen(sid));
        buf_add(&p, "\",\"messages\":[", 14);
        for (long k = i; k < i + g_recover_batch && k < g_recover_messages; k++) {
            if (k > i) buf_add(&p, ",", 1);
            message_text(text, g_msg_bytes, k);
            add_message_json(&p, "r", k, text);
        }
        buf_add(&p, "]}", 2);
        buf_add(&p, "", 1); /* NUL for call() */
        call("session/appendMessages", p.p, &body, &bl, 1);
        long long c = field_int(body, bl, "\"count\":");
        if (c > 0) stored += c;
        calls++;
    }
    double s = (double)(now_ns() - t0) / 1e9;
    write_id_file(sid);
    line_begin("recover_setup");
    printf(",\"session\":\"%s\",\"messages\":%ld,\"stored\":%ld,\"batch\":%ld,\"calls\":%ld,\"msg_bytes\":%ld,"
           "\"seconds\":%.4f,\"messages_per_s\":%.0f",
           sid, g_recover_messages, stored, g_recover_batch, calls, g_msg_bytes, s, (double)stored / s);
    line_end();
    free(p.p); free(text);
}

static void phase_recover(void) {
    g_phase = "recover";
    char sid[128] = "";
    FILE *f = g_id_file ? fopen(g_id_file, "r") : NULL;
    if (!f || !fgets(sid, sizeof sid, f)) { fprintf(stderr, "recover needs --id-file written by recover-setup\n"); exit(2); }
    fclose(f);
    sid[strcspn(sid, "\r\n")] = 0;
    char params[256];
    const char *body; size_t bl;
    snprintf(params, sizeof params, "{\"id\":\"%s\"}", sid);
    uint64_t tg = call("session/get", params, &body, &bl, 1);
    char state[64] = "";
    field_str(body, bl, "\"state\":\"", state, sizeof state);
    snprintf(params, sizeof params, "{\"id\":\"%s\",\"limit\":1}", sid);
    uint64_t tm = call("session/messages", params, &body, &bl, 1);
    long got = count_occ(body, bl, "\"role\":");
    keep_sample(body, bl > 400 ? 400 : bl);
    line_begin("recover");
    printf(",\"session\":\"%s\",\"state\":\"%s\",\"init_ms\":%.3f,\"get_ms\":%.3f,\"messages_ms\":%.3f,\"total_ms\":%.3f,"
           "\"messages_returned\":%ld",
           sid, state, g_init_ms, (double)tg / 1e6, (double)tm / 1e6, (double)(tg + tm) / 1e6, got);
    print_sample();
    line_end();
}

static void phase_background(void) {
    g_phase = "background";
    long n = g_bg_sessions;
    char (*ids)[64] = malloc(64 * (size_t)n);
    uint64_t *tc = malloc(sizeof(uint64_t) * (size_t)n), *tt = malloc(sizeof(uint64_t) * (size_t)n);
    const char *body; size_t bl;
    char params[256];
    for (long i = 0; i < n; i++) {
        snprintf(params, sizeof params, "{\"title\":\"background %ld\"}", i);
        tc[i] = call("session/create", params, &body, &bl, 1);
        if (!field_str(body, bl, "\"id\":\"", ids[i], 64)) { keep_sample(body, bl); errno = 0; die_server("session/create: no id"); }
    }
    for (long i = 0; i < n; i++) {
        snprintf(params, sizeof params, "{\"id\":\"%s\",\"to\":\"running\"}", ids[i]);
        tt[i] = call("session/transition", params, &body, &bl, 1);
    }
    int saved = g_timeout;
    if (g_timeout < 120) g_timeout = 120;
    uint64_t tb = call("host/didEnterBackground", "{}", &body, &bl, 1);
    g_timeout = saved;
    long backgrounded = count_occ(body, bl, "\"state\":\"backgrounded\"");
    keep_sample(body, bl > 300 ? 300 : bl);
    qsort(tc, (size_t)n, sizeof *tc, cmp_u64);
    qsort(tt, (size_t)n, sizeof *tt, cmp_u64);
    line_begin("background");
    printf(",\"sessions\":%ld,\"init_ms\":%.3f,\"create_p50_ms\":%.3f,\"create_p99_ms\":%.3f,\"transition_p50_ms\":%.3f,"
           "\"transition_p99_ms\":%.3f,\"background_ms\":%.3f,\"backgrounded\":%ld,\"response_bytes\":%zu",
           n, g_init_ms, pct(tc, (size_t)n, .5) / 1e6, pct(tc, (size_t)n, .99) / 1e6, pct(tt, (size_t)n, .5) / 1e6,
           pct(tt, (size_t)n, .99) / 1e6, (double)tb / 1e6, backgrounded, bl);
    print_sample();
    line_end();
    free(ids); free(tc); free(tt);
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
    const char *blob_sizes = "1048576";
    long blob_runs = 50;
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
        else if (!strcmp(a, "--blob-bytes")) blob_sizes = v;
        else if (!strcmp(a, "--blob-runs")) blob_runs = atol(v);
        else if (!strcmp(a, "--timeout")) g_timeout = atoi(v);
        else if (!strcmp(a, "--child-stderr")) g_child_stderr = v;
        else if (!strcmp(a, "--ws-file")) g_ws_file = v;
        else if (!strcmp(a, "--save-runs")) g_save_runs = atol(v);
        else if (!strcmp(a, "--passes")) g_passes = atol(v);
        else if (!strcmp(a, "--warm-passes")) g_warm_passes = atol(v);
        else if (!strcmp(a, "--range-path")) g_range_path = v;
        else if (!strcmp(a, "--range-total")) g_range_total = atol(v);
        else if (!strcmp(a, "--range-bytes")) g_range_bytes = atol(v);
        else if (!strcmp(a, "--encoding")) g_encoding = v;
        else if (!strcmp(a, "--list-path")) g_list_path = v;
        else if (!strcmp(a, "--list-limit")) g_list_limit = atol(v);
        else if (!strcmp(a, "--search-query")) g_search_query = v;
        else if (!strcmp(a, "--search-regex")) g_search_regex = atoi(v);
        else if (!strcmp(a, "--search-path")) g_search_path = v;
        else if (!strcmp(a, "--search-max")) g_search_max = atol(v);
        else if (!strcmp(a, "--search-case")) g_search_case = v;
        else if (!strcmp(a, "--import-source")) g_import_source = v;
        else if (!strcmp(a, "--import-path")) g_import_path = v;
        else if (!strcmp(a, "--migrate-to")) g_migrate_to = v;
        else if (!strcmp(a, "--migrate-mode")) g_migrate_mode = v;
        else if (!strcmp(a, "--info-runs")) g_info_runs = atol(v);
        else if (!strcmp(a, "--append-runs")) g_append_runs = atol(v);
        else if (!strcmp(a, "--append-warmup")) g_append_warmup = atol(v);
        else if (!strcmp(a, "--append-sessions-dir")) g_append_sessions_dir = v;
        else if (!strcmp(a, "--append-baseline")) g_append_baseline = v;
        else if (!strcmp(a, "--msg-bytes")) g_msg_bytes = atol(v);
        else if (!strcmp(a, "--recover-messages")) g_recover_messages = atol(v);
        else if (!strcmp(a, "--recover-batch")) g_recover_batch = atol(v);
        else if (!strcmp(a, "--id-file")) g_id_file = v;
        else if (!strcmp(a, "--bg-sessions")) g_bg_sessions = atol(v);
        else { fprintf(stderr, "unknown option %s\n", a); return 2; }
    }
    if (i >= argc || rtt < 1 || pipe_total < 1 || pipe_window < 1 || spawn_runs < 1 || blob_runs < 1
        || g_save_runs < 1 || g_passes < 1 || g_warm_passes < 0 || g_range_bytes < 1 || g_list_limit < 1
        || g_info_runs < 1 || g_append_runs < 1 || g_append_warmup < 0 || g_msg_bytes < 1 || g_msg_bytes > 1000000
        || g_recover_messages < 1 || g_recover_batch < 1 || g_bg_sessions < 1
        || !g_append_baseline != !g_append_sessions_dir || (g_append_baseline && g_append_warmup < 1)) {
        fprintf(stderr, "usage: bench_client [options] -- COMMAND [ARGS...]\n");
        return 2;
    }
    g_cmd = argv + i;
    signal(SIGPIPE, SIG_IGN);
    signal(SIGALRM, on_alarm);

    static const char *session_tests[] = {"rtt", "pipe", "blob", "load4k", "save4k", "echo4k", "range", "list",
                                           "search", "import", "migrate", "storageinfo", "append1",
                                           "recover-setup", "recover", "background", NULL};
    int need_session = 0;
    for (const char **t = session_tests; *t; t++) need_session |= has_test(tests, *t);
    if (need_session) {
        g_phase = "initialize";
        child_t c;
        uint64_t t_spawn = now_ns();
        if (spawn_child(&c)) return 2;
        g_child = &c;
        reader_t r;
        reader_init(&r, c.rfd);
        g_reader = &r;
        do_initialize(&c, &r);
        g_init_ms = (double)(now_ns() - t_spawn) / 1e6;
        if (has_test(tests, "rtt")) phase_rtt(&c, &r, warm, rtt);
        if (has_test(tests, "pipe")) phase_pipe(&c, &r, pipe_total, pipe_window);
        if (has_test(tests, "blob")) {
            for (const char *p = blob_sizes; *p;) {
                char *e;
                long n = strtol(p, &e, 10);
                if (n < 1 || e == p) { fprintf(stderr, "bad --blob-bytes %s\n", blob_sizes); return 2; }
                long more = (16L << 20) / n;
                phase_blob(&c, &r, n, more > blob_runs ? (more < 2000 ? more : 2000) : blob_runs);
                p = *e == ',' ? e + 1 : e;
            }
        }
        if (has_test(tests, "echo4k")) phase_save_or_echo4k("echo4k", warm, rtt);
        if (has_test(tests, "load4k")) phase_load4k(warm, rtt);
        if (has_test(tests, "save4k")) phase_save_or_echo4k("save4k", 20, g_save_runs);
        if (has_test(tests, "range")) phase_range();
        if (has_test(tests, "list")) phase_list();
        if (has_test(tests, "search")) phase_search();
        if (has_test(tests, "import")) phase_import();
        if (has_test(tests, "migrate")) phase_migrate();
        if (has_test(tests, "storageinfo")) phase_storageinfo();
        if (has_test(tests, "append1")) phase_append1();
        if (has_test(tests, "recover-setup")) phase_recover_setup();
        if (has_test(tests, "recover")) phase_recover();
        if (has_test(tests, "background")) phase_background();
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
