import Foundation
import OfferSignerCore

/// An experiment's report (`GET /v1/stats/experiments/{experimentId}`, `offer-signer
/// experiments report`): the experiment, its environment and moment, and its results.
public struct ExperimentReport: Encodable, Sendable {
    public var experimentId: String
    public var bundleId: String
    public var placement: String
    public var status: ExperimentStatus
    public var metric: ExperimentMetric
    public var horizonDays: Int
    public var alpha: Double
    /// The tuning sample size of the sequences (`expectedUsers`, or 5,000).
    public var tuningSampleSize: Int
    public var environment: String
    @EncodedAsNull public var startedAt: Date?
    @EncodedAsNull public var stoppedAt: Date?
    /// When the report was made: users whose horizon had passed by then are analysed.
    public var generatedAt: Date
    public var revenueCaps: [String: Int64]
    public var results: ExperimentResults

    enum CodingKeys: String, CodingKey {
        case experimentId, bundleId, placement, status, metric, horizonDays, alpha, tuningSampleSize, environment, startedAt, stoppedAt,
             generatedAt, revenueCaps
    }

    /// The experiment's members, then the results' (`arms`, `comparisons`, `sampleRatio`, …, `verdict`) at the top level.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(experimentId, forKey: .experimentId)
        try container.encode(bundleId, forKey: .bundleId)
        try container.encode(placement, forKey: .placement)
        try container.encode(status, forKey: .status)
        try container.encode(metric, forKey: .metric)
        try container.encode(horizonDays, forKey: .horizonDays)
        try container.encode(alpha, forKey: .alpha)
        try container.encode(tuningSampleSize, forKey: .tuningSampleSize)
        try container.encode(environment, forKey: .environment)
        try container.encode(_startedAt, forKey: .startedAt)
        try container.encode(_stoppedAt, forKey: .stoppedAt)
        try container.encode(generatedAt, forKey: .generatedAt)
        try container.encode(revenueCaps, forKey: .revenueCaps)
        try results.encode(to: encoder)
    }
}
