#ifndef WB_CPCRE2_SHIM_H
#define WB_CPCRE2_SHIM_H
/* The 8-bit (UTF-8) library only: its functions are the `_8` names (the unsuffixed ones are
   function-like macros, which do not import into Swift). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

/* PCRE2_ZERO_TERMINATED is a cast expression, which does not import. */
static inline PCRE2_SIZE wb_pcre2_unset(void) { return PCRE2_UNSET; }

#endif
