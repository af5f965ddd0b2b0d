import Foundation
import OfferSignerCore

extension ExperimentReport {
    /// The CSV header of ``csvRows``.
    public static let csvHeader = [
        "experimentId", "environment", "generatedAt", "metric", "armId", "offerId", "weight", "assigned", "eligible", "signed", "redeemed",
        "matured", "maturing", "retained", "churned", "refunded", "inOffer", "retainedRate", "revenuePerUser", "difference", "low", "high",
        "pValue", "established", "sampleRatioPValue", "sampleRatioMismatch", "verdict",
    ]

    /// One row per arm, the control first with empty comparison fields; a revenue arm's
    /// comparison per currency as `CUR value` pairs joined by `;` (`EUR 12.5;USD -3.25`).
    public var csvRows: [[String]] {
        let generated = RFC3339.string(from: generatedAt)
        return results.arms.map { arm in
            let comparisons = results.comparisons.filter { $0.armId == arm.armId && arm.armId != results.arms.first?.armId }
            func field(_ value: (ExperimentComparison) -> Double?) -> String {
                comparisons.compactMap { comparison -> String? in
                    guard let number = value(comparison) else { return nil }
                    return comparison.currency.map { "\($0) \(number)" } ?? String(number)
                }.joined(separator: ";")
            }
            return [experimentId, environment, generated, metric.rawValue, arm.armId, arm.offerId ?? "", String(arm.weight),
                    String(arm.assigned), String(arm.eligible), String(arm.signed), String(arm.redeemed), String(arm.matured),
                    String(arm.maturing), String(arm.retained), String(arm.churned), String(arm.refunded), String(arm.inOffer),
                    arm.retainedRate.map { String($0) } ?? "",
                    arm.revenuePerUser.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ";"),
                    field(\.difference), field(\.low), field(\.high), field(\.pValue),
                    comparisons.map { comparison in comparison.currency.map { "\($0) \(comparison.established)" } ?? String(comparison.established) }
                        .joined(separator: ";"),
                    results.sampleRatio.map { String($0.pValue) } ?? "", results.sampleRatio.map { String($0.mismatch) } ?? "",
                    results.verdict]
        }
    }

    /// The whole CSV document.
    public var csv: String {
        csvRows.reduce(CSV.row(Self.csvHeader)) { $0 + CSV.row($1) }
    }
}
