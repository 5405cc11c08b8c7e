#ifndef CSRTP_SHIM_H
#define CSRTP_SHIM_H
#include <srtp2/srtp.h>
#endif
