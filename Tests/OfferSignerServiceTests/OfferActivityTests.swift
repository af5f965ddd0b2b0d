import Dispatch
import Foundation
@testable import OfferSignerApplication
@testable import OfferSignerService
import OfferSignerStore
import Synchronization
import Testing

/// A test double of the activity store that only takes writes: its reads are empty.
protocol WriteOnlyActivityStore: OfferActivityStore {}

extension WriteOnlyActivityStore {
    func refusals(bundleId: String, offerId: String, fromDay: Int64, toDay: Int64) throws -> [RefusalCount] { [] }
    func refusedRequests(fromDay: Int64, toDay: Int64) throws -> [OfferKey: Int] { [:] }
    func signaturesPerDay(bundleId: String, offerId: String, from: Int64, to: Int64) throws -> [Int64: Int] { [:] }
    func signatures(from: Int64, to: Int64) throws -> [OfferKey: Int] { [:] }
}

/// Refusal counting: gathered in memory, written in one go, never lost to a failed write.
@Suite("Offer activity: refusal counts")
struct OfferActivityTests {
    /// A store whose writes fail while `failing` is set, keeping what it was given otherwise.
    final class FlakyStore: WriteOnlyActivityStore {
        let failing = Mutex(true)
        let written = Mutex<[RefusalCount]>([])

        struct WriteFailed: Error {}

        func addRefusals(_ counts: [RefusalCount]) throws {
            if failing.withLock({ $0 }) { throw WriteFailed() }
            written.withLock { $0.append(contentsOf: counts) }
        }
    }

    @Test("a request failing several criteria counts once as a request and once per criterion; a failed write keeps the counts")
    func counting() throws {
        let store = FlakyStore()
        let activity = OfferActivity(store: store, logger: .silent)
        let offer = OfferKey(bundleId: "com.example.app", offerId: "winback")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        activity.recordRefusal(offer, criteria: ["minPaidDays", "requireLapsed"], at: now)
        activity.recordRefusal(offer, criteria: ["minPaidDays"], at: now)
        activity.recordRefusal(offer, criteria: ["minPaidDays"], at: now + 86_400)
        #expect(throws: FlakyStore.WriteFailed.self) { try activity.flush() }
        activity.recordRefusal(offer, criteria: ["requireLapsed"], at: now)
        store.failing.withLock { $0 = false }
        try activity.flush()
        let today = OfferActivity.day(of: now)
        let counts = store.written.withLock { $0 }.reduce(into: [String: Int]()) { sum, count in
            sum["\(count.day - today):\(count.criterion)", default: 0] += count.count
        }
        #expect(counts == ["0:": 3, "0:minPaidDays": 2, "0:requireLapsed": 2, "1:": 1, "1:minPaidDays": 1])
        try activity.flush()
        #expect(store.written.withLock { $0 }.count == 5, "nothing is written twice")
    }

    /// A store whose writes wait until `open` is signalled, saying when one has begun.
    final class GatedStore: WriteOnlyActivityStore {
        let entered = DispatchSemaphore(value: 0)
        let open = DispatchSemaphore(value: 0)
        let written = Mutex<[RefusalCount]>([])

        func addRefusals(_ counts: [RefusalCount]) throws {
            entered.signal()
            open.wait()
            written.withLock { $0.append(contentsOf: counts) }
        }
    }

    /// The console's activity page read 0 refusals now and then: the periodic flush had taken
    /// the counts and was still writing them when the read's own flush found nothing pending.
    @Test("a flush before a read returns only after a flush in flight has written what it took")
    func flushWaitsForFlushInFlight() throws {
        let store = GatedStore()
        let activity = OfferActivity(store: store, logger: .silent)
        let offer = OfferKey(bundleId: "com.example.app", offerId: "winback")
        activity.recordRefusal(offer, criteria: ["requireLapsed"], at: Date(timeIntervalSince1970: 1_800_000_000))
        // Threads of their own: libdispatch may not start a second worker while the first blocks.
        let periodicDone = DispatchSemaphore(value: 0)
        Thread { try? activity.flush(); periodicDone.signal() }.start()
        store.entered.wait()  // the periodic flush holds the counts, its write not done
        let readerDone = DispatchSemaphore(value: 0)
        let writtenWhenReaderReturned = Mutex<Int?>(nil)
        Thread {
            try? activity.flush()
            writtenWhenReaderReturned.withLock { $0 = store.written.withLock { $0.count } }
            readerDone.signal()
        }.start()
        // Without the fix the reader's flush returns at once, with nothing written yet.
        let returnedEarly = readerDone.wait(timeout: .now() + 0.5) == .success
        store.open.signal()
        if !returnedEarly { readerDone.wait() }
        periodicDone.wait()
        #expect(writtenWhenReaderReturned.withLock { $0 } == 2, "the reader's flush returned after the counts were written")
    }
}
