#ifndef MRTD_CZLIB_SHIM_H
#define MRTD_CZLIB_SHIM_H
#include <zlib.h>

/* inflateInit2 is a macro: Swift cannot call it. Raw deflate (ZIP entries: window bits -15). */
static inline int mrtd_inflate_init_raw(z_stream *stream) {
    return inflateInit2(stream, -MAX_WBITS);
}
#endif
