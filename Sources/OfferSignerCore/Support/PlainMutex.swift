import Foundation

/// A value behind a plain (non-priority-inheritance) `pthread_mutex_t`, with `Mutex`'s
/// `withLock` shape. For the few locks every request thread takes in turn (the reader pool,
/// the group committer's queue, the metrics): Swift's `Mutex` is a priority-inheritance futex
/// on Linux, whose contended path goes through the kernel's rt-mutex code, and under the sign
/// load those threads then spent their time queueing in the kernel (seen with `perf record`).
///
/// The `pthread_mutex_t` lives in memory of its own, allocated once, so its address never
/// changes (POSIX forbids moving or copying an initialised mutex; `&` of a stored property
/// promises no stable address). Sendable only when its value is.
public final class PlainMutex<Value> {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    public init(_ value: Value) {
        self.value = value
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock.
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}

// @unchecked: owns a pthread mutex; `value` is touched only between pthread_mutex_lock and pthread_mutex_unlock.
extension PlainMutex: @unchecked Sendable where Value: Sendable {}
