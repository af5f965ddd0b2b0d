import Foundation

/// One arm against the control on the experiment's metric (for revenue, in one currency):
/// the difference with its always-valid confidence sequence and p-value, and how it went over
/// time (valid at every look, since the sequence is time-uniform).
public struct ExperimentComparison: Codable, Hashable, Sendable {
    public var armId: String
    public var controlArmId: String
    /// The currency of a revenue comparison (nil for the retained rate).
    @EncodedAsNull public var currency: String?
    /// The matured users of both arms.
    public var users: Int
    /// Treatment minus control: a rate difference (0.03 is 3 points), or milli-units per user.
    @EncodedAsNull public var difference: Double?
    @EncodedAsNull public var low: Double?
    @EncodedAsNull public var high: Double?
    /// The always-valid p-value, already Bonferroni-corrected (× the number of comparisons, at most 1).
    @EncodedAsNull public var pValue: Double?
    /// The sequence excludes 0 (and the sample ratio is sound).
    public var established: Bool
    /// The sequence at the end of each day users matured (at most 366 points, the latest last).
    public var sequence: [Point]

    /// The sequence at one look.
    public struct Point: Codable, Hashable, Sendable {
        public var at: Date
        public var users: Int
        public var difference: Double
        public var low: Double
        public var high: Double
    }
}
