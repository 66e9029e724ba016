#ifndef WB_CJANSSON_SHIM_H
#define WB_CJANSSON_SHIM_H
#include <jansson.h>

/* Function-like macros of jansson do not import into Swift; these shims do. */
static inline json_type wb_json_typeof(const json_t *j) { return json_typeof(j); }
static inline void wb_json_decref(json_t *j) { json_decref(j); }
static inline json_t *wb_json_incref(json_t *j) { return json_incref(j); }
static inline json_int_t wb_json_integer_value(const json_t *j) { return json_integer_value(j); }

/* Flag constants as plain ints (the macros import as Int32 but are clearer named here). */
static inline size_t wb_json_dump_flags(void) { return JSON_COMPACT | JSON_ENCODE_ANY; }
static inline size_t wb_json_load_flags(void) { return JSON_ALLOW_NUL | JSON_DECODE_ANY | JSON_REJECT_DUPLICATES; }

/* A growable byte buffer that json_dump_callback appends to (see TextBuffer). */
#include <stdlib.h>
#include <string.h>
typedef struct { char *data; size_t length; size_t capacity; } wb_json_buffer;

/* Room for `size` more bytes at the end (not counted in `length`); NULL when out of memory. */
static inline char *wb_json_buffer_reserve(wb_json_buffer *b, size_t size) {
    if (size > b->capacity - b->length) {
        size_t capacity = b->capacity ? b->capacity : 4096;
        while (capacity - b->length < size) capacity *= 2;
        char *grown = (char *)realloc(b->data, capacity);
        if (!grown) return NULL;
        b->data = grown;
        b->capacity = capacity;
    }
    return b->data + b->length;
}

static int wb_json_buffer_append(const char *bytes, size_t size, void *context) {
    wb_json_buffer *b = (wb_json_buffer *)context;
    char *end = wb_json_buffer_reserve(b, size);
    if (!end) return -1;
    memcpy(end, bytes, size);
    b->length += size;
    return 0;
}

/* Appends the compact dump of `json` to `buffer`; 0 on success. */
static inline int wb_json_dump_append(const json_t *json, wb_json_buffer *buffer) {
    return json_dump_callback(json, wb_json_buffer_append, buffer, wb_json_dump_flags());
}
#endif
