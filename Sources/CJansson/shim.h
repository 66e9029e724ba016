#ifndef WB_CJANSSON_SHIM_H
#define WB_CJANSSON_SHIM_H
#include <jansson.h>

/* Function-like macros of jansson do not import into Swift; these shims do. */
static inline json_type wb_json_typeof(const json_t *j) { return json_typeof(j); }
static inline void wb_json_decref(json_t *j) { json_decref(j); }
static inline json_t *wb_json_incref(json_t *j) { return json_incref(j); }
static inline json_int_t wb_json_integer_value(const json_t *j) { return json_integer_value(j); }
/* jansson's null is one static value (never allocated, never freed, its reference count not
   counted): never NULL, so Swift gets a pointer, not an optional. It stands in for a value
   jansson could not allocate (JanssonTree). */
static inline json_t *_Nonnull wb_json_static_null(void) { return json_null(); }

/* Flag constants as plain ints (the macros import as Int32 but are clearer named here). */
static inline size_t wb_json_dump_flags(void) { return JSON_COMPACT | JSON_ENCODE_ANY; }
static inline size_t wb_json_load_flags(void) { return JSON_ALLOW_NUL | JSON_DECODE_ANY | JSON_REJECT_DUPLICATES; }
/* Stops after one value and reports the bytes it read in json_error_t.position (JSONStreamReader). */
static inline size_t wb_json_prefix_flag(void) { return JSON_DISABLE_EOF_CHECK; }

#endif
