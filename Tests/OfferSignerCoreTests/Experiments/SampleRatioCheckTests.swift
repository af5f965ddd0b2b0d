import Foundation
import Testing
@testable import OfferSignerCore

/// The sample-ratio-mismatch check, against values from scipy.stats.chisquare.
@Suite struct SampleRatioCheckTests {
    @Test(arguments: [
        ([5100, 4900], [1.0, 1.0], 4.0, 0.04550026389635857),
        ([5200, 4800], [1.0, 1.0], 16.0, 6.334248366623988e-05),
        ([3400, 3300, 3300], [1.0, 1.0, 1.0], 2.0, 0.36787944117144245),
        ([2100, 7900], [20.0, 80.0], 6.25, 0.01241933065155227),
        ([1000, 1100, 900], [1.0, 1.0, 1.0], 20.0, 4.539992976248486e-05),
    ])
    func matchesScipy(assigned: [Int], weights: [Double], chiSquare: Double, pValue: Double) throws {
        let check = try #require(SampleRatioCheck.check(assigned: assigned, weights: weights))
        #expect(abs(check.chiSquare - chiSquare) < 1e-9)
        #expect(abs(check.pValue - pValue) / pValue < 1e-9)
        #expect(check.mismatch == (pValue < 0.001))
    }

    @Test(arguments: [
        (0.5, 1, 0.47950012218695337), (30.0, 5, 1.4748581038443073e-05), (3.84, 1, 0.05004352124870519),
        (100.0, 3, 1.5541594313896026e-21), (0.01, 10, 0.999999999999974),
    ])
    func chiSquareTailMatchesScipy(statistic: Double, degreesOfFreedom: Int, expected: Double) {
        let tail = ChiSquareDistribution.survival(statistic, degreesOfFreedom: degreesOfFreedom)
        #expect(abs(tail - expected) / expected < 1e-9)
    }

    @Test func usersInAnArmOfNoWeightAreAMismatch() throws {
        let check = try #require(SampleRatioCheck.check(assigned: [500, 500, 3], weights: [1, 1, 0]))
        #expect(check.unexpectedUsers == 3)
        #expect(check.mismatch)
    }

    @Test func nothingToCheckWithoutTwoArmsOrUsers() {
        #expect(SampleRatioCheck.check(assigned: [10], weights: [1]) == nil)
        #expect(SampleRatioCheck.check(assigned: [0, 0], weights: [1, 1]) == nil)
        #expect(SampleRatioCheck.check(assigned: [1, 2], weights: [1]) == nil)
    }
}
