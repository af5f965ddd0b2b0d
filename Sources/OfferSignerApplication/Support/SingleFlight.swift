import Foundation
import OfferSignerCore
import Synchronization

/// Runs at most one call per key at a time: a caller whose key is already running waits for
/// that call and gets its result instead of running its own. (A repeated Retention Messaging
/// request that arrives while the first is being answered must not sign a second offer.)
package final class SingleFlight<Value: Sendable, Failure: Error>: Sendable {
    /// Taken by every retention request: a plain mutex, not Swift's priority-inheritance `Mutex`
    /// (whose contended path queues in the kernel; see `PlainMutex`).
    private let running = PlainMutex<[String: Call]>([:])

    /// One running call and, once it is done, its result (written once before `done.leave()`,
    /// read only after `done.wait()`, so its lock is never contended).
    private final class Call: Sendable {
        let done = DispatchGroup()
        let result = Mutex<Result<Value, Failure>?>(nil)
    }

    /// `body`'s result, or that of the call of `key` already running.
    func run(_ key: String, _ body: () throws(Failure) -> Value) throws(Failure) -> Value {
        let (call, leads) = running.withLock { running -> (Call, Bool) in
            if let call = running[key] { return (call, false) }
            let call = Call()
            call.done.enter()
            running[key] = call
            return (call, true)
        }
        guard leads else {
            call.done.wait()
            return try call.result.withLock { $0! }.get()
        }
        let result: Result<Value, Failure>
        do {
            result = .success(try body())
        } catch {
            result = .failure(error)
        }
        call.result.withLock { $0 = result }
        running.withLock { $0[key] = nil }
        call.done.leave()
        return try result.get()
    }
}
