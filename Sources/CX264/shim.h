#ifndef CX264_SHIM_H
#define CX264_SHIM_H
#include <stdint.h>
#include <x264.h>

/* x264_encoder_open is a macro that pastes the build number into the symbol
   name; Swift cannot call a macro, so this inline function does it. */
static inline x264_t *CX264_encoder_open(x264_param_t *param) {
    return x264_encoder_open(param);
}

static inline int CX264_build(void) { return X264_BUILD; }

#endif
