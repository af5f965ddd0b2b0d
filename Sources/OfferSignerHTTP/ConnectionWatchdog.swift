import Foundation
import OfferSignerCore
import Synchronization

/// Tracks the server's open connections: counts them against the caps, overall and per client
/// address (a connection beyond either is marked to be answered 503 rather than reset), and,
/// on a thread of its own, ends every connection whose request has not arrived whole in time
/// (see ``ConnectionState``).
///
/// When every slot is taken, a new connection does not simply get a 503: an idle connection
/// (connected or kept alive, no request line since) is closed to make room, so idle clients
/// cannot keep new ones out. The one closed is taken first from an address holding its fair
/// share or more (the slots divided by the addresses connected, so the share shrinks as more
/// addresses connect), kept-alive connections before new ones, the longest idle first. An
/// address at or over its share takes the room from its own idle connections only. Only when
/// no connection is idle (every slot reads or answers a request) is the new one answered 503.
final class ConnectionWatchdog: Sendable {
    private let connections = Mutex(Registry())
    private let capacity: Int
    private let capacityPerAddress: Int
    private let requestTimeout: Duration
    private let firstLineTimeout: Duration
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
        /// Connections within the caps (holding a slot), in all and per client address.
        var served: Set<ObjectIdentifier> = []
        var servedPerAddress: [String: Int] = [:]

        /// `state` no longer holds a slot.
        mutating func release(_ state: ConnectionState) {
            guard served.remove(ObjectIdentifier(state)) != nil else { return }
            let left = servedPerAddress[state.address, default: 1] - 1
            servedPerAddress[state.address] = left > 0 ? left : nil
        }
    }

    init(configuration: HTTPServerConfiguration) {
        capacity = configuration.connectionLimit
        capacityPerAddress = configuration.perAddressConnectionLimit > 0 ? configuration.perAddressConnectionLimit : .max
        requestTimeout = .seconds(configuration.requestTimeoutSeconds)
        firstLineTimeout = .seconds(min(configuration.firstRequestLineTimeoutSeconds, configuration.requestTimeoutSeconds))
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
            let held = registry.servedPerAddress[address, default: 0]
            var overCapacity = held >= capacityPerAddress
            if !overCapacity && registry.served.count >= capacity {
                overCapacity = !Self.makeRoom(in: &registry, for: address, held: held, capacity: capacity)
            }
            let state = ConnectionState(socket: socket, address: address, overCapacity: overCapacity,
                                        timeout: overCapacity ? overCapacityTimeout : requestTimeout,
                                        firstLineTimeout: overCapacity ? overCapacityTimeout : firstLineTimeout,
                                        allowancePerByte: allowancePerByte)
            registry.all[ObjectIdentifier(state)] = state
            if !overCapacity {
                registry.served.insert(ObjectIdentifier(state))
                registry.servedPerAddress[address, default: 0] += 1
            }
            return state
        }
    }

    /// Closes an idle connection so that a new one from `address` (which holds `held` slots)
    /// gets its slot; false when none is idle.
    private static func makeRoom(in registry: inout Registry, for address: String, held: Int, capacity: Int) -> Bool {
        let addresses = registry.servedPerAddress.count + (held == 0 ? 1 : 0)
        let share = max(1, capacity / max(1, addresses))
        // Rank the idle connections: addresses at or over their share first, kept-alive before new, longest idle first.
        var candidates: [(rank: Int, since: ContinuousClock.Instant, state: ConnectionState)] = []
        for id in registry.served {
            guard let state = registry.all[id] else { continue }
            if held >= share && state.address != address { continue }
            guard let idleness = state.idleness else { continue }
            // At its share or over it: a new client (which holds less) is never closed before it.
            let overShare = registry.servedPerAddress[state.address, default: 0] >= share
            candidates.append(((overShare ? 0 : 2) + (idleness.keptAlive ? 0 : 1), idleness.since, state))
        }
        candidates.sort { ($0.rank, $0.since) < ($1.rank, $1.since) }
        for candidate in candidates where candidate.state.evictIfIdle() {
            registry.release(candidate.state)
            return true
        }
        return false
    }

    /// libmicrohttpd is closing the connection.
    func closed(_ state: ConnectionState) {
        state.close()
        connections.withLock { registry in
            guard registry.all.removeValue(forKey: ObjectIdentifier(state)) != nil else { return }
            registry.release(state)
        }
    }

    /// Ends the connections whose deadline has passed; returns how many.
    @discardableResult
    func expireOverdue(now: ContinuousClock.Instant) -> Int {
        let open = connections.withLock { Array($0.all.values) }
        return open.reduce(0) { $0 + ($1.expire(now: now) ? 1 : 0) }
    }
}
