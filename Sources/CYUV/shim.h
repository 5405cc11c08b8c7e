#ifndef CYUV_SHIM_H
#define CYUV_SHIM_H
/* libyuv ships no pkg-config file; its headers live in /usr/include. */
#include <libyuv.h>
#endif
