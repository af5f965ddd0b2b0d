import Foundation
import Testing
@testable import OfferSignerCore

/// Seeded simulations: experiments looked at 20 times, as marketing looks every day.
@Suite struct SequentialSimulationTests {
    static let alpha = 0.05
    static let looks = 20
    static let usersPerArm = 1000

    /// Whether an experiment of `usersPerArm` per arm, looked at `looks` times, is ever
    /// declared different by `declares` (control, treatment → established).
    static func everDeclared(rate: (control: Double, treatment: Double), generator: inout SeededGenerator,
                             declares: (MetricSample, MetricSample) -> Bool) -> Bool {
        var control = MetricSample(), treatment = MetricSample()
        let step = usersPerArm / looks
        for _ in 0..<looks {
            for _ in 0..<step {
                control.add(generator.unit() < rate.control ? 1 : 0)
                treatment.add(generator.unit() < rate.treatment ? 1 : 0)
            }
            if declares(control, treatment) { return true }
        }
        return false
    }

    static func sequential(_ control: MetricSample, _ treatment: MetricSample) -> Bool {
        ConfidenceSequence.compare(treatment: treatment, control: control, alpha: alpha, tuningSampleSize: 5000)?.isEstablished ?? false
    }

    /// The fixed-horizon z-test: valid once, not under peeking.
    static func fixedHorizon(_ control: MetricSample, _ treatment: MetricSample) -> Bool {
        let se = (control.variance / Double(control.count) + treatment.variance / Double(treatment.count)).squareRoot()
        return se > 0 && abs(treatment.mean - control.mean) / se > 1.959963984540054
    }

    static func share(experiments: Int, seed: UInt64, rate: (control: Double, treatment: Double),
                      declares: (MetricSample, MetricSample) -> Bool) -> Double {
        var generator = SeededGenerator(seed: seed)
        let declared = (0..<experiments).filter { _ in everDeclared(rate: rate, generator: &generator, declares: declares) }.count
        return Double(declared) / Double(experiments)
    }

    @Test func aaExperimentsRarelyEstablishADifference() {
        let experiments = 2000, seed: UInt64 = 20261201
        let falseShare = Self.share(experiments: experiments, seed: seed, rate: (0.3, 0.3), declares: Self.sequential)
        let simulationError = 3 * (Self.alpha * (1 - Self.alpha) / Double(experiments)).squareRoot()
        #expect(falseShare <= Self.alpha + simulationError, "seed \(seed): \(falseShare) of A/A experiments declared a difference")
    }

    @Test func theSimulationCatchesPeekingAtAFixedHorizonTest() {
        // The same A/A experiments read with the fixed-horizon test at every look exceed α
        // several times over: the check above would see an invalid method.
        let experiments = 2000, seed: UInt64 = 20261201
        let falseShare = Self.share(experiments: experiments, seed: seed, rate: (0.3, 0.3), declares: Self.fixedHorizon)
        #expect(falseShare > 2 * Self.alpha, "seed \(seed): fixed-horizon peeking declared only \(falseShare)")
    }

    @Test func aTrueDifferenceIsFound() {
        // 30 % against 40 % retained, 1,000 users per arm.
        let experiments = 300, seed: UInt64 = 7
        let found = Self.share(experiments: experiments, seed: seed, rate: (0.3, 0.4), declares: Self.sequential)
        #expect(found >= 0.9, "seed \(seed): the difference was found in only \(found) of experiments")
    }

    @Test func revenueAAExperimentsStayValid() {
        // Revenue per user: 80 % pay nothing, the rest an exponential amount, winsorised at 60.
        let experiments = 1000, seed: UInt64 = 99
        var generator = SeededGenerator(seed: seed)
        func revenue() -> Double {
            guard generator.unit() < 0.2 else { return 0 }
            return min(60, -log(1 - generator.unit()) * 15)
        }
        var declared = 0
        for _ in 0..<experiments {
            var control = MetricSample(), treatment = MetricSample()
            for _ in 0..<Self.looks {
                for _ in 0..<(Self.usersPerArm / Self.looks) {
                    control.add(revenue())
                    treatment.add(revenue())
                }
                if Self.sequential(control, treatment) { declared += 1; break }
            }
        }
        let share = Double(declared) / Double(experiments)
        let simulationError = 3 * (Self.alpha * (1 - Self.alpha) / Double(experiments)).squareRoot()
        #expect(share <= Self.alpha + simulationError, "seed \(seed): \(share) of revenue A/A experiments declared a difference")
    }
}
