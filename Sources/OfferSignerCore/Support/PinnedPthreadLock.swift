/// A pthread lock object (a mutex or a read-write lock) in memory of its own, allocated once,
/// so its address never changes: POSIX forbids moving or copying an initialised lock, and `&`
/// of a stored property promises no stable address. Its owner destroys it in `deinit`.
struct PinnedPthreadLock<Lock> {
    let pointer: UnsafeMutablePointer<Lock>

    /// Allocates `empty` and initialises it in place with `initialise` (`pthread_mutex_init`…).
    init(_ empty: Lock, initialise: (UnsafeMutablePointer<Lock>) -> Int32) {
        pointer = UnsafeMutablePointer<Lock>.allocate(capacity: 1)
        pointer.initialize(to: empty)
        _ = initialise(pointer)
    }

    /// Destroys the lock with `destroy` (`pthread_mutex_destroy`…) and frees its memory.
    func destroy(with destroy: (UnsafeMutablePointer<Lock>) -> Int32) {
        _ = destroy(pointer)
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }
}
