import Foundation

/// A value behind a plain (non-priority-inheritance) `pthread_mutex_t`, with `Mutex`'s
/// `withLock` shape. For the few locks every request thread takes in turn (the reader pool,
/// the group committer's queue, the metrics): Swift's `Mutex` is a priority-inheritance futex
/// on Linux, whose contended path goes through the kernel's rt-mutex code, and under the sign
/// load those threads then spent their time queueing in the kernel (seen with `perf record`).
///
/// The `pthread_mutex_t` is a ``PinnedPthreadLock``, so its address never changes. Sendable
/// only when its value is.
public final class PlainMutex<Value> {
    private let mutex = PinnedPthreadLock(pthread_mutex_t(), initialise: { pthread_mutex_init($0, nil) },
                                          destroy: pthread_mutex_destroy)
    private var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, holding the lock.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex.pointer)
        defer { pthread_mutex_unlock(mutex.pointer) }
        return try body(&value)
    }
}

// @unchecked: owns a pthread mutex; `value` is touched only between pthread_mutex_lock and pthread_mutex_unlock.
extension PlainMutex: @unchecked Sendable where Value: Sendable {}
