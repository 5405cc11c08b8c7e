#ifndef CPIPEWIRE_SHIM_H
#define CPIPEWIRE_SHIM_H
#include <pipewire/pipewire.h>
#include <spa/param/video/format-utils.h>
#include <spa/param/props.h>
#include <spa/buffer/meta.h>
#include <spa/debug/types.h>
#endif
