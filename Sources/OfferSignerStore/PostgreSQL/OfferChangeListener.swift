import Foundation
import OfferSignerCore
import Synchronization

/// A thread that holds a connection of its own `LISTEN`ing on a channel and calls `onChange`
/// when a notification arrives (`true`) and once a second besides (`false`: a poll that
/// catches what a lost notification would have said). When the connection breaks it
/// reconnects every half second until the server is back, and calls `onChange(true)` once
/// listening again, since notifications sent meanwhile were lost.
final class OfferChangeListener: Sendable {
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    /// How long the thread waits for a notification before it polls.
    static let pollInterval: Duration = .seconds(1)
    /// How long it waits before connecting again after a failure.
    static let reconnectDelay: Duration = .milliseconds(500)

    init(database: PostgreSQLDatabase, channel: String, onChange: @escaping @Sendable (_ notified: Bool) throws -> Void) {
        NamedThread.start("offer-change-listener") { [self] in
            run(database: database, channel: channel, onChange: onChange)
            finished.signal()
        }
    }

    /// Stops the thread and waits (at most a poll interval and a statement timeout) for it.
    func stop() {
        guard !stopped.exchange(true, ordering: .sequentiallyConsistent) else { return }
        _ = finished.wait(timeout: .now() + .seconds(10))
    }

    private func run(database: PostgreSQLDatabase, channel: String, onChange: @Sendable (Bool) throws -> Void) {
        var connection: PostgreSQLConnection?
        while !stopped.load(ordering: .sequentiallyConsistent) {
            do {
                if connection == nil || connection!.isBroken {
                    connection = nil
                    let fresh = try database.connect()
                    try fresh.execute("LISTEN \(channel)")
                    connection = fresh
                    try onChange(true)
                }
                let notifications = try connection!.notifications(waitingUpTo: Self.pollInterval)
                guard !stopped.load(ordering: .sequentiallyConsistent) else { break }
                try onChange(!notifications.isEmpty)
            } catch {
                // The database is unreachable: the mirror keeps the last rules read; try again soon.
                Thread.sleep(forTimeInterval: Double(Self.reconnectDelay.milliseconds) / 1000)
            }
        }
    }
}
