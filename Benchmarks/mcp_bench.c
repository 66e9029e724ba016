/*
 * mcp_bench: drives a stdio MCP server (newline-delimited JSON-RPC) through pipes with
 * pre-encoded requests, so the same minimal client measures WorkspaceBridge and a peer MCP
 * server alike. Prints one JSON object per measurement on stdout.
 *
 *   mcp_bench spawn [options] -- COMMAND [ARGS...]
 *       fork/exec, write `initialize`, until its answer (a line with "id":1) has arrived;
 *       --runs N measured runs (default 20) after --warmup N (default 2). After each run the
 *       child's stdin is closed and the child waited for (SIGKILL after 5 s), not timed.
 *   mcp_bench call [options] -- COMMAND [ARGS...]
 *       initialize + notifications/initialized (not timed), then sequential
 *       `tools/call` requests with the params given by --params JSON (the same bytes each
 *       time but the id): --warmup N (default 200) unmeasured, then --calls N (default 2000)
 *       measured, one in flight; round trips per second and per-call latency percentiles
 *       (p50, p90, p99, p99.9, max).
 *       --expect TEXT: the first answer must contain it (e.g. a snippet of the file read).
 *       An initialize answered with an error is retried in a new process (5 at most) and
 *       counted in "init_failures".
 *
 *   --modern             MCP's 2026-07-28 era: no handshake; every request (tools/call too) carries
 *                        the per-request `_meta` (protocol version, client capabilities and info).
 *                        spawn: `server/discover`, its answer, then one `tools/call` with --params,
 *                        timed until that call's answer (spawn -> first tool result). call:
 *                        `server/discover` (not timed) instead of initialize.
 *   --jsonrpc            WorkspaceBridge's LSP-style JSON-RPC face over the same pipes (ndjson framing):
 *                        `initialize` without MCP's protocolVersion, then `initialized`; with
 *                        --method, its own methods (e.g. `loadFile`) measured like tools/call.
 *   --method M           call: the request's method (default tools/call; e.g. ping with --params '{}',
 *                        resources/read with a uri, loadFile with --jsonrpc): the same measurement for any request
 *   --label NAME         "target" field of the output (default "server")
 *   --version V          protocolVersion sent in initialize (default 2025-06-18)
 *   --child-stderr PATH  the child's stderr (default /dev/null)
 *   --timeout S          seconds without an answer before giving up (default 30)
 *
 * Lines without "id" (notifications) and lines that are not JSON objects are skipped. An
 * answer is the line holding `"id":N` (or `"id": N`) for the request's N. Exit status: 0 when
 * the phase ran, 2 on usage errors, 3 when the server failed (reported as a JSON line with
 * "error").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *g_label = "server";
static const char *g_method = "tools/call";
static const char *g_version = "2025-06-18";
static const char *g_stderr = "/dev/null";
static const char *g_mode = "?";
static int g_timeout = 30;
static int g_modern = 0;
static int g_jsonrpc = 0;
static const char MODERN_META[] = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
    "\"io.modelcontextprotocol/clientCapabilities\":{},\"io.modelcontextprotocol/clientInfo\":{\"name\":\"mcp_bench\",\"version\":\"1\"}}";
static char **g_cmd;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void json_str(FILE *f, const char *s, size_t max) {
    fputc('"', f);
    for (size_t i = 0; s[i] && i < max; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

static void fail(const char *what, const char *sample) {
    printf("{\"test\":\"mcp_%s\",\"target\":", g_mode);
    json_str(stdout, g_label, 200);
    printf(",\"error\":");
    json_str(stdout, what, 500);
    if (sample) {
        printf(",\"sample\":");
        json_str(stdout, sample, 400);
    }
    printf("}\n");
    fflush(stdout);
    exit(3);
}

typedef struct {
    pid_t pid;
    int in, out;        /* our ends: child's stdin, child's stdout */
    char *buf;          /* bytes read from the child, not yet consumed */
    size_t len, cap, scan;
} child_t;

static void spawn(child_t *c) {
    int to[2], from[2];
    if (pipe2(to, O_CLOEXEC) || pipe2(from, O_CLOEXEC)) fail("pipe failed", NULL);
    pid_t pid = fork();
    if (pid < 0) fail("fork failed", NULL);
    if (pid == 0) {
        dup2(to[0], 0);
        dup2(from[1], 1);
        int e = open(g_stderr, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (e >= 0) dup2(e, 2);
        execvp(g_cmd[0], g_cmd);
        _exit(127);
    }
    close(to[0]);
    close(from[1]);
    c->pid = pid;
    c->in = to[1];
    c->out = from[0];
    c->len = c->scan = 0;
    if (!c->buf) {
        c->cap = 1 << 20;
        c->buf = malloc(c->cap);
    }
}

static void finish(child_t *c) {
    close(c->in);
    close(c->out);
    for (int i = 0; i < 500; i++) {
        if (waitpid(c->pid, NULL, WNOHANG) == c->pid) return;
        usleep(10000);
    }
    kill(c->pid, SIGKILL);
    waitpid(c->pid, NULL, 0);
}

static void write_all(child_t *c, const char *p, size_t n) {
    while (n) {
        ssize_t w = write(c->in, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            fail("write to the server failed", NULL);
        }
        p += w;
        n -= (size_t)w;
    }
}

/* Whether the line holds "id":N / "id": N for this N (not followed by a digit). */
static int has_id(const char *line, size_t n, long id) {
    char pat[32];
    int pl = snprintf(pat, sizeof pat, "%ld", id);
    const char *end = line + n;
    for (const char *p = memmem(line, n, "\"id\"", 4); p; p = memmem(p + 4, (size_t)(end - p - 4), "\"id\"", 4)) {
        const char *q = p + 4;
        while (q < end && (*q == ' ' || *q == ':')) q++;
        if (end - q >= pl && !memcmp(q, pat, (size_t)pl) && (q + pl == end || q[pl] < '0' || q[pl] > '9')) return 1;
        if (end - p <= 4) break;
    }
    return 0;
}

/* Reads until the answer to `id` arrives; returns it (valid until the next call), its length in *n. */
static const char *await_answer(child_t *c, long id, size_t *n) {
    /* drop what the previous call consumed */
    if (c->scan) {
        memmove(c->buf, c->buf + c->scan, c->len - c->scan);
        c->len -= c->scan;
        c->scan = 0;
    }
    size_t from = 0;
    for (;;) {
        char *nl;
        while ((nl = memchr(c->buf + from, '\n', c->len - from))) {
            size_t ln = (size_t)(nl - (c->buf + from));
            const char *line = c->buf + from;
            if (ln && line[0] == '{' && has_id(line, ln, id)) {
                c->scan = from + ln + 1;
                *n = ln;
                return line;
            }
            from += ln + 1;
        }
        if (from) {  /* skipped notifications / noise */
            memmove(c->buf, c->buf + from, c->len - from);
            c->len -= from;
            from = 0;
        }
        if (c->len == c->cap) {
            c->cap *= 2;
            c->buf = realloc(c->buf, c->cap);
        }
        struct pollfd pfd = {c->out, POLLIN, 0};
        int r = poll(&pfd, 1, g_timeout * 1000);
        if (r == 0) {
            c->buf[c->len < c->cap ? c->len : c->cap - 1] = 0;
            fail("timed out waiting for an answer", c->buf);
        }
        if (r < 0) {
            if (errno == EINTR) continue;
            fail("poll failed", NULL);
        }
        ssize_t got = read(c->out, c->buf + c->len, c->cap - c->len);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            c->buf[c->len < c->cap ? c->len : c->cap - 1] = 0;
            fail("the server closed its output", c->buf);
        }
        c->len += (size_t)got;
    }
}

/* The params object with the modern `_meta` first (params must be a JSON object). */
static char *modern_params(const char *params) {
    const char *p = params;
    while (*p == ' ') p++;
    if (*p != '{') exit(2);
    p++;
    while (*p == ' ') p++;
    char *s;
    if (asprintf(&s, "{%s%s%s", MODERN_META, *p == '}' ? "" : ",", p) < 0) exit(2);
    return s;
}

static char *initialize_line(void) {
    char *s;
    if (g_modern) {
        if (asprintf(&s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{%s}}\n", MODERN_META) < 0)
            exit(2);
        return s;
    }
    if (g_jsonrpc) {
        if (asprintf(&s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"processId\":null,"
                         "\"capabilities\":{},\"clientInfo\":{\"name\":\"mcp_bench\",\"version\":\"1\"}}}\n") < 0)
            exit(2);
        return s;
    }
    if (asprintf(&s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"%s\","
                     "\"capabilities\":{},\"clientInfo\":{\"name\":\"mcp_bench\",\"version\":\"1\"}}}\n", g_version) < 0)
        exit(2);
    return s;
}

static int is_error_answer(const char *line, size_t n) {
    return memmem(line, n, "\"error\":", 8) != NULL || memmem(line, n, "\"error\" :", 9) != NULL;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static double pct(uint64_t *sorted, long n, double p) {
    long i = (long)(p * (double)(n - 1) + 0.5);
    return (double)sorted[i];
}

static void print_head(const char *test) {
    printf("{\"test\":\"%s\",\"target\":", test);
    json_str(stdout, g_label, 200);
    printf(",\"command\":");
    json_str(stdout, g_cmd[0], 500);
}

static int run_spawn(long runs, long warmup, const char *params) {
    g_mode = "spawn";
    char *init = initialize_line();
    size_t init_len = strlen(init);
    char *call = NULL;
    if (params && asprintf(&call, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":%s}\n", params) < 0) exit(2);
    uint64_t *t = calloc((size_t)runs, sizeof *t);
    long errors = 0;
    child_t c = {0};
    for (long i = -warmup; i < runs; i++) {
        uint64_t t0 = now_ns();
        spawn(&c);
        write_all(&c, init, init_len);
        size_t n;
        const char *a = await_answer(&c, 1, &n);
        int bad = is_error_answer(a, n);
        if (call) {
            write_all(&c, call, strlen(call));
            a = await_answer(&c, 2, &n);
            bad = bad || is_error_answer(a, n) || memmem(a, n, "\"isError\":true", 14) != NULL;
        }
        uint64_t dt = now_ns() - t0;
        if (i >= 0) {
            t[i] = dt;
            if (bad) errors++;
        }
        finish(&c);
    }
    qsort(t, (size_t)runs, sizeof *t, cmp_u64);
    print_head("mcp_spawn");
    printf(",\"era\":\"%s\",\"until\":\"%s\"", g_modern ? "2026-07-28" : g_version, call ? "first tool result" : "initialize answered");
    printf(",\"runs\":%ld,\"warmup\":%ld,\"median_ms\":%.3f,\"min_ms\":%.3f,\"p90_ms\":%.3f,\"max_ms\":%.3f,"
           "\"init_errors\":%ld,\"samples_ms\":[", runs, warmup, pct(t, runs, 0.5) / 1e6, (double)t[0] / 1e6,
           pct(t, runs, 0.9) / 1e6, (double)t[runs - 1] / 1e6, errors);
    for (long i = 0; i < runs; i++) printf("%s%.3f", i ? "," : "", (double)t[i] / 1e6);
    printf("]}\n");
    return 0;
}

static int run_call(long calls, long warmup, const char *params, const char *expect) {
    g_mode = "call";
    long total = warmup + calls;
    /* every request encoded before anything is timed */
    if (g_modern) params = modern_params(params);
    size_t plen = strlen(params);
    size_t slot = plen + strlen(g_method) + 96;
    char *reqs = malloc(slot * (size_t)total);
    size_t *off = malloc(sizeof *off * (size_t)(total + 1));
    size_t pos = 0;
    for (long i = 0; i < total; i++) {
        off[i] = pos;
        pos += (size_t)sprintf(reqs + pos, "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"%s\",\"params\":%s}\n",
                               i + 10, g_method, params);
    }
    off[total] = pos;
    static const char initialized[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";
    static const char lsp_initialized[] = "{\"jsonrpc\":\"2.0\",\"method\":\"initialized\",\"params\":{}}\n";
    char *init = initialize_line();

    /* an initialize that fails is retried (up to 5 processes), and counted: it is not what
       this phase measures, but the report says how often it happened */
    child_t c = {0};
    size_t n;
    const char *a;
    double init_ms = 0;
    long init_failures = 0;
    for (;;) {
        uint64_t t_spawn = now_ns();
        spawn(&c);
        write_all(&c, init, strlen(init));
        a = await_answer(&c, 1, &n);
        init_ms = (double)(now_ns() - t_spawn) / 1e6;
        if (!is_error_answer(a, n)) break;
        if (++init_failures == 5) {
            char *copy = strndup(a, n);
            fail("initialize failed 5 times", copy);
        }
        finish(&c);
    }
    if (g_jsonrpc) write_all(&c, lsp_initialized, sizeof lsp_initialized - 1);
    else if (!g_modern) write_all(&c, initialized, sizeof initialized - 1);

    uint64_t *lat = malloc(sizeof *lat * (size_t)calls);
    long bad = 0;
    size_t answer_bytes = 0;
    uint64_t t_start = 0;
    for (long i = 0; i < total; i++) {
        if (i == warmup) t_start = now_ns();
        uint64_t t0 = now_ns();
        write_all(&c, reqs + off[i], off[i + 1] - off[i]);
        a = await_answer(&c, i + 10, &n);
        uint64_t dt = now_ns() - t0;
        int ok = !is_error_answer(a, n) && !memmem(a, n, "\"isError\":true", 14) && !memmem(a, n, "\"isError\": true", 15);
        if (i == 0 && (!ok || (expect && !memmem(a, n, expect, strlen(expect))))) {
            char *copy = strndup(a, n);
            fail("the first answer is not the expected result", copy);
        }
        if (i >= warmup) {
            lat[i - warmup] = dt;
            answer_bytes += n + 1;
            if (!ok) bad++;
        }
    }
    double secs = (double)(now_ns() - t_start) / 1e9;
    finish(&c);
    qsort(lat, (size_t)calls, sizeof *lat, cmp_u64);
    print_head("mcp_call");
    printf(",\"era\":\"%s\",\"method\":", g_jsonrpc ? "jsonrpc" : g_modern ? "2026-07-28" : g_version);
    json_str(stdout, g_method, 200);
    printf(",\"calls\":%ld,\"warmup\":%ld,\"seconds\":%.4f,\"rate_per_s\":%.1f,\"p50_us\":%.1f,\"p90_us\":%.1f,"
           "\"p99_us\":%.1f,\"p999_us\":%.1f,\"max_us\":%.1f,\"errors\":%ld,\"answer_bytes\":%.0f,\"request_bytes\":%zu,\"init_ms\":%.3f,"
           "\"init_failures\":%ld,\"params\":",
           calls, warmup, secs, (double)calls / secs, pct(lat, calls, 0.5) / 1e3, pct(lat, calls, 0.9) / 1e3,
           pct(lat, calls, 0.99) / 1e3, pct(lat, calls, 0.999) / 1e3, (double)lat[calls - 1] / 1e3, bad, (double)answer_bytes / (double)calls,
           off[warmup + 1] - off[warmup], init_ms, init_failures);
    json_str(stdout, params, 1000);
    printf("}\n");
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) goto usage;
    const char *mode = argv[1];
    long runs = 20, warmup = -1, calls = 2000;
    const char *params = NULL, *expect = NULL;
    int i = 2;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) { i++; break; }
        if (!strcmp(a, "--modern")) { g_modern = 1; continue; }
        if (!strcmp(a, "--jsonrpc")) { g_jsonrpc = 1; continue; }
        if (i + 1 >= argc) goto usage;
        const char *v = argv[++i];
        if (!strcmp(a, "--label")) g_label = v;
        else if (!strcmp(a, "--method")) g_method = v;
        else if (!strcmp(a, "--version")) g_version = v;
        else if (!strcmp(a, "--child-stderr")) g_stderr = v;
        else if (!strcmp(a, "--timeout")) g_timeout = atoi(v);
        else if (!strcmp(a, "--runs")) runs = atol(v);
        else if (!strcmp(a, "--warmup")) warmup = atol(v);
        else if (!strcmp(a, "--calls")) calls = atol(v);
        else if (!strcmp(a, "--params")) params = v;
        else if (!strcmp(a, "--expect")) expect = v;
        else goto usage;
    }
    if (i >= argc || runs < 1 || calls < 1 || g_timeout < 1) goto usage;
    g_cmd = argv + i;
    signal(SIGPIPE, SIG_IGN);
    if (!strcmp(mode, "spawn") && (!g_modern || params)) return run_spawn(runs, warmup < 0 ? 2 : warmup, g_modern ? modern_params(params) : NULL);
    if (!strcmp(mode, "call") && params) return run_call(calls, warmup < 0 ? 200 : warmup, params, expect);
usage:
    fprintf(stderr, "usage: mcp_bench spawn|call [--label L] [--runs N] [--calls N] [--warmup N] [--params JSON] "
                    "[--expect TEXT] [--method M] [--version V] [--modern] [--jsonrpc] [--child-stderr PATH] [--timeout S] -- COMMAND [ARGS...]\n");
    return 2;
}
