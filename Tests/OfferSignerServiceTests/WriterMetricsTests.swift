import Foundation
@testable import OfferSignerService
import Testing

/// The signature log's group commit and the SQLite WAL as `/metrics` shows them: what the
/// benchmark (bench/ceiling.sh) divides into records and pages per batch.
@Suite("Writer metrics")
struct WriterMetricsTests {
    @Test("batches, records and WAL frames count the signatures appended")
    func countsAppends() throws {
        let env = try TestEnvironment()
        try env.putOffer(TestEnvironment.demoRule())
        func sample(_ series: String) -> Int? {
            AlertMetricsTests.sample(env.send("GET", "/metrics", role: nil).text, series).flatMap { Int($0) }
        }
        let frames = sample("offer_signer_database_wal_frames_total") ?? -1
        #expect(sample("offer_signer_signature_log_records_total") == 0)
        #expect(sample("offer_signer_signature_log_batches_total") == 0)
        for user in ["a", "b", "c"] {
            let response = env.send("POST", "/v1/offers/sign",
                                    json: #"{"productId": "\#(TestEnvironment.product)", "offerId": "winback", "userId": "\#(user)"}"#)
            #expect(response.status == 200)
        }
        #expect(sample("offer_signer_signature_log_records_total") == 3)
        #expect(sample("offer_signer_signature_log_batches_total").map { (1...3).contains($0) } == true)
        // Each commit appends at least the pages of its row and of the chain's recorded end.
        #expect((sample("offer_signer_database_wal_frames_total") ?? 0) >= frames + 6)
        #expect(sample(#"offer_signer_database_wal_checkpoints_total{on="writer"}"#) != nil)
    }
}
