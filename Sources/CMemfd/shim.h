// memfd_create, a GNU extension the Glibc module does not carry: anonymous
// shared memory with no name in any file system, so no tmpfs size limit
// (a container's /dev/shm is often 64 MB) can fail its pages later.
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/memfd.h>

static inline int CMemfd_create(const char *name) {
    return (int)syscall(SYS_memfd_create, name, MFD_CLOEXEC);
}
