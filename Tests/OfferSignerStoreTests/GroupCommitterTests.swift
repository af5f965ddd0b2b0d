import Foundation
import Synchronization
import Testing
@testable import OfferSignerStore

@Suite("Group commit")
struct GroupCommitterTests {
    struct BatchFailed: Error {}

    /// A committer doubling each item, counting the batches it wrote; items equal to
    /// `failing` make their whole batch throw.
    func committer(_ database: SQLiteDatabase, batches: LockedArray<Int>, failing: Int? = nil) -> GroupCommitter<Int, Int> {
        GroupCommitter(database: database, name: "test-writer") { batch, _ in
            batches.append(batch.count)
            if let failing, batch.contains(failing) { throw BatchFailed() }
            return batch.map { .success($0 * 2) }
        }
    }

    @Test("callers on many threads each get their own result, several per committed batch")
    func groups() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let batches = LockedArray<Int>()
        let committer = committer(try temp.open(), batches: batches)
        defer { committer.close() }
        let results = LockedArray<Int>()
        let group = DispatchGroup()
        for thread in 0..<16 {
            group.enter()
            Thread {
                for n in 0..<25 {
                    let item = thread * 100 + n
                    if case .success(let doubled) = committer.submit(item), doubled == item * 2 { results.append(item) }
                }
                group.leave()
            }.start()
        }
        #expect(group.wait(timeout: .now() + 60) == .success)
        #expect(results.values.count == 400)
        let written = batches.values
        #expect(written.reduce(0, +) == 400)
        #expect(written.count < 400)
    }

    @Test("one caller at a time is never left waiting: the writer wakes for each item")
    func sequential() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let batches = LockedArray<Int>()
        let committer = committer(try temp.open(), batches: batches)
        defer { committer.close() }
        let done = DispatchSemaphore(value: 0)
        let answered = Mutex(0)
        Thread {
            for item in 0..<300 where (try? committer.submit(item).get()) == item * 2 {
                answered.withLock { $0 += 1 }
            }
            done.signal()
        }.start()
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(answered.withLock { $0 } == 300)
    }

    @Test("a batch that throws fails each of its callers; the next batch is written")
    func failedBatch() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let batches = LockedArray<Int>()
        let committer = committer(try temp.open(), batches: batches, failing: 7)
        defer { committer.close() }
        #expect(throws: BatchFailed.self) { try committer.submit(7).get() }
        #expect(try committer.submit(8).get() == 16)
    }

    @Test("once closed, new items are refused as closed")
    func closed() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let batches = LockedArray<Int>()
        let committer = committer(try temp.open(), batches: batches)
        #expect(try committer.submit(1).get() == 2)
        committer.close()
        #expect(throws: GroupCommitterClosed.self) { try committer.submit(2).get() }
        committer.close()
    }

    @Test("the observer sees every batch's outcome, committed or rolled back, before its callers wake")
    func observer() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let outcomes = LockedArray<String>()
        let committer = GroupCommitter<Int, Int>(database: try temp.open(), name: "observed-writer", observe: { outcome in
            switch outcome {
            case .success(let results): outcomes.append("committed \(results.count)")
            case .failure: outcomes.append("rolled back")
            }
        }) { batch, _ in
            if batch.contains(13) { throw BatchFailed() }
            return batch.map { .success($0) }
        }
        defer { committer.close() }
        _ = committer.submit(1)
        #expect(outcomes.values == ["committed 1"])
        _ = committer.submit(13)
        #expect(outcomes.values == ["committed 1", "rolled back"])
    }

    @Test("callers of one batch, single items and groups of items, each get their own results in order (one wake-up per batch, issue 38)")
    func sharedBatchResults() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let batches = LockedArray<Int>()
        let committer = committer(try temp.open(), batches: batches)
        defer { committer.close() }
        let wrong = LockedArray<String>()
        let group = DispatchGroup()
        for thread in 0..<12 {
            group.enter()
            Thread {
                for round in 0..<20 {
                    let base = thread * 10_000 + round * 100
                    if (thread + round) % 3 == 0 {
                        let items = Array(base..<base + 1 + round % 4)
                        let results = committer.submit(all: items).map { try? $0.get() }
                        if results != items.map({ $0 * 2 }) { wrong.append("\(items) -> \(results)") }
                    } else if (try? committer.submit(base).get()) != base * 2 {
                        wrong.append("\(base)")
                    }
                }
                group.leave()
            }.start()
        }
        #expect(group.wait(timeout: .now() + 60) == .success)
        #expect(wrong.values.isEmpty, "\(wrong.values.prefix(5))")
        #expect(batches.values.count < batches.values.reduce(0, +))
    }

    @Test("a writer giving fewer results than items fails the items left without one; their callers are not left waiting")
    func missingResult() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let committer = GroupCommitter<Int, Int>(database: try temp.open(), name: "short-writer") { batch, _ in
            batch.dropLast().map { .success($0) }
        }
        defer { committer.close() }
        let results = committer.submit(all: [1, 2, 3])
        #expect(results.count == 3)
        #expect(try results[0].get() == 1 && results[1].get() == 2)
        #expect(throws: GroupCommitterNoResult.self) { try results[2].get() }
    }
}
