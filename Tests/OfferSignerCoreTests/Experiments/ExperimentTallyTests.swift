import Foundation
import Testing
@testable import OfferSignerCore

/// Adding up an experiment's users: counts per arm, maturity, winsorised revenue, Bonferroni,
/// the sample-ratio check and the verdict.
@Suite("Experiment tally and results")
struct ExperimentTallyTests {
    static let day: Int64 = 86_400_000
    static let t0: Int64 = 1_800_000_000_000

    static func experiment(arms: Int = 2, metric: ExperimentMetric = .retained, caps: [String: Int64] = ["USD": 10_000],
                           periods: [[Double]]? = nil) -> Experiment {
        let armList = (0..<arms).map { ExperimentArm(armId: $0 == 0 ? "control" : "arm\($0)", offerId: $0 == 0 ? nil : "offer\($0)", weight: 1) }
        var experiment = Experiment(definition: ExperimentDefinition(experimentId: "e", bundleId: "b", placement: "p", arms: armList,
                                                                     metric: metric, horizonDays: 30))
        experiment.status = .running
        experiment.revenueCaps = caps
        experiment.weightPeriods = (periods ?? [Array(repeating: 1, count: arms)]).map {
            ExperimentWeightPeriod(from: Date(milliseconds: t0), weights: $0)
        }
        return experiment
    }

    @Test("counts per arm; only users past their horizon are analysed, the others counted as maturing; revenue winsorised at the cap")
    func counts() {
        var tally = ExperimentTally(experiment: Self.experiment(metric: .revenue))
        let now = Self.t0 + 31 * Self.day
        func add(_ arm: String, at: Int64, outcome: ExperimentUserOutcome, usd: Int64 = 0, signed: Bool = false) {
            tally.add(armId: arm, weightPeriod: 0, assignedAt: at, eligible: signed, signed: signed, redeemed: false, now: now) {
                (outcome, usd > 0 ? ["USD": usd] : [:])
            }
        }
        add("control", at: Self.t0, outcome: .retained, usd: 4_000)
        add("control", at: Self.t0, outcome: .churned)
        add("arm1", at: Self.t0, outcome: .retained, usd: 50_000, signed: true)
        add("arm1", at: Self.t0, outcome: .inOffer, usd: 2_000, signed: true)
        add("arm1", at: Self.t0 + 2 * Self.day, outcome: .refunded, usd: 9_999_999)
        add("nope", at: Self.t0, outcome: .retained)
        let results = tally.results(now: Date(milliseconds: now))
        let control = results.arms[0], treatment = results.arms[1]
        #expect(control.assigned == 2 && control.matured == 2 && control.retained == 1 && control.churned == 1 && control.retainedRate == 0.5)
        #expect(treatment.assigned == 3 && treatment.matured == 2 && treatment.maturing == 1 && treatment.signed == 2 && treatment.inOffer == 1)
        #expect(treatment.refunded == 0, "the maturing user's outcome is not read")
        #expect(treatment.revenue == ["USD": 12_000], "50,000 winsorised at the cap of 10,000, plus 2,000")
        #expect(treatment.revenuePerUser == ["USD": 6_000] && control.revenuePerUser == ["USD": 2_000])
        #expect(results.comparisons.count == 1 && results.comparisons[0].currency == "USD" && results.comparisons[0].difference == 4_000)
    }

    @Test("the retained rate's interval is clipped to [−1, 1] at every look; revenue's is not")
    func clippedRate() throws {
        var tally = ExperimentTally(experiment: Self.experiment())
        let now = Self.t0 + 31 * Self.day
        // Two users a side, opposite outcomes: a difference of −1 whose raw interval runs far past −1 and +1.
        for (arm, outcome) in [("control", ExperimentUserOutcome.retained), ("control", .retained), ("arm1", .churned), ("arm1", .retained)] {
            tally.add(armId: arm, weightPeriod: 0, assignedAt: Self.t0, eligible: true, signed: true, redeemed: false, now: now) { (outcome, [:]) }
        }
        let comparison = try #require(tally.results(now: Date(milliseconds: now)).comparisons.first)
        let low = try #require(comparison.low), high = try #require(comparison.high)
        #expect(comparison.difference == -0.5)
        #expect(low == -1 && high == 1, "the raw sequence is wider than [−1, 1] with two users a side")
        #expect(comparison.sequence.allSatisfy { $0.low >= -1 && $0.high <= 1 } && !comparison.sequence.isEmpty)
        let raw = try #require(ConfidenceSequence.compare(treatment: { var s = MetricSample(); s.add(0); s.add(1); return s }(),
                                                          control: { var s = MetricSample(); s.add(1); s.add(1); return s }(),
                                                          alpha: 0.05, tuningSampleSize: 5_000))
        #expect(raw.low < -1 && raw.high > 1, "what the clip is for")

        var revenue = ExperimentTally(experiment: Self.experiment(metric: .revenue))
        for (arm, usd) in [("control", Int64(9_000)), ("control", 1_000), ("arm1", 9_000), ("arm1", 8_000)] {
            revenue.add(armId: arm, weightPeriod: 0, assignedAt: Self.t0, eligible: true, signed: true, redeemed: false, now: now) { (.retained, ["USD": usd]) }
        }
        let money = try #require(revenue.results(now: Date(milliseconds: now)).comparisons.first)
        #expect((money.low ?? 0) < -1 && (money.high ?? 0) > 1, "revenue per user is not a rate")
    }

    @Test("Bonferroni: three arms on revenue in two currencies are four comparisons, each at 1 − α/4, p-values × 4")
    func bonferroni() {
        let tally = ExperimentTally(experiment: Self.experiment(arms: 3, metric: .revenue, caps: ["USD": 1, "EUR": 1]))
        let results = tally.results(now: Date(milliseconds: Self.t0))
        #expect(results.comparisonCount == 4 && abs(results.level - (1 - 0.05 / 4)) < 1e-12)
        #expect(results.comparisons.map { "\($0.armId) \($0.currency ?? "")" } == ["arm1 EUR", "arm1 USD", "arm2 EUR", "arm2 USD"])
        #expect(ExperimentTally(experiment: Self.experiment(arms: 3)).results(now: Date()).comparisonCount == 2)
        #expect(results.verdict.hasPrefix("Not established yet: no assigned user has reached the horizon"))
    }

    /// `users` per arm with retention `rates`, all matured, drawn from `seed`.
    static func simulated(rates: [Double], users: Int, seed: UInt64, periods: [[Double]]? = nil, expectedUsers: Int? = nil) -> ExperimentResults {
        var experiment = Self.experiment(arms: rates.count, periods: periods)
        experiment.definition.expectedUsers = expectedUsers
        var tally = ExperimentTally(experiment: experiment)
        var random = SeededGenerator(seed: seed)
        for (arm, rate) in rates.enumerated() {
            for index in 0..<users {
                let retained = random.unit() < rate
                tally.add(armId: experiment.arms[arm].armId, weightPeriod: 0, assignedAt: Self.t0 + Int64(index) * 60_000, eligible: true,
                          signed: true, redeemed: false, now: Self.t0 + 400 * Self.day) { (retained ? .retained : .churned, [:]) }
            }
        }
        return tally.results(now: Date(milliseconds: Self.t0 + 400 * Self.day))
    }

    @Test("a true difference of 10 points over 4,000 users is established, said in words; the sequence is there day by day")
    func establishedDifference() throws {
        let results = Self.simulated(rates: [0.3, 0.4], users: 2_000, seed: 7)
        let comparison = try #require(results.comparisons.first)
        #expect(comparison.established && (comparison.low ?? 0) > 0 && (comparison.pValue ?? 1) < 0.05)
        #expect(results.verdict.hasPrefix("Established: arm 'arm1' brings a higher retained rate than control 'control'"), "\(results.verdict)")
        #expect(!results.verdict.lowercased().contains("winner"))
        #expect(comparison.sequence.count == 2 && comparison.sequence.last?.users == 4_000, "users matured over two days")
        #expect(comparison.sequence.last?.low == comparison.low)
    }

    @Test("no difference: not established yet, in words")
    func noDifference() throws {
        let results = Self.simulated(rates: [0.3, 0.3], users: 2_000, seed: 11)
        #expect(results.comparisons.first?.established == false)
        #expect(results.verdict.hasPrefix("Not established yet: no arm differs"), "\(results.verdict)")
    }

    @Test("a sample ratio mismatch is flagged, and then nothing is established whatever the sequence says")
    func sampleRatioMismatch() throws {
        // Equal users drawn under weights 1:3 do not fit them.
        let results = Self.simulated(rates: [0.3, 0.4], users: 2_000, seed: 7, periods: [[1, 3]])
        let ratio = try #require(results.sampleRatio)
        #expect(ratio.mismatch && ratio.pValue < 0.001)
        #expect(results.expectedAssigned == [1_000, 3_000])
        #expect(results.comparisons.first?.established == false)
        #expect(results.verdict.hasPrefix("Sample ratio mismatch"))
        let fits = Self.simulated(rates: [0.3, 0.3], users: 2_000, seed: 3)
        #expect(fits.sampleRatio?.mismatch == false && fits.sampleRatio?.pValue == 1)
    }

    @Test("each user's expected arm follows the weights they were drawn under")
    func weightPeriods() throws {
        var tally = ExperimentTally(experiment: Self.experiment(periods: [[1, 1], [0, 1]]))
        for (arm, period) in [("control", 0), ("arm1", 0), ("arm1", 1), ("arm1", 1)] {
            tally.add(armId: arm, weightPeriod: period, assignedAt: Self.t0, eligible: false, signed: false, redeemed: false, now: Self.t0) {
                (.churned, [:])
            }
        }
        let results = tally.results(now: Date(milliseconds: Self.t0))
        #expect(results.expectedAssigned == [1, 3] && results.arms.map(\.maturing) == [1, 3])
    }

    @Test("an outcome at the horizon: refunded first, then in offer, retained, churned; revenue net of refunds")
    func outcomes() {
        let h = Self.t0 + 30 * Self.day
        func period(_ from: Int64, _ to: Int64?, offer: Int? = nil, revoked: Bool = false, price: Int64 = 9_990, currency: String = "USD") -> ExperimentPeriod {
            ExperimentPeriod(purchasedAt: from, expiresAt: to, revokedAt: revoked ? to : nil, offerType: offer, price: price, currency: currency)
        }
        let renewedFull = [period(Self.t0 + Self.day, Self.t0 + 31 * Self.day, offer: 2, price: 4_990), period(Self.t0 + 31 * Self.day, nil)]
        #expect(ExperimentUserOutcome.judge(renewedFull, assignedAt: Self.t0, horizon: h) == .inOffer)
        #expect(ExperimentUserOutcome.judge([period(Self.t0 + 10 * Self.day, Self.t0 + 40 * Self.day)], assignedAt: Self.t0, horizon: h) == .retained)
        #expect(ExperimentUserOutcome.judge([period(Self.t0 - 100 * Self.day, Self.t0 + 265 * Self.day)], assignedAt: Self.t0, horizon: h) == .retained,
                "a yearly period bought before assignment still covers the horizon")
        #expect(ExperimentUserOutcome.judge([period(Self.t0 + Self.day, Self.t0 + 20 * Self.day)], assignedAt: Self.t0, horizon: h) == .churned)
        #expect(ExperimentUserOutcome.judge([], assignedAt: Self.t0, horizon: h) == .churned)
        let refunded = [period(Self.t0 + Self.day, Self.t0 + 31 * Self.day, revoked: true), period(Self.t0 + 10 * Self.day, Self.t0 + 40 * Self.day, currency: "EUR")]
        #expect(ExperimentUserOutcome.judge(refunded, assignedAt: Self.t0, horizon: h) == .refunded)
        #expect(ExperimentUserOutcome.revenue(refunded, assignedAt: Self.t0, horizon: h) == ["EUR": 9_990])
        #expect(ExperimentUserOutcome.revenue(renewedFull, assignedAt: Self.t0, horizon: h) == ["USD": 4_990], "the period after the horizon is not counted")
    }
}
