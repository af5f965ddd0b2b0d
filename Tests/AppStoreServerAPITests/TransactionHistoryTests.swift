@testable import AppStoreServerAPI
import AppStoreServerAPIMock
import Foundation
import OfferSignerCore
import Testing

@Suite("Get Transaction History v2")
struct TransactionHistoryTests {
    @Test("all pages are read, following revision until hasMore is false, with the same query on every page")
    func pagesWithRevision() throws {
        let testbed = try APITestbed(pageSize: 20)
        let ids = testbed.addCustomer(first: 2_000_000_000_000_100, count: 45)
        let client = try testbed.client()
        let request = TransactionHistoryRequest(startDate: Date(timeIntervalSince1970: 1_600_000_000), productIds: [TestSignedData.product],
                                                sort: .ascending, revoked: false)

        let history = try client.transactionHistory(transactionId: ids[7], request: request)

        #expect(history.pages == 3)
        #expect(history.bundleId == TestSignedData.bundleId)
        #expect(history.rawEnvironment == "Production")
        let transactions = try history.verifiedTransactions(using: TestSignedData.verifier())
        #expect(transactions.map(\.transactionId) == ids)
        #expect(transactions.allSatisfy { $0.originalTransactionId == ids[0] && $0.bundleId == TestSignedData.bundleId })

        let seen = testbed.store.requests
        #expect(seen.count == 3)
        #expect(seen.allSatisfy { $0.request.path == "/inApps/v2/history/\(ids[7])" && $0.request.method == "GET" })
        #expect(seen[0].request.queryValue("revision") == nil)
        #expect(seen[1].request.queryValue("revision") != nil && seen[2].request.queryValue("revision") != nil)
        let filters = seen.map { $0.request.query.filter { $0.name != "revision" }.map { "\($0.name)=\($0.value)" } }
        #expect(filters.allSatisfy { $0 == ["startDate=1600000000000", "productId=\(TestSignedData.product)", "sort=ASCENDING", "revoked=false"] })
    }

    @Test("one page at a time, for callers that store as they go")
    func pageByPage() throws {
        let testbed = try APITestbed(pageSize: 20)
        let ids = testbed.addCustomer(first: 3_000_000_000, count: 25)
        let client = try testbed.client()

        let first = try client.transactionHistoryPage(transactionId: ids[0])
        let second = try client.transactionHistoryPage(transactionId: ids[0], revision: first.revision)

        #expect(first.hasMore && !second.hasMore)
        #expect(first.signedTransactions.count == 20 && second.signedTransactions.count == 5)
        #expect(first.appAppleId == TestSignedData.appAppleId)
        #expect(try second.verifiedTransactions(using: TestSignedData.verifier()).map(\.transactionId) == Array(ids[20...]))
    }

    @Test("filters reach Apple: productId repeated, descending order")
    func filters() throws {
        let testbed = try APITestbed(pageSize: 4)
        let other = "com.example.app.pro_yearly"
        let ids = testbed.addCustomer(first: 4_000_000_000, count: 10, products: [TestSignedData.product, other])
        let client = try testbed.client()

        let history = try client.transactionHistory(transactionId: ids[3], request: TransactionHistoryRequest(productIds: [other], sort: .descending))

        let transactions = try history.verifiedTransactions(using: TestSignedData.verifier())
        #expect(transactions.map(\.transactionId) == [ids[9], ids[7], ids[5], ids[3], ids[1]])
        #expect(transactions.allSatisfy { $0.productId == other })
        #expect(history.pages == 2)
    }

    @Test("an unknown transaction is 404 4040010: transactionNotFound, not retried")
    func notFound() throws {
        let testbed = try APITestbed()
        let client = try testbed.client()

        let error = thrownError { () throws(AppStoreServerAPIError) in try client.transactionHistory(transactionId: "999") }

        #expect(error == .transactionNotFound(transactionId: "999"))
        #expect(error?.isTransient == false)
        #expect(testbed.store.requests.count == 1)
    }

    @Test("a transaction ID that is not digits is refused before anything is sent", arguments: ["", "12/../34", "12?x=1", "１２", "1 2",
                                                                                            String(repeating: "1", count: 65)])
    func hostileTransactionId(id: String) throws {
        let testbed = try APITestbed()
        let client = try testbed.client()

        let error = thrownError { () throws(AppStoreServerAPIError) in try client.transactionHistory(transactionId: id) }

        guard case .invalidArgument? = error else {
            Issue.record("expected invalidArgument, got \(String(describing: error))")
            return
        }
        #expect(testbed.store.requests.isEmpty)
    }

    @Test("a success body that is not a HistoryResponse is a malformedResponse naming the field")
    func malformedBody() throws {
        let testbed = try APITestbed()
        let ids = testbed.addCustomer(first: 5_000, count: 1)
        testbed.store.inject([.body(#"{"revision":"r","hasMore":false,"bundleId":"com.example.app"}"#)], into: "history")
        testbed.store.inject([.body(#"{"revision":"r","hasMore":"no","signedTransactions":[]}"#)], into: "history")
        let client = try testbed.client()

        let missing = thrownError { () throws(AppStoreServerAPIError) in try client.transactionHistory(transactionId: ids[0]) }
        let mistyped = thrownError { () throws(AppStoreServerAPIError) in try client.transactionHistory(transactionId: ids[0]) }

        #expect(missing == .malformedResponse("GET /inApps/v2/history/5000: missing field 'signedTransactions'"))
        #expect(mistyped == .malformedResponse("GET /inApps/v2/history/5000: field 'hasMore' is not of type Bool"))
    }

    @Test("a response about another app is refused")
    func otherBundle() throws {
        let testbed = try APITestbed()
        let ids = testbed.addCustomer(first: 6_000, count: 1)
        testbed.store.inject([.body(#"{"revision":"r","hasMore":false,"bundleId":"com.other.app","signedTransactions":[]}"#)], into: "history")
        let client = try testbed.client()

        let error = thrownError { () throws(AppStoreServerAPIError) in try client.transactionHistory(transactionId: ids[0]) }

        #expect(error == .malformedResponse("the response is about bundle 'com.other.app', not 'com.example.app'"))
    }

    @Test("a history that never ends is cut at maxPages, and a repeated revision is refused")
    func endlessPaging() throws {
        let testbed = try APITestbed(pageSize: 1)
        let ids = testbed.addCustomer(first: 7_000, count: 5)
        let client = try testbed.client { $0.maxPages = 3 }
        let looping = try testbed.client()
        let page = #"{"revision":"same","hasMore":true,"signedTransactions":[]}"#
        testbed.store.inject([.body(page), .body(page)], into: "history")

        let repeated = thrownError { () throws(AppStoreServerAPIError) in try looping.transactionHistory(transactionId: ids[0]) }
        let tooLong = thrownError { () throws(AppStoreServerAPIError) in try client.transactionHistory(transactionId: ids[0]) }

        #expect(repeated == .malformedResponse("the history of 7000 repeats revision 'same'"))
        #expect(tooLong == .malformedResponse("the history of 7000 has more than 3 pages"))
    }
}
