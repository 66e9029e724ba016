#include "wb_shims.h"
#include <stdlib.h>

#if defined(__APPLE__)
#include <CommonCrypto/CommonDigest.h>

void *wb_sha256_new(void) {
    CC_SHA256_CTX *c = malloc(sizeof *c);
    if (c) CC_SHA256_Init(c);
    return c;
}
void wb_sha256_update(void *ctx, const void *bytes, unsigned long count) { CC_SHA256_Update(ctx, bytes, (CC_LONG)count); }
void wb_sha256_final(void *ctx, unsigned char *digest) { CC_SHA256_Final(digest, ctx); free(ctx); }
const char *wb_sha256_error(void) { return "out of memory"; }

#else
#include <dlfcn.h>
#include <pthread.h>

/* The few libcrypto (OpenSSL 1.1 / 3) entry points we use, resolved at first use. */
static struct {
    void *(*ctx_new)(void);
    void (*ctx_free)(void *);
    const void *(*sha256)(void);
    int (*init)(void *, const void *, void *);
    int (*update)(void *, const void *, size_t);
    int (*final)(void *, unsigned char *, unsigned int *);
    const char *error;
} crypto;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    const char *names[] = {"libcrypto.so.3", "libcrypto.so.1.1", "libcrypto.so"};
    void *h = NULL;
    for (unsigned i = 0; i < sizeof names / sizeof *names && !h; i++) h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) { crypto.error = "the system's libcrypto (OpenSSL) is not installed"; return; }
    crypto.ctx_new = (void *(*)(void))dlsym(h, "EVP_MD_CTX_new");
    crypto.ctx_free = (void (*)(void *))dlsym(h, "EVP_MD_CTX_free");
    crypto.sha256 = (const void *(*)(void))dlsym(h, "EVP_sha256");
    crypto.init = (int (*)(void *, const void *, void *))dlsym(h, "EVP_DigestInit_ex");
    crypto.update = (int (*)(void *, const void *, size_t))dlsym(h, "EVP_DigestUpdate");
    crypto.final = (int (*)(void *, unsigned char *, unsigned int *))dlsym(h, "EVP_DigestFinal_ex");
    if (!crypto.ctx_new || !crypto.ctx_free || !crypto.sha256 || !crypto.init || !crypto.update || !crypto.final) {
        crypto.ctx_new = NULL;
        crypto.error = "the system's libcrypto lacks the EVP digest functions";
    }
}

void *wb_sha256_new(void) {
    pthread_once(&once, load);
    if (!crypto.ctx_new) return NULL;
    void *c = crypto.ctx_new();
    if (c && crypto.init(c, crypto.sha256(), NULL) != 1) { crypto.ctx_free(c); return NULL; }
    return c;
}
void wb_sha256_update(void *ctx, const void *bytes, unsigned long count) { crypto.update(ctx, bytes, count); }
void wb_sha256_final(void *ctx, unsigned char *digest) {
    unsigned int len = 0;
    crypto.final(ctx, digest, &len);
    crypto.ctx_free(ctx);
}
const char *wb_sha256_error(void) { return crypto.error ? crypto.error : "libcrypto failed"; }
#endif
