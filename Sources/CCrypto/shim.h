#ifndef WB_CCRYPTO_SHIM_H
#define WB_CCRYPTO_SHIM_H
/* SHA-256 from the system's libcrypto (OpenSSL 3): uses SHA-NI / AVX2 where the CPU has them. */
#include <openssl/evp.h>
#endif
