import Foundation

/// A value read by every request and replaced rarely (the key configuration, the offer rules
/// in memory). Readers share a `pthread_rwlock_t` and never wait for each other, so the
/// request threads do not queue on it as they would on a `Mutex` (a priority-inheritance
/// futex on Linux, which sends every contended acquisition through the kernel); a writer
/// waits for the readers in flight. The lock is a ``PinnedPthreadLock``, so its address never
/// changes.
public final class ReadMostly<Value: Sendable>: @unchecked Sendable {
    // @unchecked: owns a pthread rwlock; `value` is read only under the read lock and written only under the write lock.
    private let lock = PinnedPthreadLock(pthread_rwlock_t(), initialise: { pthread_rwlock_init($0, nil) },
                                         destroy: pthread_rwlock_destroy)
    private var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    /// The value now.
    public func read() -> Value {
        pthread_rwlock_rdlock(lock.pointer)
        defer { pthread_rwlock_unlock(lock.pointer) }
        return value
    }

    /// Reads a part of the value without copying the rest.
    public func read<Part>(_ body: (Value) throws -> Part) rethrows -> Part {
        pthread_rwlock_rdlock(lock.pointer)
        defer { pthread_rwlock_unlock(lock.pointer) }
        return try body(value)
    }

    /// Changes the value; readers see it whole, before or after.
    public func write<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_rwlock_wrlock(lock.pointer)
        defer { pthread_rwlock_unlock(lock.pointer) }
        return try body(&value)
    }
}
