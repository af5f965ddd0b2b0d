import Foundation
import OfferSignerCore
import OfferSignerHTTP

/// `GET /v1/keys`, `/healthz`, `/readyz` and `/metrics`.
struct OperationsHandler {
    let dependencies: ServiceDependencies

    struct KeyDocument: Encodable {
        let bundleId: String
        let keyId: String
        let active: Bool
        let publicKeyPEM: String
    }

    /// Every app's key IDs and public keys, active or not. Never a private key.
    func keys(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let configuration = dependencies.keyRing.current
        let keys = configuration.apps.values.sorted { $0.bundleId < $1.bundleId }.flatMap { app in
            app.keys.map { KeyDocument(bundleId: app.bundleId, keyId: $0.keyId, active: $0.active, publicKeyPEM: $0.publicKey.pem) }
        }
        return try HTTPResponse.json(["keys": keys])
    }

    func health(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        try HTTPResponse.json(["status": "ok"])
    }

    /// Ready when the database answers and every app has an active key.
    func ready(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let databaseReady = dependencies.signatures.isReady()
        let keysReady = !dependencies.keyRing.current.apps.isEmpty
        let body = ["status": databaseReady && keysReady ? "ready" : "not ready",
                    "database": databaseReady ? "ok" : "unavailable", "keys": keysReady ? "ok" : "missing"]
        return try HTTPResponse.json(body, status: databaseReady && keysReady ? 200 : 503)
    }

    func metrics(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        .text(dependencies.metrics.render(), contentType: "text/plain; version=0.0.4; charset=utf-8")
    }
}
