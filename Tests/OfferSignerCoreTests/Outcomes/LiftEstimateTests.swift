import Foundation
import Testing
@testable import OfferSignerCore

/// The lift of the treated over the holdout return rate, with its 95 % interval.
@Suite struct LiftEstimateTests {
    @Test func theDifferenceOfTheRatesWithNewcombesInterval() throws {
        // Newcombe (1998), Table II, example (a): 56/70 − 48/80 = 0.2000, 95 % CI 0.0524 to 0.3339.
        let lift = try #require(LiftEstimate.estimate(treated: 70, treatedReturned: 56, holdout: 80, holdoutReturned: 48))
        #expect(abs(lift.difference - 0.2) < 1e-9)
        #expect(abs(lift.low - 0.0524) < 0.0005)
        #expect(abs(lift.high - 0.3339) < 0.0005)
    }

    @Test func extremeRatesKeepAnInterval() throws {
        // Newcombe's example (g): 10/10 − 0/20, 95 % CI 0.6791 to 1: the Wald interval would be a point.
        let lift = try #require(LiftEstimate.estimate(treated: 10, treatedReturned: 10, holdout: 20, holdoutReturned: 0))
        #expect(lift.difference == 1)
        #expect(abs(lift.low - 0.6791) < 0.0005)
        #expect(lift.high == 1)
    }

    @Test func noLiftWithoutBothGroups() {
        #expect(LiftEstimate.estimate(treated: 0, treatedReturned: 0, holdout: 10, holdoutReturned: 3) == nil)
        #expect(LiftEstimate.estimate(treated: 10, treatedReturned: 3, holdout: 0, holdoutReturned: 0) == nil)
    }
}
