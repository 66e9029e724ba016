/*
 * echo_peer: the floor. Reads whole frames from stdin and writes each one back to stdout,
 * byte for byte, with one write() per frame, as a server that answers every message would.
 * No JSON is parsed; "initialize", "ping", "shutdown" and "exit" are all simply echoed.
 * Exits 0 at end of input (or when stdout is gone).
 *
 *   echo_peer [--framing auto|lsp|ndjson]     (default auto: first non-blank byte '{' or
 *                                              '[' means ndjson, anything else lsp)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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

int main(int argc, char **argv) {
    int framing = AUTO;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--framing")) {
            if (!strcmp(argv[i + 1], "lsp")) framing = LSP;
            else if (!strcmp(argv[i + 1], "ndjson")) framing = NDJSON;
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
            write_all(buf + start, l);
            start += l;
        }
    }
}
