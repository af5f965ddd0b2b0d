import Foundation

/// What marketing writes of an experiment (the body of `PUT /v1/admin/experiments/{experimentId}`):
/// the app, the placement, the arms (the first is the control), the metric, the horizon, the
/// level and the tuning sample size. Its status and what the service fixes at start are the
/// ``Experiment``'s.
public struct ExperimentDefinition: Codable, Hashable, Sendable {
    /// Where the decoder's `userInfo` carries the experiment ID of the request's path, used
    /// when the body leaves `experimentId` out.
    public static let defaultExperimentIdKey = CodingUserInfoKey(rawValue: "offerSigner.defaultExperimentId")!
    /// The fewest and most arms.
    public static let armCount = 2...10
    /// The horizon's bounds, in days.
    public static let horizonDays = 30...365
    /// The level's bounds.
    public static let alphaRange = 0.001...0.2
    /// `expectedUsers`' bounds.
    public static let expectedUsersRange = 100...100_000_000
    /// The tuning sample size when `expectedUsers` is not given.
    public static let defaultExpectedUsers = 5_000

    public var experimentId: String
    public var bundleId: String
    /// The placement (`placementId`) whose users are assigned.
    public var placement: String
    /// The arms; the first is the control every other arm is compared with.
    public var arms: [ExperimentArm]
    public var metric: ExperimentMetric
    /// Users are judged this many days after their assignment.
    public var horizonDays: Int
    /// 1 − the confidence sequences' level (before Bonferroni).
    public var alpha: Double = 0.05
    /// The number of users the sequences are tuned for (narrowest there); nil: 5,000.
    @EncodedAsNull public var expectedUsers: Int?

    public init(experimentId: String, bundleId: String, placement: String, arms: [ExperimentArm], metric: ExperimentMetric,
                horizonDays: Int, alpha: Double = 0.05, expectedUsers: Int? = nil) {
        self.experimentId = experimentId
        self.bundleId = bundleId
        self.placement = placement
        self.arms = arms
        self.metric = metric
        self.horizonDays = horizonDays
        self.alpha = alpha
        self.expectedUsers = expectedUsers
    }

    enum CodingKeys: String, CodingKey { case experimentId, bundleId, placement, arms, metric, horizonDays, alpha, expectedUsers }

    /// Decodes a definition; `alpha` defaults to 0.05, a missing `experimentId` to the one
    /// under ``defaultExperimentIdKey`` and a missing `bundleId` to the one under
    /// ``OfferRule/defaultBundleIdKey`` of the decoder's `userInfo`, if any.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let named = try container.decodeIfPresent(String.self, forKey: .experimentId) {
            experimentId = named
        } else if let fallback = decoder.userInfo[Self.defaultExperimentIdKey] as? String {
            experimentId = fallback
        } else {
            experimentId = try container.decode(String.self, forKey: .experimentId)
        }
        bundleId = try container.decodeBundleId(forKey: .bundleId, defaultFrom: decoder)
        placement = try container.decode(String.self, forKey: .placement)
        arms = try container.decode([ExperimentArm].self, forKey: .arms)
        metric = try container.decode(ExperimentMetric.self, forKey: .metric)
        horizonDays = try container.decode(Int.self, forKey: .horizonDays)
        alpha = try container.decodeIfPresent(Double.self, forKey: .alpha) ?? 0.05
        expectedUsers = try container.decodeIfPresent(Int.self, forKey: .expectedUsers)
    }

    /// The tuning sample size of the confidence sequences.
    public var tuningSampleSize: Int { expectedUsers ?? Self.defaultExpectedUsers }

    /// Every reason the definition cannot be right on its own, each with its code; empty when valid.
    public func faults() -> [ExperimentFault] {
        var faults: [ExperimentFault] = []
        if !Identifier.isValidRuleId(experimentId) {
            faults.append(.init("invalid_request", "'experimentId' must be \(Identifier.ruleIdRequirement)"))
        }
        if !Identifier.isValid(bundleId) { faults.append(.init("invalid_request", "'bundleId' must be 1–256 visible ASCII characters")) }
        if !Identifier.isValidRuleId(placement) {
            faults.append(.init("invalid_request", "'placement' must be \(Identifier.ruleIdRequirement)"))
        }
        if !Self.horizonDays.contains(horizonDays) {
            faults.append(.init("invalid_request", "'horizonDays' must be \(Self.horizonDays.lowerBound)–\(Self.horizonDays.upperBound)"))
        }
        if !(alpha >= Self.alphaRange.lowerBound && alpha <= Self.alphaRange.upperBound) {
            faults.append(.init("invalid_request", "'alpha' must be \(Self.alphaRange.lowerBound)–\(Self.alphaRange.upperBound)"))
        }
        if let expectedUsers, !Self.expectedUsersRange.contains(expectedUsers) {
            faults.append(.init("invalid_request",
                                "'expectedUsers' must be \(Self.expectedUsersRange.lowerBound)–\(Self.expectedUsersRange.upperBound)"))
        }
        faults += armFaults()
        return faults
    }

    private func armFaults() -> [ExperimentFault] {
        var faults: [ExperimentFault] = []
        if !Self.armCount.contains(arms.count) {
            faults.append(.init("invalid_arms", "'arms' must list \(Self.armCount.lowerBound)–\(Self.armCount.upperBound) arms, the control first"))
        }
        for (index, arm) in arms.enumerated() {
            if !Identifier.isValidRuleId(arm.armId) {
                faults.append(.init("invalid_request", "'arms[\(index)].armId' must be \(Identifier.ruleIdRequirement)"))
            }
            if let offerId = arm.offerId, !Identifier.isValidRuleId(offerId) {
                faults.append(.init("invalid_request", "'arms[\(index)].offerId' must be \(Identifier.ruleIdRequirement) or null"))
            }
            if !(arm.weight.isFinite && arm.weight >= 0) {
                faults.append(.init("invalid_weights", "'arms[\(index)].weight' must be a number of at least 0"))
            }
        }
        var seen: Set<String> = []
        for arm in arms where !seen.insert(arm.armId).inserted {
            faults.append(.init("duplicate_arm_id", "'arms' names arm '\(arm.armId)' twice"))
        }
        if !arms.isEmpty, arms.allSatisfy({ $0.weight == 0 }) {
            faults.append(.init("invalid_weights", "'arms' must give at least one arm a weight above 0"))
        }
        return faults
    }
}
