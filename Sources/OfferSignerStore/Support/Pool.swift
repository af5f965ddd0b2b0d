import Dispatch
import OfferSignerCore

/// A bounded pool of reusable elements, such as database connections (after GRDB's `Pool`).
///
/// Elements are made on demand, when a caller finds none idle, and kept for the next caller.
/// At most `capacity` exist: a caller arriving while all are in use blocks until one is
/// returned, so a burst of callers cannot make more (for connections, open more files).
final class Pool<Element: Sendable>: Sendable {
    /// The most elements that exist at once.
    let capacity: Int
    private let makeElement: @Sendable () throws -> Element
    private let isReusable: @Sendable (Element) -> Bool
    /// Elements made and not in use, the most recently returned last.
    private let idle = PlainMutex<[Element]>([])
    /// One permit per element that may be in use; a checkout takes one, waiting if none is left.
    private let permits: DispatchSemaphore

    /// - Parameters:
    ///   - capacity: the most elements in use at once (at least 1).
    ///   - makeElement: makes an element when none is idle; its error is thrown to that caller.
    ///   - isReusable: whether an element given back may serve another caller; one that may
    ///     not (a connection that broke) is dropped, and a new one made when next needed.
    init(capacity: Int, makeElement: @escaping @Sendable () throws -> Element,
         isReusable: @escaping @Sendable (Element) -> Bool = { _ in true }) {
        self.capacity = max(1, capacity)
        self.makeElement = makeElement
        self.isReusable = isReusable
        permits = DispatchSemaphore(value: self.capacity)
    }

    /// Runs `body` with an element no other caller holds meanwhile, then returns the element to
    /// the pool (also when `body` throws) if it is still reusable. Blocks while `capacity`
    /// elements are in use.
    func use<T>(_ body: (Element) throws -> T) throws -> T {
        permits.wait()
        defer { permits.signal() }
        let element = try idle.withLock { $0.popLast() } ?? makeElement()
        defer { if isReusable(element) { idle.withLock { $0.append(element) } } }
        return try body(element)
    }

    /// Drops every idle element (connections to a server that restarted), so that the next
    /// callers get new ones.
    func discardIdle() {
        idle.withLock { $0.removeAll() }
    }
}
