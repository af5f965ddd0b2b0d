import Foundation
import OfferSignerCore
import Synchronization

/// Tracks the server's open connections: counts them against the caps, overall and per client
/// address (a connection beyond either is marked to be answered 503 rather than reset), and,
/// on a thread of its own, ends every connection whose request has not arrived whole in time
/// (see ``ConnectionState``).
final class ConnectionWatchdog: Sendable {
    private let connections = Mutex(Registry())
    private let capacity: Int
    private let capacityPerAddress: Int
    private let requestTimeout: Duration
    private let overCapacityTimeout: Duration
    private let allowancePerByte: Duration
    /// Whether the thread runs, and whether it was told to stop.
    private let running = Mutex((started: false, stopping: false))
    private let wakeUp = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    /// How often deadlines are checked.
    static let tick = DispatchTimeInterval.milliseconds(100)

    private struct Registry {
        var all: [ObjectIdentifier: ConnectionState] = [:]
        /// Connections within the caps, in all and per client address.
        var served = 0
        var servedPerAddress: [String: Int] = [:]
    }

    init(configuration: HTTPServerConfiguration) {
        capacity = configuration.connectionLimit
        capacityPerAddress = configuration.perAddressConnectionLimit > 0 ? configuration.perAddressConnectionLimit : .max
        requestTimeout = .seconds(configuration.requestTimeoutSeconds)
        overCapacityTimeout = .seconds(min(2, configuration.requestTimeoutSeconds))
        allowancePerByte = .seconds(1) / max(1, configuration.minimumUploadBytesPerSecond)
    }

    /// Starts the thread that checks deadlines.
    func start() {
        guard running.withLock({ running in
            defer { running.started = true }
            return !running.started
        }) else { return }
        NamedThread.start("connection-watchdog") { [self] in
            while !running.withLock({ $0.stopping }) {
                _ = wakeUp.wait(timeout: .now() + Self.tick)
                expireOverdue(now: .now)
            }
            finished.signal()
        }
    }

    /// Stops the thread (after libmicrohttpd has closed every connection).
    func stop() {
        let started = running.withLock { running in
            defer { running.stopping = true }
            return running.started && !running.stopping
        }
        guard started else { return }
        wakeUp.signal()
        finished.wait()
    }

    /// A connection from `address` was accepted on `socket`.
    func opened(socket: Int32, address: String) -> ConnectionState {
        connections.withLock { registry in
            let overCapacity = registry.served >= capacity || registry.servedPerAddress[address, default: 0] >= capacityPerAddress
            let state = ConnectionState(socket: socket, address: address, overCapacity: overCapacity,
                                        timeout: overCapacity ? overCapacityTimeout : requestTimeout,
                                        allowancePerByte: allowancePerByte)
            registry.all[ObjectIdentifier(state)] = state
            if !overCapacity {
                registry.served += 1
                registry.servedPerAddress[address, default: 0] += 1
            }
            return state
        }
    }

    /// libmicrohttpd is closing the connection.
    func closed(_ state: ConnectionState) {
        state.close()
        connections.withLock { registry in
            guard registry.all.removeValue(forKey: ObjectIdentifier(state)) != nil, !state.overCapacity else { return }
            registry.served -= 1
            let left = registry.servedPerAddress[state.address, default: 1] - 1
            registry.servedPerAddress[state.address] = left > 0 ? left : nil
        }
    }

    /// Ends the connections whose deadline has passed; returns how many.
    @discardableResult
    func expireOverdue(now: ContinuousClock.Instant) -> Int {
        let open = connections.withLock { Array($0.all.values) }
        return open.reduce(0) { $0 + ($1.expire(now: now) ? 1 : 0) }
    }
}
