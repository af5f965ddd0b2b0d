import Foundation
import Synchronization

/// Reads a process's output as it comes (on a thread of its own), so a test can wait for a
/// line that says something happened instead of sleeping.
final class LogWatcher: Sendable {
    private let received = Mutex("")
    private let closed = Atomic<Bool>(false)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                received.withLock { $0 += String(decoding: data, as: UTF8.self) }
            }
            closed.store(true, ordering: .releasing)
        }
    }

    /// Everything read so far.
    var text: String { received.withLock { $0 } }

    /// Whether `fragment` appeared within `seconds` (false at once when the output ended without it).
    func wait(for fragment: String, seconds: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if text.contains(fragment) { return true }
            if closed.load(ordering: .acquiring) { return text.contains(fragment) }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return text.contains(fragment)
    }
}
