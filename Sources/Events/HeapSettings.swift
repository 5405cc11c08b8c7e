import CMalloc

/// glibc's allocator, set for a process that replaces its encoders and
/// decoders as it runs (docs/behaviour.md §11).
///
/// Each encoder generation allocates its frame buffers, megabytes each, on
/// threads of its own, which glibc spreads over up to eight arenas a core;
/// and its mmap threshold rises to the largest block freed, so later buffers
/// come from those arenas and stay there once freed. A one-hour soak's
/// senders grew 20–37 MiB that way, most of it in the first 20 minutes.
/// A fixed threshold gives every block over 128 KiB a mapping of its own,
/// returned when freed, and two arenas bound what the rest can hold: five
/// minutes of receiver restarts grew a sender 16 MiB before, 1.2 MiB after,
/// and its CPU per frame fell from 16.0–16.3 ms to 14.8.
public enum HeapSettings {
    public static func apply() {
        _ = mallopt(M_MMAP_THRESHOLD, 128 * 1024)
        _ = mallopt(M_ARENA_MAX, 2)
    }
}
