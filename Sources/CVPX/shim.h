#ifndef CVPX_SHIM_H
#define CVPX_SHIM_H
#include <vpx/vpx_encoder.h>
#include <vpx/vpx_decoder.h>
#include <vpx/vp8cx.h>
#include <vpx/vp8dx.h>

/* vpx_codec_enc_init and vpx_codec_dec_init are macros that pass the ABI
   version; Swift cannot call macros. */
static inline vpx_codec_err_t CVPX_enc_init(vpx_codec_ctx_t *ctx, const vpx_codec_enc_cfg_t *cfg, vpx_codec_flags_t flags) {
    return vpx_codec_enc_init(ctx, vpx_codec_vp8_cx(), cfg, flags);
}
static inline vpx_codec_err_t CVPX_dec_init(vpx_codec_ctx_t *ctx) {
    return vpx_codec_dec_init(ctx, vpx_codec_vp8_dx(), NULL, 0);
}
/* vpx_codec_control is a type-checking macro over variadic functions. */
static inline vpx_codec_err_t CVPX_control_int(vpx_codec_ctx_t *ctx, int id, int value) {
    return vpx_codec_control_(ctx, id, value);
}
#endif
