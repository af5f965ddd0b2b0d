import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// `GET /v1/stats/offers` (every offer's signatures in the last 24 hours and 7 days) and
/// `GET /v1/stats/offers/{offerId}?bundleId=&from=&to=&bucket=day` (signatures and refusals per day,
/// refusals by failed criterion). Days are UTC; `from` and `to` are dates (`2026-11-30`)
/// or RFC 3339 times (their UTC day), both included.
struct StatsHandler {
    let keyRing: KeyRing
    let offers: any OfferStore
    let activity: OfferActivity
    let clock: WallClock
    static let maxDays: Int64 = 366
    static let dayMilliseconds: Int64 = 86_400_000

    struct Summary: Encodable {
        let asOf: Date
        let offers: [OfferSummary]
    }

    struct OfferSummary: Encodable {
        let offerId: String
        let bundleId: String
        let signaturesLast24h: Int
        let signaturesLast7d: Int
        /// Refused signing requests on the last 7 UTC days, today included.
        let refusalsLast7Days: Int
    }

    func summary(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let activity = activity
        try activity.flush()
        let now = clock.now
        let end = now.milliseconds + 1
        let day = OfferActivity.day(of: now)
        let last24h = try activity.store.signatures(from: end - Self.dayMilliseconds, to: end)
        let last7d = try activity.store.signatures(from: end - 7 * Self.dayMilliseconds, to: end)
        let refusals = try activity.store.refusedRequests(fromDay: day - 6, toDay: day)
        let bundle = request.query["bundleId"]
        let offers = try offers.offers()
            .filter { bundle == nil || $0.rule.bundleId == bundle }
            .map { offer in
                let key = OfferKey(bundleId: offer.rule.bundleId, offerId: offer.rule.offerId)
                return OfferSummary(offerId: key.offerId, bundleId: key.bundleId, signaturesLast24h: last24h[key] ?? 0,
                                    signaturesLast7d: last7d[key] ?? 0, refusalsLast7Days: refusals[key] ?? 0)
            }
        return try HTTPResponse.json(Summary(asOf: now, offers: offers))
    }

    struct OfferStats: Encodable {
        let offerId: String
        let bundleId: String
        let bucket: String
        let from: String
        let to: String
        let days: [DayStats]
        let totals: Totals
    }

    struct DayStats: Encodable {
        let day: String
        let signatures: Int
        /// Refused signing requests (one request may fail several criteria).
        let refusals: Int
        let refusalsByCriterion: [String: Int]
    }

    struct Totals: Encodable {
        let signatures: Int
        let refusals: Int
        let refusalsByCriterion: [String: Int]
    }

    func offer(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let bucket = request.query["bucket"] ?? "day"
        guard bucket == "day" else { throw HTTPProblem.invalidRequest("'bucket' must be 'day'") }
        let stored = try OfferAdminHandler.stored(request, context, keyRing: keyRing, offers: offers)
        let bundleId = stored.rule.bundleId
        let offerId = stored.rule.offerId
        let today = OfferActivity.day(of: clock.now)
        let toDay = try Self.day(request.query["to"], name: "to") ?? today
        let fromDay = try Self.day(request.query["from"], name: "from") ?? (toDay - 29)
        guard fromDay <= toDay else { throw HTTPProblem.invalidRequest("'from' must not be after 'to'") }
        guard toDay - fromDay < Self.maxDays else { throw HTTPProblem.invalidRequest("at most \(Self.maxDays) days at once") }

        let activity = activity
        try activity.flush()
        let signatures = try activity.store.signaturesPerDay(bundleId: bundleId, offerId: offerId, from: fromDay * Self.dayMilliseconds,
                                                             to: (toDay + 1) * Self.dayMilliseconds)
        var refusals: [Int64: [String: Int]] = [:]
        for count in try activity.store.refusals(bundleId: bundleId, offerId: offerId, fromDay: fromDay, toDay: toDay) {
            refusals[count.day, default: [:]][count.criterion, default: 0] += count.count
        }
        let days = (fromDay...toDay).map { day in
            var byCriterion = refusals[day] ?? [:]
            let requests = byCriterion.removeValue(forKey: RefusalCount.requests) ?? 0
            return DayStats(day: Self.dateText(day), signatures: signatures[day] ?? 0, refusals: requests, refusalsByCriterion: byCriterion)
        }
        let totals = Totals(signatures: days.reduce(0) { $0 + $1.signatures }, refusals: days.reduce(0) { $0 + $1.refusals },
                            refusalsByCriterion: days.reduce(into: [:]) { sum, day in sum.merge(day.refusalsByCriterion, uniquingKeysWith: +) })
        return try HTTPResponse.json(OfferStats(offerId: offerId, bundleId: bundleId, bucket: bucket, from: Self.dateText(fromDay),
                                                to: Self.dateText(toDay), days: days, totals: totals))
    }

    /// The UTC day of a `YYYY-MM-DD` date or an RFC 3339 time; nil when absent.
    static func day(_ text: String?, name: String) throws(HTTPProblem) -> Int64? {
        guard let text else { return nil }
        if let date = RFC3339.date(from: text) ?? RFC3339.date(from: text + "T00:00:00Z") {
            return OfferActivity.day(of: date)
        }
        throw .invalidRequest("'\(name)' must be a date such as 2026-11-30 or an RFC 3339 time")
    }

    /// `YYYY-MM-DD` of a day number.
    static func dateText(_ day: Int64) -> String {
        String(RFC3339.string(from: Date(timeIntervalSince1970: Double(day) * 86_400)).prefix(10))
    }
}

extension StatsHandler: RouteGroup {
    func addRoutes(to router: inout RouterBuilder<ServiceContext>) {
        router.add("GET", "/v1/stats/offers", policy: .roles([.marketing, .auditor]), query: ["bundleId"], handler: summary(_:_:))
        router.add("GET", "/v1/stats/offers/{offerId}", policy: .roles([.marketing, .auditor]), query: ["bundleId", "from", "to", "bucket"],
                   handler: offer(_:_:))
    }
}
