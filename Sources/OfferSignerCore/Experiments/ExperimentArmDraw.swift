import Foundation

/// The arm an experiment draws for a user the first time the user reaches its placement.
///
/// The draw is a stable hash: the first 8 bytes of SHA-256 of (experiment ID, U+0000, user),
/// big-endian, as a fraction of 2⁶⁴, placed on the arms' cumulative weights. The same user
/// draws the same arm under the same weights; the service records the first draw, so a
/// later change of weights moves only users not yet assigned.
public enum ExperimentArmDraw {
    /// The user's point in [0, 1) for the experiment.
    public static func point(experimentId: String, user: String) -> Double {
        // The bytes hashed, written in one buffer (no interpolated string copied into an array).
        var input: [UInt8] = []
        input.reserveCapacity(experimentId.utf8.count + 1 + user.utf8.count)
        input.append(contentsOf: experimentId.utf8)
        input.append(0)
        input.append(contentsOf: user.utf8)
        let digest = SHA256Digest.hash(input)
        var prefix: UInt64 = 0
        for index in 0..<8 { prefix = prefix << 8 | UInt64(digest[index]) }
        return Double(prefix >> 11) / Double(UInt64(1) << 53)
    }

    /// The index of the arm drawn among `weights` (non-negative, not all 0); nil when no arm
    /// has weight.
    public static func arm(experimentId: String, user: String, weights: [Double]) -> Int? {
        let total = weights.reduce(0) { $0 + max(0, $1) }
        guard total > 0 else { return nil }
        let target = point(experimentId: experimentId, user: user) * total
        var cumulative = 0.0
        for (index, weight) in weights.enumerated() where weight > 0 {
            cumulative += weight
            if target < cumulative { return index }
        }
        return weights.lastIndex { $0 > 0 }
    }
}
