import Foundation

/// A value behind a plain (non-priority-inheritance) `pthread_mutex_t`, with `Mutex`'s
/// `withLock` shape. For the few locks every request thread takes in turn (the reader pool,
/// the group committer's queue, the metrics): Swift's `Mutex` is a priority-inheritance futex
/// on Linux, whose contended path goes through the kernel's rt-mutex code, and under the sign
/// load those threads then spent their time queueing in the kernel (seen with `perf record`).
public final class PlainMutex<Value>: @unchecked Sendable {
    // @unchecked: `value` is touched only between pthread_mutex_lock and pthread_mutex_unlock.
    private var mutex = pthread_mutex_t()
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        pthread_mutex_init(&mutex, nil)
    }

    deinit { pthread_mutex_destroy(&mutex) }

    /// Runs `body` with the value, holding the lock.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return try body(&value)
    }
}
