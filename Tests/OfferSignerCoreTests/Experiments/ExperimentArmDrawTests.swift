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
