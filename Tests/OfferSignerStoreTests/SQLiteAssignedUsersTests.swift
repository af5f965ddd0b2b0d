import Foundation
@testable import OfferSignerCore
import Testing
@testable import OfferSignerStore

/// The report's merge of two ordered cursors on SQLite (``SQLiteAssignedUsers``) against the
/// join PostgreSQL runs (``SQLAssignedUsers``), on one database: the same users, in the same
/// order, each with the same periods in the same order.
@Suite("SQLite: the report's merge of assignments and periods gives what the join gives")
struct SQLiteAssignedUsersTests {
    typealias Contract = StorageContract.ExperimentReportContract

    /// Tokens (hex, in key order) with one to three periods each; every third assigned, then a
    /// run of 40 not assigned (more than the cursor steps past before it seeks), then every
    /// other; `transaction:` users likewise; keys after the `transaction:` ones; assigned users
    /// without periods; periods of another environment and app, and ended too early.
    static func seed(_ stores: Stores) throws -> Int {
        _ = try StorageContract.ExperimentStoreContract.set(stores.experiments, .running)
        let t0 = Contract.t0
        var items: [HistoryItem] = []
        var assigned = 0
        func assign(_ key: String, _ index: Int) throws {
            try stores.experiments.record(Contract.assignment(key, arm: index % 2 == 0 ? "control" : "half"), previous: nil)
            assigned += 1
        }
        for user in 0..<120 {
            let token = String(format: "6f1c2a34-0000-4000-8000-%012lx", user * 7)
            if user < 30 ? user % 3 == 0 : user >= 70 && user % 2 == 0 { try assign(token, user) }
            for period in 0..<(1 + user % 3) {
                items.append(Contract.period("u\(user)-\(period)", original: "ou\(user)", user: token, from: t0 + Double(period * 40 + user) * 3_600,
                                             days: 30, price: 9_990 + period, currency: period == 1 ? "EUR" : "USD"))
            }
            if user % 10 == 0 {
                items.append(Contract.period("u\(user)-s", original: "ou\(user)-s", user: token, from: t0, days: 30, price: 1, currency: "USD",
                                             environment: .sandbox))
                items.append(Contract.period("u\(user)-x", original: "ou\(user)-x", user: token, from: t0, days: 30, price: 1, currency: "USD",
                                             bundleId: "com.example.other"))
                items.append(Contract.period("u\(user)-old", original: "ou\(user)-old", user: token, from: t0 - 100 * Contract.day, days: 30,
                                             price: 1, currency: "USD"))
            }
        }
        for user in 0..<80 {
            let original = String(format: "o-%05d", user)
            if user < 20 ? user % 4 == 0 : user >= 60 { try assign("transaction:" + original, user) }
            for period in 0..<(1 + user % 2) {
                items.append(Contract.period("t\(user)-\(period)", original: original, user: nil, from: t0 + Double(period * 30 + user) * 3_600,
                                             days: 40, price: 9_990, currency: period == 0 ? nil : "GBP"))
            }
        }
        for user in 0..<5 { try assign("zz-no-periods-\(user)", user) }
        try assign("transaction:no-periods", 1)
        try assign("zz-after", 0)
        items.append(Contract.period("z1", original: "o-z", user: "zz-after", from: t0 + Contract.day, days: 60, price: 9_990, currency: "USD"))
        for item in items { #expect(try stores.history.record(item)) }
        return assigned
    }

    /// Each user as key, arm and periods (in the order given).
    static func users(_ forEach: ((ExperimentAssignment, [ExperimentPeriod]) throws -> Void) throws -> Void) throws -> [String] {
        var users: [String] = []
        try forEach { assignment, periods in
            users.append("\(assignment.userKey) \(assignment.armId) \(assignment.assignedAt) \(assignment.eligible) "
                + periods.map { "\($0.purchasedAt)/\($0.expiresAt ?? -1)/\($0.revokedAt ?? -1)/\($0.price ?? -1)/\($0.currency)" }
                .joined(separator: ","))
        }
        return users
    }

    @Test("the same users, order and periods as the join, through steps past unassigned users and seeks over long runs of them")
    func sameAsJoin() throws {
        let temp = TemporaryDatabase()
        defer { temp.cleanup() }
        let stores = try Stores.open(.sqlite(path: temp.path))
        defer { stores.close() }
        let assigned = try Self.seed(stores)
        let database = try temp.open()
        for environment in ["Production", "Sandbox"] {
            let joined = try database.read { db in
                try Self.users { body in
                    try SQLAssignedUsers.forEach(db, bundleId: Contract.bundle, experimentId: "exp1", environment: environment, body)
                }
            }
            let merged = try database.read { db in
                try Self.users { body in
                    try SQLiteAssignedUsers.forEach(db, bundleId: Contract.bundle, experimentId: "exp1", environment: environment, body)
                }
            }
            #expect(merged == joined)
            if environment == "Production" {
                #expect(merged.count == assigned && merged.filter { $0.hasSuffix(" ") }.count == 6, "\(merged.count) users")
            }
        }
    }
}
