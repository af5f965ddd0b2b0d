import Foundation
import Testing
@testable import OfferSignerCore

/// The stable draw of an experiment's arm.
@Suite struct ExperimentArmDrawTests {
    @Test func theSameUserDrawsTheSameArm() {
        let weights = [1.0, 1.0, 2.0]
        for user in (0..<200).map({ "user-\($0)" }) {
            #expect(ExperimentArmDraw.arm(experimentId: "e1", user: user, weights: weights)
                == ExperimentArmDraw.arm(experimentId: "e1", user: user, weights: weights))
        }
    }

    /// The points of the documented hash (the first 8 bytes of SHA-256 of experiment, U+0000,
    /// user, in UTF-8), computed apart from the service (Python's hashlib): a stored
    /// assignment's arm is the arm drawn again only while the draw never changes.
    @Test("the draw's point is pinned: the same for every build", arguments: [
        ("e1", "user-1", 0.9759141912431273),
        ("bench_experiment", "bench-user-00010000", 0.6709677764212584),
        ("exp1", "transaction:2000000123456789", 0.3573325960104248),
        ("exp1", "6f1c2a34-0000-4000-8000-000000000001", 0.103384863682631),
        ("é", "ü-user", 0.6319975108194205),
    ])
    func pinnedPoints(experimentId: String, user: String, point: Double) {
        #expect(ExperimentArmDraw.point(experimentId: experimentId, user: user) == point)
    }

    @Test func drawsFollowTheWeights() throws {
        let weights = [1.0, 1.0, 2.0]
        var counts = [0, 0, 0]
        for index in 0..<20_000 {
            counts[try #require(ExperimentArmDraw.arm(experimentId: "exp", user: "u\(index)", weights: weights))] += 1
        }
        let check = try #require(SampleRatioCheck.check(assigned: counts, weights: weights))
        #expect(!check.mismatch, "counts \(counts)")
        #expect(counts[2] > counts[0] + counts[1] - 600)
    }

    @Test func experimentsDrawIndependently() {
        // The same users in two experiments: the arms agree about half the time, not always.
        let users = (0..<2000).map { "u\($0)" }
        let agree = users.filter {
            ExperimentArmDraw.arm(experimentId: "a", user: $0, weights: [1, 1]) == ExperimentArmDraw.arm(experimentId: "b", user: $0, weights: [1, 1])
        }.count
        #expect(agree > 850 && agree < 1150)
    }

    @Test func anArmOfNoWeightIsNeverDrawn() {
        for index in 0..<2000 {
            #expect(ExperimentArmDraw.arm(experimentId: "e", user: "u\(index)", weights: [0, 1, 0]) == 1)
        }
        #expect(ExperimentArmDraw.arm(experimentId: "e", user: "u", weights: [0, 0]) == nil)
    }
}
