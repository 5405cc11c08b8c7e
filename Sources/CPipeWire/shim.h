#ifndef CPIPEWIRE_SHIM_H
#define CPIPEWIRE_SHIM_H
#include <pipewire/pipewire.h>
#include <spa/param/video/format-utils.h>
#include <spa/param/props.h>
#include <spa/buffer/meta.h>
#include <spa/debug/types.h>
#include <spa/pod/builder.h>

/* Shims for what Swift cannot import: cast macros, string-concatenating
 * macros, and the variadic SPA pod builders. Each could go if the headers
 * exposed real constants or non-variadic builders. */

/* PW_ID_ANY is a cast macro. */
static inline uint32_t CPipeWire_ID_ANY(void) { return PW_ID_ANY; }

/* PW_TYPE_INTERFACE_Link is built by string concatenation. */
static inline const char *CPipeWire_TYPE_INTERFACE_Link(void) { return PW_TYPE_INTERFACE_Link; }

/* PW_DIRECTION_* are macros aliasing the SPA enum. */
static inline enum spa_direction CPipeWire_DIRECTION_INPUT(void) { return PW_DIRECTION_INPUT; }
static inline enum spa_direction CPipeWire_DIRECTION_OUTPUT(void) { return PW_DIRECTION_OUTPUT; }

/* An EnumFormat for raw video: `formats` offered in order of preference;
 * a fixed size when min == max; a framerate of `rate`/1, or when `rate` is 0
 * any framerate, preferring at most `max_rate`. Built into `buffer`; NULL if it did not fit. */
static inline const struct spa_pod *CPipeWire_build_video_formats(
    uint8_t *buffer, uint32_t size, const uint32_t *formats, uint32_t n_formats,
    struct spa_rectangle def_size, struct spa_rectangle min_size, struct spa_rectangle max_size,
    uint32_t rate, uint32_t max_rate)
{
    struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buffer, size);
    struct spa_pod_frame f[2];
    spa_pod_builder_push_object(&b, &f[0], SPA_TYPE_OBJECT_Format, SPA_PARAM_EnumFormat);
    spa_pod_builder_add(&b,
        SPA_FORMAT_mediaType, SPA_POD_Id(SPA_MEDIA_TYPE_video),
        SPA_FORMAT_mediaSubtype, SPA_POD_Id(SPA_MEDIA_SUBTYPE_raw), 0);
    spa_pod_builder_prop(&b, SPA_FORMAT_VIDEO_format, 0);
    if (n_formats == 1) {
        spa_pod_builder_id(&b, formats[0]);
    } else {
        spa_pod_builder_push_choice(&b, &f[1], SPA_CHOICE_Enum, 0);
        spa_pod_builder_id(&b, formats[0]);
        for (uint32_t i = 0; i < n_formats; i++) spa_pod_builder_id(&b, formats[i]);
        spa_pod_builder_pop(&b, &f[1]);
    }
    if (min_size.width == max_size.width && min_size.height == max_size.height) {
        spa_pod_builder_add(&b, SPA_FORMAT_VIDEO_size, SPA_POD_Rectangle(&def_size), 0);
    } else {
        spa_pod_builder_add(&b, SPA_FORMAT_VIDEO_size,
            SPA_POD_CHOICE_RANGE_Rectangle(&def_size, &min_size, &max_size), 0);
    }
    if (rate > 0) {
        spa_pod_builder_add(&b, SPA_FORMAT_VIDEO_framerate,
            SPA_POD_Fraction(&SPA_FRACTION(rate, 1)), 0);
    } else {
        /* Any rate is accepted (extra frames are dropped by the consumer);
         * max_rate is what it would like at most. */
        spa_pod_builder_add(&b,
            SPA_FORMAT_VIDEO_framerate, SPA_POD_CHOICE_RANGE_Fraction(
                &SPA_FRACTION(0, 1), &SPA_FRACTION(0, 1), &SPA_FRACTION(1000, 1)),
            SPA_FORMAT_VIDEO_maxFramerate, SPA_POD_CHOICE_RANGE_Fraction(
                &SPA_FRACTION(max_rate, 1), &SPA_FRACTION(0, 1), &SPA_FRACTION(max_rate, 1)), 0);
    }
    return (const struct spa_pod *)spa_pod_builder_pop(&b, &f[0]);
}

/* A Buffers param: a count range, one data block each, in shared memory
 * (MemFd or MemPtr). `frame_size`/`stride` of 0 leave them to the peer. */
static inline const struct spa_pod *CPipeWire_build_buffers(
    uint8_t *buffer, uint32_t size, int32_t def_count, int32_t min_count, int32_t max_count,
    int32_t frame_size, int32_t stride)
{
    struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buffer, size);
    struct spa_pod_frame f;
    spa_pod_builder_push_object(&b, &f, SPA_TYPE_OBJECT_ParamBuffers, SPA_PARAM_Buffers);
    spa_pod_builder_add(&b,
        SPA_PARAM_BUFFERS_buffers, SPA_POD_CHOICE_RANGE_Int(def_count, min_count, max_count),
        SPA_PARAM_BUFFERS_blocks, SPA_POD_Int(1),
        SPA_PARAM_BUFFERS_dataType, SPA_POD_CHOICE_FLAGS_Int((1 << SPA_DATA_MemFd) | (1 << SPA_DATA_MemPtr)),
        0);
    if (frame_size > 0) spa_pod_builder_add(&b, SPA_PARAM_BUFFERS_size, SPA_POD_Int(frame_size), 0);
    if (stride > 0) spa_pod_builder_add(&b, SPA_PARAM_BUFFERS_stride, SPA_POD_Int(stride), 0);
    return (const struct spa_pod *)spa_pod_builder_pop(&b, &f);
}

/* A Meta param of `type` whose size lies in [min_size, max_size]. */
static inline const struct spa_pod *CPipeWire_build_meta(
    uint8_t *buffer, uint32_t size, uint32_t type, int32_t def_size, int32_t min_size, int32_t max_size)
{
    struct spa_pod_builder b = SPA_POD_BUILDER_INIT(buffer, size);
    struct spa_pod_frame f;
    spa_pod_builder_push_object(&b, &f, SPA_TYPE_OBJECT_ParamMeta, SPA_PARAM_Meta);
    spa_pod_builder_add(&b, SPA_PARAM_META_type, SPA_POD_Id(type), 0);
    if (min_size == max_size) {
        spa_pod_builder_add(&b, SPA_PARAM_META_size, SPA_POD_Int(def_size), 0);
    } else {
        spa_pod_builder_add(&b, SPA_PARAM_META_size,
            SPA_POD_CHOICE_RANGE_Int(def_size, min_size, max_size), 0);
    }
    return (const struct spa_pod *)spa_pod_builder_pop(&b, &f);
}

/* Reads a negotiated raw video Format; 0 on success, negative errno if it is not raw video. */
static inline int CPipeWire_parse_video_format(
    const struct spa_pod *param, uint32_t *format, uint32_t *width, uint32_t *height,
    uint32_t *rate_num, uint32_t *rate_denom)
{
    uint32_t media_type, media_subtype;
    if (param == NULL || spa_format_parse(param, &media_type, &media_subtype) < 0) return -EINVAL;
    if (media_type != SPA_MEDIA_TYPE_video || media_subtype != SPA_MEDIA_SUBTYPE_raw) return -EINVAL;
    struct spa_video_info_raw info;
    spa_zero(info);
    int res = spa_format_video_raw_parse(param, &info);
    if (res < 0) return res;
    *format = info.format;
    *width = info.size.width;
    *height = info.size.height;
    *rate_num = info.framerate.num;
    *rate_denom = info.framerate.denom;
    return 0;
}

#endif
