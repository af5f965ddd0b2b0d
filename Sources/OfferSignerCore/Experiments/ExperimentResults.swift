import Foundation

/// An experiment's results at one moment: the arms, each arm against the control, the
/// sample-ratio check, and the verdict in words.
public struct ExperimentResults: Codable, Hashable, Sendable {
    public var arms: [ExperimentArmResult]
    public var comparisons: [ExperimentComparison]
    /// Nil until two arms of positive weight have users.
    @EncodedAsNull public var sampleRatio: SampleRatioCheck?
    /// Per arm, the users expected from the weights each user was drawn under.
    public var expectedAssigned: [Double]
    /// The number of comparisons α is divided among (Bonferroni).
    public var comparisonCount: Int
    /// The level of each confidence sequence: 1 − α / comparisons.
    public var level: Double

    /// The verdict in words: whether a difference is established, never a winner from a
    /// fixed-horizon test.
    public var verdict: String {
        if let sampleRatio, sampleRatio.mismatch {
            return "Sample ratio mismatch (p = \(Self.format(sampleRatio.pValue))): the arms' users do not fit their weights, so assignment or recording is broken and no difference can be trusted."
        }
        let established = comparisons.filter(\.established)
        guard !established.isEmpty else {
            let matured = arms.reduce(0) { $0 + $1.matured }
            return matured == 0
                ? "Not established yet: no assigned user has reached the horizon."
                : "Not established yet: no arm differs from the control with confidence; keep watching (the intervals stay valid however often you look)."
        }
        return "Established: " + established.map { comparison in
            let higher = (comparison.difference ?? 0) > 0
            let what = comparison.currency.map { "\(higher ? "more" : "less") revenue per user in \($0)" }
                ?? "a \(higher ? "higher" : "lower") retained rate"
            return "arm '\(comparison.armId)' brings \(what) than control '\(comparison.controlArmId)' (difference \(Self.format(comparison.difference ?? 0)), always-valid interval \(Self.format(comparison.low ?? 0)) to \(Self.format(comparison.high ?? 0)))"
        }.joined(separator: "; ") + "."
    }

    static func format(_ value: Double) -> String {
        String(format: abs(value) < 0.01 && value != 0 ? "%.2g" : "%.4f", value)
    }

    enum CodingKeys: String, CodingKey { case arms, comparisons, sampleRatio, expectedAssigned, comparisonCount, level, verdict }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(arms, forKey: .arms)
        try container.encode(comparisons, forKey: .comparisons)
        try container.encode(EncodedAsNull(wrappedValue: sampleRatio.map(SampleRatioDocument.init)), forKey: .sampleRatio)
        try container.encode(expectedAssigned, forKey: .expectedAssigned)
        try container.encode(comparisonCount, forKey: .comparisonCount)
        try container.encode(level, forKey: .level)
        try container.encode(verdict, forKey: .verdict)
    }

    public init(arms: [ExperimentArmResult], comparisons: [ExperimentComparison], sampleRatio: SampleRatioCheck?,
                expectedAssigned: [Double], comparisonCount: Int, level: Double) {
        self.arms = arms
        self.comparisons = comparisons
        self.sampleRatio = sampleRatio
        self.expectedAssigned = expectedAssigned
        self.comparisonCount = comparisonCount
        self.level = level
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        arms = try container.decode([ExperimentArmResult].self, forKey: .arms)
        comparisons = try container.decode([ExperimentComparison].self, forKey: .comparisons)
        sampleRatio = try container.decodeIfPresent(SampleRatioDocument.self, forKey: .sampleRatio).map {
            SampleRatioCheck(chiSquare: $0.chiSquare, pValue: $0.pValue, unexpectedUsers: $0.unexpectedUsers)
        }
        expectedAssigned = try container.decode([Double].self, forKey: .expectedAssigned)
        comparisonCount = try container.decode(Int.self, forKey: .comparisonCount)
        level = try container.decode(Double.self, forKey: .level)
    }
}

/// The sample-ratio check as the report writes it, with whether it is flagged.
struct SampleRatioDocument: Codable {
    var chiSquare: Double
    var pValue: Double
    var unexpectedUsers: Int
    var mismatch: Bool
    var threshold: Double

    init(_ check: SampleRatioCheck) {
        chiSquare = check.chiSquare
        pValue = check.pValue
        unexpectedUsers = check.unexpectedUsers
        mismatch = check.mismatch
        threshold = SampleRatioCheck.threshold
    }
}
