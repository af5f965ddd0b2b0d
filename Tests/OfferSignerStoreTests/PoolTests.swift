import Foundation
import Synchronization
import Testing
@testable import OfferSignerStore

@Suite("Bounded pool")
struct PoolTests {
    /// A pooled element that knows which one it is.
    final class Token: Sendable {
        let id: Int
        init(id: Int) { self.id = id }
    }

    /// A pool of tokens numbered in the order they were made; `failFirst` makes the first
    /// attempt fail.
    final class Maker: Sendable {
        private let made = Mutex(0)
        private let failFirst: Bool
        init(failFirst: Bool = false) { self.failFirst = failFirst }

        var count: Int { made.withLock { $0 } }

        func make() throws -> Token {
            let id = made.withLock { count in
                count += 1
                return count
            }
            if failFirst && id == 1 { throw MakeFailed() }
            return Token(id: id)
        }
    }

    struct MakeFailed: Error {}

    @Test("many concurrent callers share at most `capacity` elements, made once and reused")
    func bounded() throws {
        let maker = Maker()
        let pool = Pool(capacity: 3) { try maker.make() }
        let holders = Mutex((now: 0, peak: 0))
        let seen = Mutex(Set<Int>())
        // Threads of their own, more than the cores: the pool, not the scheduler, must bound them.
        let group = DispatchGroup()
        for _ in 0..<12 {
            group.enter()
            Thread {
                for _ in 0..<5 {
                    let id = try? pool.use { token in
                        holders.withLock { $0.now += 1; $0.peak = max($0.peak, $0.now) }
                        Thread.sleep(forTimeInterval: 0.002)
                        holders.withLock { $0.now -= 1 }
                        return token.id
                    }
                    if let id { seen.withLock { _ = $0.insert(id) } }
                }
                group.leave()
            }.start()
        }
        #expect(group.wait(timeout: .now() + 30) == .success)
        #expect(holders.withLock { $0.peak } <= 3)
        #expect(maker.count <= 3)
        #expect(seen.withLock { $0.count } == maker.count)
    }

    @Test("a caller finding every element in use waits until one is returned")
    func waitsForAnElement() throws {
        let pool = Pool(capacity: 1) { Token(id: 1) }
        let events = Mutex<[String]>([])
        let firstHolds = DispatchSemaphore(value: 0)
        let secondDone = DispatchSemaphore(value: 0)
        let first = Thread {
            _ = try? pool.use { _ in
                firstHolds.signal()
                Thread.sleep(forTimeInterval: 0.1)
                events.withLock { $0.append("first returns") }
            }
        }
        first.start()
        firstHolds.wait()
        let second = Thread {
            _ = try? pool.use { _ in events.withLock { $0.append("second holds") } }
            secondDone.signal()
        }
        second.start()
        #expect(secondDone.wait(timeout: .now() + 5) == .success)
        #expect(events.withLock { $0 } == ["first returns", "second holds"])
    }

    @Test("a failure to make an element reaches its caller and frees its place")
    func failedMake() throws {
        let maker = Maker(failFirst: true)
        let pool = Pool(capacity: 1) { try maker.make() }
        #expect(throws: MakeFailed.self) { try pool.use { $0.id } }
        let done = DispatchSemaphore(value: 0)
        let id = Mutex<Int?>(nil)
        Thread {
            let made = try? pool.use { $0.id }
            id.withLock { $0 = made }
            done.signal()
        }.start()
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(id.withLock { $0 } == 2)
    }

    @Test("an element whose user threw goes back to the pool and is handed out again")
    func returnedAfterThrow() throws {
        let maker = Maker()
        let pool = Pool(capacity: 1) { try maker.make() }
        #expect(throws: MakeFailed.self) { try pool.use { _ in throw MakeFailed() } }
        #expect(try pool.use { $0.id } == 1)
        #expect(maker.count == 1)
    }
}
