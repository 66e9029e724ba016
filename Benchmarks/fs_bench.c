/*
 * fs_bench: the file-system side of the workspace file benchmarks (no server involved):
 * builds the trees the server is measured on, and measures the baselines it is compared with.
 * Prints one JSON object per measurement on stdout, like bench_client.
 *
 *   fs_bench gen-tree DIR FOLDERS FILES          DIR/dNNNN/fNNN.txt, small files (listing)
 *   fs_bench gen-text DIR FILES BYTES WORD EVERY DIR/dNN/tNNNNN.txt, BYTES of word lines each;
 *                                                WORD once in every EVERY-th file (search)
 *   fs_bench gen-file PATH BYTES text|random|text4k
 *                                                one file: the line of debug/blob repeated
 *                                                (quotes and newlines), pseudo-random bytes, or
 *                                                the line bench_client's 4 KiB saveFile repeats
 *   fs_bench fsync-loop --label L DIR RUNS       the crash-safe save done by hand, per op: open
 *                                                a temp file, write 4 KiB, fsync, close, rename
 *                                                over the target, fsync the folder
 *   fs_bench exec --label L --runs N [--warmup W] -- COMMAND [ARGS...]
 *                                                wall time of fork + exec + wait of COMMAND,
 *                                                per run (stdout to /dev/null)
 *   fs_bench gen-sizes DIR FILES TOTAL           FILES files of pseudo-random bytes, TOTAL bytes
 *                                                in all, sizes spread over four orders of
 *                                                magnitude (about log-uniform, 2,000 files of
 *                                                1 GiB: ~0.6 KB to ~5 MB, median ~50 KB),
 *                                                100 per folder: DIR/sNN/fNNNN.bin (migrate)
 *   fs_bench append-fsync --label L FILE RUNS LINEFILE
 *                                                the bare durable append, per op: write() of
 *                                                the line in LINEFILE (its last line, newline
 *                                                included) to FILE opened O_APPEND once, then
 *                                                fsync; 50 unmeasured first
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* bench_client's 4 KiB saveFile text is this line repeated (64 bytes, so exactly 64 times) */
#define SAVE_LINE "The workspace file benchmark writes this line, again and again.\n"

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void die(const char *what) {
    perror(what);
    exit(1);
}

static void write_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            die("write");
        }
        p += w;
        n -= (size_t)w;
    }
}

static void write_file(const char *path, const char *data, size_t n) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) die(path);
    write_all(fd, data, n);
    close(fd);
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static inline uint64_t next_rand(void) { /* xorshift64* */
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717ull;
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

/* One JSON line with the distribution of `n` per-op times (ns). */
static void report(const char *label, const char *test, uint64_t *t, size_t n, const char *extra) {
    qsort(t, n, sizeof *t, cmp_u64);
    double sum = 0;
    for (size_t i = 0; i < n; i++) sum += (double)t[i];
    printf("{\"target\":\"%s\",\"test\":\"%s\",\"n\":%zu,\"mean_ms\":%.4f,\"p50_ms\":%.4f,\"p90_ms\":%.4f,"
           "\"p99_ms\":%.4f,\"min_ms\":%.4f,\"max_ms\":%.4f%s",
           label, test, n, sum / (double)n / 1e6, pct(t, n, .5) / 1e6, pct(t, n, .9) / 1e6, pct(t, n, .99) / 1e6,
           (double)t[0] / 1e6, (double)t[n - 1] / 1e6, extra ? extra : "");
    if (n <= 20) {
        printf(",\"runs_ms\":[");
        for (size_t i = 0; i < n; i++) printf("%s%.4f", i ? "," : "", (double)t[i] / 1e6);
        printf("]");
    }
    printf("}\n");
    fflush(stdout);
}

static int gen_tree(const char *dir, long folders, long files) {
    char path[4096], data[64];
    if (mkdir(dir, 0755) && errno != EEXIST) die(dir);
    for (long d = 0; d < folders; d++) {
        snprintf(path, sizeof path, "%s/d%04ld", dir, d);
        if (mkdir(path, 0755) && errno != EEXIST) die(path);
        for (long f = 0; f < files; f++) {
            snprintf(path, sizeof path, "%s/d%04ld/f%03ld.txt", dir, d, f);
            int n = snprintf(data, sizeof data, "file %ld of folder %ld\n", f, d);
            write_file(path, data, (size_t)n);
        }
    }
    return 0;
}

static int gen_text(const char *dir, long files, long bytes, const char *word, long every) {
    static const char *vocab[] = {
        "the", "of", "and", "workspace", "file", "server", "request", "response", "agent", "journal",
        "research", "notes", "about", "which", "would", "their", "there", "could", "other", "into",
        "benchmark", "latency", "through", "before", "after", "folder", "listing", "search", "simple",
        "context", "message", "protocol", "result", "value", "string", "number", "object", "array",
    };
    const size_t nv = sizeof vocab / sizeof *vocab;
    char *buf = malloc((size_t)bytes + 256);
    char path[4096];
    if (mkdir(dir, 0755) && errno != EEXIST) die(dir);
    long per_folder = 100;
    for (long f = 0; f < files; f++) {
        if (f % per_folder == 0) {
            snprintf(path, sizeof path, "%s/d%03ld", dir, f / per_folder);
            if (mkdir(path, 0755) && errno != EEXIST) die(path);
        }
        size_t n = 0, col = 0;
        while (n < (size_t)bytes) {
            const char *w = vocab[next_rand() % nv];
            size_t wl = strlen(w);
            memcpy(buf + n, w, wl);
            n += wl;
            col += wl + 1;
            buf[n++] = col > 72 ? '\n' : ' ';
            if (col > 72) col = 0;
        }
        n = (size_t)bytes;
        buf[n - 1] = '\n';
        if (every > 0 && f % every == every / 2) {
            /* the rare word, in the middle of the file, on a line of its own */
            size_t at = n / 2, wl = strlen(word);
            while (at > 0 && buf[at - 1] != '\n') at--;
            if (at + wl + 1 < n) {
                memcpy(buf + at, word, wl);
                buf[at + wl] = '\n';
            }
        }
        snprintf(path, sizeof path, "%s/d%03ld/t%05ld.txt", dir, f / per_folder, f);
        write_file(path, buf, n);
    }
    free(buf);
    return 0;
}

static int gen_file(const char *path, long long bytes, const char *kind) {
    /* text: the line debug/blob returns and codec_bench measures jansson with */
    const char *line = "The quick brown fox \"jumps\" over the lazy dog.\n";
    if (!strcmp(kind, "text4k")) line = SAVE_LINE;
    else if (strcmp(kind, "text") && strcmp(kind, "random")) { fprintf(stderr, "bad kind %s\n", kind); exit(2); }
    const size_t chunk = 1 << 20, ll = strlen(line);
    char *buf = malloc(chunk);
    int text = strcmp(kind, "random") != 0;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) die(path);
    long long done = 0;
    while (done < bytes) {
        size_t n = (size_t)(bytes - done < (long long)chunk ? bytes - done : (long long)chunk);
        if (text)
            for (size_t i = 0; i < n; i++) buf[i] = line[(size_t)((done + (long long)i) % (long long)ll)];
        else
            for (size_t i = 0; i + 8 <= chunk; i += 8) {
                uint64_t v = next_rand();
                memcpy(buf + i, &v, 8);
            }
        write_all(fd, buf, n);
        done += (long long)n;
    }
    close(fd);
    free(buf);
    return 0;
}

static int gen_sizes(const char *dir, long files, long long total) {
    if (files < 1 || total < files) { fprintf(stderr, "gen-sizes: bad FILES or TOTAL\n"); exit(2); }
    double *w = malloc(sizeof(double) * (size_t)files), sum = 0;
    for (long i = 0; i < files; i++) {
        /* about log-uniform over [2^10, 2^23]: a power of two (each as likely), times 1 to 2 */
        double u = (double)(next_rand() >> 11) / 9007199254740992.0;
        w[i] = (double)(1ull << (10 + next_rand() % 13)) * (1.0 + u);
        sum += w[i];
    }
    long long *size = malloc(sizeof(long long) * (size_t)files), done = 0, biggest = 0;
    for (long i = 0; i < files; i++) {
        size[i] = (long long)((double)total * w[i] / sum);
        if (size[i] < 1) size[i] = 1;
        done += size[i];
        if (size[i] > size[biggest]) biggest = i;
    }
    size[biggest] += total - done; /* exactly TOTAL */
    const size_t chunk = 1 << 20;
    char *buf = malloc(chunk), path[4096];
    if (mkdir(dir, 0755) && errno != EEXIST) die(dir);
    for (long i = 0; i < files; i++) {
        if (i % 100 == 0) {
            snprintf(path, sizeof path, "%s/s%02ld", dir, i / 100);
            if (mkdir(path, 0755) && errno != EEXIST) die(path);
        }
        snprintf(path, sizeof path, "%s/s%02ld/f%04ld.bin", dir, i / 100, i);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0) die(path);
        for (long long left = size[i]; left > 0;) {
            size_t n = left < (long long)chunk ? (size_t)left : chunk;
            for (size_t k = 0; k < n; k += 8) {
                uint64_t v = next_rand();
                memcpy(buf + k, &v, n - k < 8 ? n - k : 8);
            }
            write_all(fd, buf, n);
            left -= (long long)n;
        }
        close(fd);
    }
    long long mn = size[0], mx = size[0];
    for (long i = 0; i < files; i++) { if (size[i] < mn) mn = size[i]; if (size[i] > mx) mx = size[i]; }
    qsort(size, (size_t)files, sizeof *size, cmp_u64); /* sizes are positive: same order */
    fprintf(stderr, "gen-sizes: %ld files, %lld bytes, min %lld, median %lld, max %lld\n", files, total, mn,
            size[files / 2], mx);
    printf("{\"target\":\"gen-sizes\",\"test\":\"gen_sizes\",\"files\":%ld,\"bytes\":%lld,\"min_bytes\":%lld,"
           "\"median_bytes\":%lld,\"max_bytes\":%lld}\n", files, total, mn, size[files / 2], mx);
    fflush(stdout);
    free(w); free(size); free(buf);
    return 0;
}

static int append_fsync(const char *label, const char *file, long runs, const char *linefile) {
    /* the last line of LINEFILE, newline included */
    int lf = open(linefile, O_RDONLY);
    if (lf < 0) die(linefile);
    static char data[1 << 20];
    ssize_t n = read(lf, data, sizeof data);
    close(lf);
    if (n <= 0) { fprintf(stderr, "append-fsync: %s is empty\n", linefile); exit(2); }
    size_t end = (size_t)n, start = end - 1; /* data[end-1] is the newline */
    while (start > 0 && data[start - 1] != '\n') start--;
    const char *line = data + start;
    size_t ll = end - start;
    int fd = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) die(file);
    long warm = 50;
    uint64_t *t = malloc(sizeof(uint64_t) * (size_t)runs);
    for (long i = 0; i < warm + runs; i++) {
        uint64_t t0 = now_ns();
        write_all(fd, line, ll);
        if (fsync(fd)) die("fsync");
        uint64_t t1 = now_ns();
        if (i >= warm) t[i - warm] = t1 - t0;
    }
    close(fd);
    char extra[64];
    snprintf(extra, sizeof extra, ",\"warmup\":50,\"bytes\":%zu", ll);
    report(label, "append_fsync", t, (size_t)runs, extra);
    free(t);
    return 0;
}

static int fsync_loop(const char *label, const char *dir, long runs) {
    char data[4096], tmp[4096], dst[4096];
    for (size_t i = 0; i < sizeof data; i++) data[i] = SAVE_LINE[i % strlen(SAVE_LINE)];
    snprintf(tmp, sizeof tmp, "%s/.file4k.tmp", dir);
    snprintf(dst, sizeof dst, "%s/file4k.txt", dir);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    if (dfd < 0) die(dir);
    long warm = 20;
    uint64_t *t = malloc(sizeof(uint64_t) * (size_t)runs);
    for (long i = 0; i < warm + runs; i++) {
        uint64_t t0 = now_ns();
        int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0) die(tmp);
        write_all(fd, data, sizeof data);
        if (fsync(fd)) die("fsync");
        close(fd);
        if (rename(tmp, dst)) die("rename");
        if (fsync(dfd)) die("fsync dir");
        uint64_t t1 = now_ns();
        if (i >= warm) t[i - warm] = t1 - t0;
    }
    close(dfd);
    report(label, "fsync_loop", t, (size_t)runs, ",\"warmup\":20,\"bytes\":4096");
    free(t);
    return 0;
}

static int exec_runs(const char *label, long runs, long warm, char **cmd) {
    uint64_t *t = malloc(sizeof(uint64_t) * (size_t)runs);
    int bad = 0, last_status = 0;
    for (long i = 0; i < warm + runs; i++) {
        uint64_t t0 = now_ns();
        pid_t pid = fork();
        if (pid < 0) die("fork");
        if (pid == 0) {
            int fd = open("/dev/null", O_WRONLY);
            if (fd >= 0) dup2(fd, 1);
            execvp(cmd[0], cmd);
            _exit(127);
        }
        int st = 0;
        waitpid(pid, &st, 0);
        uint64_t t1 = now_ns();
        if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0)) { bad++; last_status = st; }
        if (i >= warm) t[i - warm] = t1 - t0;
    }
    char extra[8192];
    int n = snprintf(extra, sizeof extra, ",\"warmup\":%ld,\"bad_exits\":%d,\"last_bad_status\":%d,\"command\":\"", warm, bad, last_status);
    for (char **a = cmd; *a && n < (int)sizeof extra - 600; a++)
        for (const char *c = *a; *c && n < (int)sizeof extra - 600; c++) {
            if (*c == '"' || *c == '\\') extra[n++] = '\\';
            extra[n++] = *c == '\n' ? ' ' : *c;
            if (!c[1] && a[1]) extra[n++] = ' ';
        }
    extra[n++] = '"';
    extra[n] = 0;
    report(label, "exec", t, (size_t)runs, extra);
    free(t);
    return bad ? 3 : 0;
}

static void usage(void) {
    fprintf(stderr, "usage: see the comment at the top of fs_bench.c\n");
    exit(2);
}

int main(int argc, char **argv) {
    if (argc < 2) usage();
    const char *cmd = argv[1];
    if (!strcmp(cmd, "gen-tree") && argc == 5) return gen_tree(argv[2], atol(argv[3]), atol(argv[4]));
    if (!strcmp(cmd, "gen-text") && argc == 7) return gen_text(argv[2], atol(argv[3]), atol(argv[4]), argv[5], atol(argv[6]));
    if (!strcmp(cmd, "gen-file") && argc == 5) return gen_file(argv[2], atoll(argv[3]), argv[4]);
    if (!strcmp(cmd, "gen-sizes") && argc == 5) return gen_sizes(argv[2], atol(argv[3]), atoll(argv[4]));
    if (!strcmp(cmd, "append-fsync") && argc == 7 && !strcmp(argv[2], "--label"))
        return append_fsync(argv[3], argv[4], atol(argv[5]), argv[6]);
    if (!strcmp(cmd, "fsync-loop") && argc == 6 && !strcmp(argv[2], "--label")) return fsync_loop(argv[3], argv[4], atol(argv[5]));
    if (!strcmp(cmd, "exec")) {
        const char *label = "baseline";
        long runs = 1, warm = 0;
        int i;
        for (i = 2; i < argc; i++) {
            if (!strcmp(argv[i], "--")) { i++; break; }
            if (i + 1 >= argc) usage();
            if (!strcmp(argv[i], "--label")) label = argv[++i];
            else if (!strcmp(argv[i], "--runs")) runs = atol(argv[++i]);
            else if (!strcmp(argv[i], "--warmup")) warm = atol(argv[++i]);
            else usage();
        }
        if (i >= argc || runs < 1) usage();
        return exec_runs(label, runs, warm, argv + i);
    }
    usage();
    return 2;
}
