import Foundation

/// The arms' weights from one moment of a running experiment on: the weights users first
/// reaching the placement from `from` on were drawn under (an assignment records its period).
public struct ExperimentWeightPeriod: Codable, Hashable, Sendable {
    public var from: Date
    /// One weight per arm, in the arms' order.
    public var weights: [Double]

    public init(from: Date, weights: [Double]) {
        self.from = from
        self.weights = weights
    }
}
