// glibc's allocator settings (mallopt), which the Glibc module does not carry.
#include <malloc.h>
