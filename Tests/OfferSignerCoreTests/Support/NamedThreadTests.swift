import Foundation
import Synchronization
import Testing
@testable import OfferSignerCore

@Suite("Named threads")
struct NamedThreadTests {
    /// The calling thread's name as the operating system shows it.
    static func osName() -> String? {
        (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?.trimmingCharacters(in: .newlines)
    }

    @Test("the operating system shows a thread's name (top -H, perf, /proc), cut to Linux's 15 bytes")
    func nameShows() {
        let seen = Mutex<Set<String>>([])
        let done = DispatchSemaphore(value: 0)
        for name in ["history-writer", "signature-log-writer"] {
            NamedThread.start(name, stackSize: 1 << 20) {
                if let shown = Self.osName() { seen.withLock { _ = $0.insert(shown) } }
                done.signal()
            }
        }
        #expect(done.wait(timeout: .now() + 10) == .success && done.wait(timeout: .now() + 10) == .success)
        #expect(seen.withLock { $0 } == ["history-writer", "signature-log-w"])
    }
}
