import Foundation
import Testing
@testable import OfferSignerCore

/// The always-valid confidence sequence of a difference in means.
@Suite struct ConfidenceSequenceTests {
    func sample(_ count: Int, _ sum: Double, _ sumOfSquares: Double) -> MetricSample {
        var sample = MetricSample()
        sample.count = count
        sample.sum = sum
        sample.sumOfSquares = sumOfSquares
        return sample
    }

    /// Values computed by GrowthBook's gbstats (SequentialTwoSidedTTest, absolute difference,
    /// SampleMeanStatistic) for the same sufficient statistics.
    @Test(arguments: [
        (1000, 420.0, 420.0, 1000, 470.0, 470.0, 0.05, 5000, 0.04999999999999999, -0.01937274042783234, 0.11937274042783232, 0.2973438692023534),
        (300, 80.0, 80.0, 310, 60.0, 60.0, 0.05, 5000, -0.07311827956989247, -0.19847315968795268, 0.05223660054816773, 0.45119468684598385),
        (20000, 5000.0, 5000.0, 20000, 5300.0, 5300.0, 0.05, 5000, 0.015000000000000013, 0.0009563277767922207, 0.029043672223207806, 0.024452859668762678),
        (5000, 61234.5, 2.1e6, 5100, 64500.25, 2.3e6, 0.025, 5000, 0.4002078431372542, -0.7014097811047093, 1.5018254673792177, 1.0),
        (800, 300.0, 300.0, 790, 300.0, 300.0, 0.05, 1000, 0.004746835443038, -0.0693831752731905, 0.0788768461592665, 1.0),
    ])
    func matchesGrowthBook(_ c: (Int, Double, Double, Int, Double, Double, Double, Int, Double, Double, Double, Double)) throws {
        let control = sample(c.0, c.1, c.2), treatment = sample(c.3, c.4, c.5)
        let sequence = try #require(ConfidenceSequence.compare(treatment: treatment, control: control, alpha: c.6, tuningSampleSize: c.7))
        #expect(abs(sequence.difference - c.8) < 1e-12)
        #expect(abs(sequence.low - c.9) < 1e-9)
        #expect(abs(sequence.high - c.10) < 1e-9)
        #expect(abs(sequence.pValue - c.11) < 1e-9)
        #expect(sequence.isEstablished == (sequence.pValue < c.6))
    }

    @Test func widerThanTheFixedHorizonInterval() throws {
        // 470/1000 against 420/1000: the fixed-horizon 95 % interval is d ± 1.96·se.
        let control = sample(1000, 420, 420), treatment = sample(1000, 470, 470)
        let sequence = try #require(ConfidenceSequence.compare(treatment: treatment, control: control, alpha: 0.05, tuningSampleSize: 5000))
        let se = (control.variance / 1000 + treatment.variance / 1000).squareRoot()
        #expect(sequence.high - sequence.difference > 1.96 * se)
    }

    @Test func noSequenceBeforeTwoUsersPerArm() {
        #expect(ConfidenceSequence.compare(treatment: sample(1, 1, 1), control: sample(10, 3, 3), alpha: 0.05, tuningSampleSize: 5000) == nil)
        #expect(ConfidenceSequence.compare(treatment: sample(10, 3, 3), control: sample(10, 3, 3), alpha: 0, tuningSampleSize: 5000) == nil)
    }
}
