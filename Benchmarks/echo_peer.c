/*
 * echo_peer: the floor. Reads whole frames from stdin and writes each one back to stdout,
 * byte for byte, with one write() per frame, as a server that answers every message would.
 * No JSON is parsed; "initialize", "ping", "shutdown" and "exit" are all simply echoed.
 * Exits 0 at end of input (or when stdout is gone).
 *
 *   echo_peer [--framing auto|lsp|ndjson]     (default auto: first non-blank byte '{' or
 *                                              '[' means ndjson, anything else lsp)
 *             [--blob]                         answer `debug/blob {bytes: N}` as the server
 *                                              does, without echoing it: see below
 *
 * --blob: the floor of the large-payload test. A frame holding "method":"debug/blob" is
 * answered with {"jsonrpc":"2.0","id":ID,"result":{"data":"..."}} where the string is N bytes
 * of the same text the server returns (quotes and newlines, escaped), so the answer has the
 * server's size; the escaped text is built once per N, and each answer is one writev() of its
 * frame header, its id prefix and that text. The id and N are found by a plain byte search
 * (`"id":` and `"bytes":`), not by parsing JSON.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/uio.h>
#include <unistd.h>

enum { AUTO = -1, LSP = 0, NDJSON = 1 };

static char *buf;
static size_t cap = 1 << 20, start, end, scan;

static void write_all(const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(1, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            exit(0); /* reader went away */
        }
        p += w;
        n -= (size_t)w;
    }
}

static void room(size_t want) {
    if (start == end) { start = end = scan = 0; }
    if (cap - end >= want) return;
    if (start > 0) {
        memmove(buf, buf + start, end - start);
        end -= start;
        start = 0;
    }
    while (cap - end < want) {
        cap *= 2;
        buf = realloc(buf, cap);
        if (!buf) exit(1);
    }
}

static const char *mem_icase(const char *h, size_t hl, const char *n) {
    size_t nl = strlen(n);
    for (size_t i = 0; i + nl <= hl; i++)
        if (strncasecmp(h + i, n, nl) == 0) return h + i;
    return NULL;
}

/* Length of the complete frame at buf[start..end), 0 if incomplete. */
static size_t frame_len(int framing) {
    char *p = buf + start;
    size_t avail = end - start;
    if (avail == 0) return 0;
    if (framing == NDJSON) {
        char *nl = memchr(p + scan, '\n', avail - scan);
        if (!nl) { scan = avail; return 0; }
        scan = 0;
        return (size_t)(nl - p) + 1;
    }
    char *e = memmem(p, avail, "\r\n\r\n", 4);
    if (!e) {
        if (avail > 8192) { fprintf(stderr, "echo_peer: header too long\n"); exit(1); }
        return 0;
    }
    size_t hl = (size_t)(e - p) + 4;
    const char *cl = mem_icase(p, hl, "content-length:");
    if (!cl) { fprintf(stderr, "echo_peer: no Content-Length\n"); exit(1); }
    size_t n = strtoull(cl + 15, NULL, 10);
    if (avail < hl + n) {
        if (cap - start < hl + n) room(hl + n - avail);
        return 0;
    }
    return hl + n;
}

/* --blob: the escaped text of the last size asked for. */
static char *blob_text;
static size_t blob_text_len, blob_size = (size_t)-1;

static void build_blob(size_t n) {
    static const char line[] = "The quick brown fox \"jumps\" over the lazy dog.\n";
    size_t ll = sizeof line - 1;
    free(blob_text);
    blob_text = malloc(n * 2 + 1);
    if (!blob_text) exit(1);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        char c = line[i % ll];
        if (c == '"') { blob_text[o++] = '\\'; blob_text[o++] = '"'; }
        else if (c == '\n') { blob_text[o++] = '\\'; blob_text[o++] = 'n'; }
        else blob_text[o++] = c;
    }
    blob_text_len = o;
    blob_size = n;
}

/* Answers the debug/blob frame f[0..l) (see the top of the file); 0 when it is not one. */
static int answer_blob(int framing, const char *f, size_t l) {
    static const char m[] = "\"method\":\"debug/blob\"";
    if (!memmem(f, l, m, sizeof m - 1)) return 0;
    const char *b = memmem(f, l, "\"bytes\":", 8), *id = memmem(f, l, "\"id\":", 5);
    if (!b || !id) return 0;
    size_t n = strtoull(b + 8, NULL, 10);
    long long idv = strtoll(id + 5, NULL, 10);
    if (n != blob_size) build_blob(n);
    char pre[128], tail[] = "\"}}\n";
    int pl = snprintf(pre, sizeof pre, "{\"jsonrpc\":\"2.0\",\"id\":%lld,\"result\":{\"data\":\"", idv);
    size_t body = (size_t)pl + blob_text_len + 3;
    char head[64];
    int hl = 0;
    if (framing == LSP) hl = snprintf(head, sizeof head, "Content-Length: %zu\r\n\r\n", body);
    struct iovec v[4] = {{head, (size_t)hl}, {pre, (size_t)pl}, {blob_text, blob_text_len},
                         {tail, framing == LSP ? 3 : 4}};
    size_t want = (size_t)hl + body + (framing == LSP ? 0 : 1);
    ssize_t w = writev(1, v, 4);
    if (w < 0 && errno != EINTR) exit(0);
    if (w < (ssize_t)want) {  /* the rest, in order */
        size_t done = w < 0 ? 0 : (size_t)w;
        for (int i = 0; i < 4; i++) {
            if (done >= v[i].iov_len) { done -= v[i].iov_len; continue; }
            write_all((const char *)v[i].iov_base + done, v[i].iov_len - done);
            done = 0;
        }
    }
    return 1;
}

int main(int argc, char **argv) {
    int framing = AUTO, blob = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--blob")) blob = 1;
        else if (!strcmp(argv[i], "--framing") && i + 1 < argc) {
            i++;
            if (!strcmp(argv[i], "lsp")) framing = LSP;
            else if (!strcmp(argv[i], "ndjson")) framing = NDJSON;
        }
    }
    signal(SIGPIPE, SIG_IGN);
    buf = malloc(cap);
    for (;;) {
        room(65536);
        ssize_t n = read(0, buf + end, cap - end);
        if (n < 0) {
            if (errno == EINTR) continue;
            return 1;
        }
        if (n == 0) return 0;
        end += (size_t)n;
        if (framing == AUTO) {
            size_t i = start;
            while (i < end && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n')) i++;
            if (i == end) continue;
            framing = (buf[i] == '{' || buf[i] == '[') ? NDJSON : LSP;
        }
        size_t l;
        while ((l = frame_len(framing)) > 0) {
            if (!blob || !answer_blob(framing, buf + start, l)) write_all(buf + start, l);
            start += l;
        }
    }
}
