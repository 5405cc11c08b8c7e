#ifndef CAVCODEC_SHIM_H
#define CAVCODEC_SHIM_H
#include <libavcodec/avcodec.h>
#include <libavutil/frame.h>
#include <libavutil/error.h>
#include <libavutil/log.h>

/* AVERROR(EAGAIN) and AVERROR_EOF are macros Swift cannot import. */
static inline int CAVCodec_error_again(void) { return AVERROR(EAGAIN); }
static inline int CAVCodec_error_eof(void) { return AVERROR_EOF; }
#endif
