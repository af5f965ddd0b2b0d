import Synchronization

/// A gate a test opens to let a held answer of the mock go (``MockFault/held(_:)``): the
/// positive signal "Apple has not answered yet" without a wall-clock guess.
public final class MockGate: Sendable {
    private let opened = Atomic<Bool>(false)

    public init() {}

    /// Lets every answer held at this gate go.
    public func open() { opened.store(true, ordering: .releasing) }

    /// Whether the gate is open.
    public var isOpen: Bool { opened.load(ordering: .acquiring) }
}
