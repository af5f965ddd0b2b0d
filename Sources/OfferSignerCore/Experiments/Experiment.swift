import Foundation

/// An experiment on a placement's offers, as the service keeps it: marketing's definition,
/// its status, and what the service fixed when it started (the revenue caps, the weight
/// periods). Kept like the other managed rules (kind `experiment`): versioned, every change
/// — status changes included — recorded with who, when, before and after.
public struct Experiment: ManagedRule {
    public static let kind = "experiment"
    public static let identifierKey = "experimentId"
    public static let collectionKey = "experiments"

    public var definition: ExperimentDefinition
    public var status: ExperimentStatus = .draft
    /// When it started (nil for a draft).
    public var startedAt: Date?
    /// When it stopped (nil unless stopped).
    public var stoppedAt: Date?
    /// The arm named the winner at stop, whose offer was put first in the placement.
    public var winner: String?
    /// The winsorisation cap of each currency's revenue per user, in milli-units, fixed at
    /// start from the app's history (``ExperimentRevenueCap``); empty for a draft.
    public var revenueCaps: [String: Int64] = [:]
    /// The weights in force since start, oldest first; a change of weights while running adds one.
    public var weightPeriods: [ExperimentWeightPeriod] = []

    public init(definition: ExperimentDefinition) {
        self.definition = definition
    }

    public var experimentId: String { definition.experimentId }
    public var ruleId: String { definition.experimentId }
    public var bundleId: String { definition.bundleId }
    public var priority: Int { 0 }
    public var arms: [ExperimentArm] { definition.arms }
    /// False once deleted (a deleted draft); setting false deletes.
    public var enabled: Bool {
        get { status != .deleted }
        set { if !newValue { status = .deleted } }
    }

    /// The index of the weight period in force at `now` (the last), nil before start.
    public var currentWeightPeriod: Int? { weightPeriods.isEmpty ? nil : weightPeriods.count - 1 }

    public func validationProblems() -> [String] { definition.faults().map(\.message) }

    enum CodingKeys: String, CodingKey { case status, startedAt, stoppedAt, winner, revenueCaps, weightPeriods }

    public init(from decoder: any Decoder) throws {
        definition = try ExperimentDefinition(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        status = try container.decode(ExperimentStatus.self, forKey: .status)
        startedAt = try container.decodeIfPresent(Date.self, forKey: .startedAt)
        stoppedAt = try container.decodeIfPresent(Date.self, forKey: .stoppedAt)
        winner = try container.decodeIfPresent(String.self, forKey: .winner)
        revenueCaps = try container.decodeIfPresent([String: Int64].self, forKey: .revenueCaps) ?? [:]
        weightPeriods = try container.decodeIfPresent([ExperimentWeightPeriod].self, forKey: .weightPeriods) ?? []
    }

    /// Writes the definition's members and the experiment's, absent dates and winner as `null`.
    public func encode(to encoder: any Encoder) throws {
        try definition.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(status, forKey: .status)
        try container.encode(EncodedAsNull(wrappedValue: startedAt), forKey: .startedAt)
        try container.encode(EncodedAsNull(wrappedValue: stoppedAt), forKey: .stoppedAt)
        try container.encode(EncodedAsNull(wrappedValue: winner), forKey: .winner)
        try container.encode(revenueCaps, forKey: .revenueCaps)
        try container.encode(weightPeriods, forKey: .weightPeriods)
    }
}
