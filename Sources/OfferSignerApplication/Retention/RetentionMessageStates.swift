import AppStoreServerAPI
import Foundation
import OfferSignerCore
import Synchronization

/// Apple's approval state of each retention message, per app and environment, as Get Message
/// List last said it: refreshed in the background at most every `interval` (``task()``) and at
/// once after every change the service makes. The responder reads only this cache, never
/// Apple, so a real-time answer never waits on the API.
///
/// A message is usable only when Apple approved it and every image it shows (its image and its
/// bullet points' images, as this service uploaded it: `imagesOf`): Apple shows neither
/// without the other. When the state is not known — Apple not configured for the app, never
/// reached, or last reached longer ago than `maxAge` — a message counts as usable
/// (``Approval/unknown``), so an unreachable API leaves the answers as they were before this
/// cache existed.
public final class RetentionMessageStates: Sendable {
    /// What is known of a message's approval.
    public enum Approval: Sendable, Equatable {
        case approved
        /// Apple lists the message as `PENDING` or `REJECTED`, or does not list it (`MISSING`).
        case notApproved(state: String)
        case unknown
    }

    struct Key: Hashable {
        let bundleId: String
        let environment: String
    }

    struct Entry {
        var states: [String: RetentionApprovalState]
        /// The images each message shows, and Apple's states of images (nil: not asked, as no
        /// message shows one).
        var images: [String: [String]] = [:]
        var imageStates: [String: RetentionApprovalState]?
        var fetchedAt: Date
    }

    let clients: AppStoreAPIClients
    let clock: WallClock
    let logger: Logger
    /// How often ``task()`` refreshes every app's states.
    public let interval: Duration
    /// How old states may be before they count as unknown.
    public let maxAge: TimeInterval
    /// Whether the background refresh asks Apple about an app: only apps with retention rules
    /// need the states, so an app that does not use Retention Messaging costs Apple no call.
    let isInUse: @Sendable (_ bundleId: String) -> Bool
    /// The images each message of an app and environment shows, by message identifier
    /// (lowercased), as this service uploaded them.
    let imagesOf: @Sendable (_ bundleId: String, _ environment: String) -> [String: [String]]
    private let entries = Mutex<[Key: Entry]>([:])

    /// One attempt of at most this long per refresh: the next round tries again.
    static let timeout = Duration.seconds(5)

    /// Five minutes between refreshes; states older than three refreshes are not trusted.
    /// `isInUse` says which apps the background refresh asks Apple about (every app by default);
    /// `imagesOf` which images each message shows (none known by default).
    public init(clients: AppStoreAPIClients, clock: WallClock = .system, logger: Logger = Logger(),
                interval: Duration = .seconds(300), maxAge: TimeInterval = 900,
                imagesOf: @escaping @Sendable (_ bundleId: String, _ environment: String) -> [String: [String]] = { _, _ in [:] },
                isInUse: @escaping @Sendable (_ bundleId: String) -> Bool = { _ in true }) {
        self.clients = clients
        self.imagesOf = imagesOf
        self.isInUse = isInUse
        self.clock = clock
        self.logger = logger
        self.interval = interval
        self.maxAge = maxAge
    }

    /// Whether Apple has approved `messageIdentifier` for `bundleId` in `environment`, from the cache.
    public func approval(of messageIdentifier: String, bundleId: String, environment: String) -> Approval {
        guard let entry = entries.withLock({ $0[Key(bundleId: bundleId, environment: environment)] }),
              clock.now.timeIntervalSince(entry.fetchedAt) <= maxAge else { return .unknown }
        let message = messageIdentifier.lowercased()
        guard let state = entry.states[message] else { return .notApproved(state: "MISSING") }
        guard state == .approved else { return .notApproved(state: state.rawValue) }
        guard let imageStates = entry.imageStates else { return .approved }
        for image in entry.images[message] ?? [] {
            guard let imageState = imageStates[image] else { return .notApproved(state: "approved, its image \(image) MISSING") }
            guard imageState == .approved else { return .notApproved(state: "approved, its image \(image) \(imageState.rawValue)") }
        }
        return .approved
    }

    /// Whether the cache holds states of `bundleId` in `environment` younger than `age` seconds.
    public func isFresh(bundleId: String, environment: String, within age: TimeInterval) -> Bool {
        guard let entry = entries.withLock({ $0[Key(bundleId: bundleId, environment: environment)] }) else { return false }
        return clock.now.timeIntervalSince(entry.fetchedAt) <= age
    }

    /// Asks Apple now and keeps the answer.
    @discardableResult
    public func refresh(bundleId: String, environment: String) throws(RetentionMessagingFailure) -> [String: RetentionApprovalState] {
        guard let apiEnvironment = AppStoreServerAPIEnvironment(rawValue: environment) else {
            throw .invalid(["the environment must be Production or Sandbox, not '\(environment)'"])
        }
        let client: AppStoreServerAPIClient
        do {
            client = try clients.client(bundleId: bundleId, environment: apiEnvironment).with(timeout: Self.timeout, retry: .none)
        } catch let error as AppStoreAPIUnavailable {
            throw .unavailable(error)
        } catch {
            throw .api(.invalidArgument("\(error)"))
        }
        let images = imagesOf(bundleId, environment)
        let list: GetMessageListResponse
        var imageList: GetImageListResponse?
        do {
            list = try client.messageList()
            if images.values.contains(where: { !$0.isEmpty }) { imageList = try client.imageList() }
        } catch {
            throw .api(error)
        }
        var imageStates: [String: RetentionApprovalState]?
        if let imageList {
            imageStates = Dictionary((imageList.imageIdentifiers ?? []).map { ($0.imageIdentifier.lowercased(), $0.imageState) },
                                     uniquingKeysWith: { first, _ in first })
        }
        return remember(list, bundleId: bundleId, environment: environment, images: (images, imageStates))
    }

    /// Keeps a message list just read from Apple; with `images`, which images each message
    /// shows and Apple's states of images (without, those known before are kept).
    @discardableResult
    func remember(_ list: GetMessageListResponse, bundleId: String, environment: String,
                  images: (byMessage: [String: [String]], states: [String: RetentionApprovalState]?)? = nil)
        -> [String: RetentionApprovalState] {
        var states: [String: RetentionApprovalState] = [:]
        for item in list.messageIdentifiers ?? [] { states[item.messageIdentifier.lowercased()] = item.messageState }
        let now = clock.now
        entries.withLock { entries in
            let key = Key(bundleId: bundleId, environment: environment)
            var entry = Entry(states: states, images: entries[key]?.images ?? [:], imageStates: entries[key]?.imageStates, fetchedAt: now)
            if let images {
                entry.images = images.byMessage
                entry.imageStates = images.states
            }
            entries[key] = entry
        }
        return states
    }

    /// Refreshes every app in use (``isInUse``) and environment the clients serve, until
    /// `stopping` says so; a failure is logged and leaves that app's states to age out.
    public func refreshAll(stopping: () -> Bool = { false }) {
        for bundleId in clients.bundleIds where isInUse(bundleId) {
            for environment in clients.environments where !stopping() {
                do {
                    try refresh(bundleId: bundleId, environment: environment.rawValue)
                } catch {
                    logger.log(.info, "retention message states not refreshed", [
                        "bundleId": .string(bundleId), "environment": .string(environment.rawValue), "error": .string("\(error)"),
                    ])
                }
            }
        }
    }

    /// The background refresh, every ``interval`` (not started).
    package func task() -> PeriodicTask {
        PeriodicTask(name: "retention-message-states", interval: interval) { [self] task in refreshAll { task.isStopping } }
    }
}
