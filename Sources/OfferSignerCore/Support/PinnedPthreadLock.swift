/// A pthread lock object (a mutex or a read-write lock) in memory of its own, allocated once,
/// so its address never changes: POSIX forbids moving or copying an initialised lock, and `&`
/// of a stored property promises no stable address. Not copyable: it is destroyed and freed
/// exactly once, with its owner.
struct PinnedPthreadLock<Lock>: ~Copyable {
    let pointer: UnsafeMutablePointer<Lock>
    private let destroy: (UnsafeMutablePointer<Lock>) -> Int32

    /// Allocates `empty`, initialises it in place with `initialise` (`pthread_mutex_init`…)
    /// and destroys it with `destroy` (`pthread_mutex_destroy`…) when it goes.
    init(_ empty: Lock, initialise: (UnsafeMutablePointer<Lock>) -> Int32,
         destroy: @escaping (UnsafeMutablePointer<Lock>) -> Int32) {
        pointer = UnsafeMutablePointer<Lock>.allocate(capacity: 1)
        pointer.initialize(to: empty)
        _ = initialise(pointer)
        self.destroy = destroy
    }

    deinit {
        _ = destroy(pointer)
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }
}
