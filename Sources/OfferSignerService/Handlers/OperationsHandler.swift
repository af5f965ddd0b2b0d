import Foundation
import OfferSignerApplication
import OfferSignerCore
import OfferSignerHTTP
import OfferSignerStore

/// `GET /v1/keys`, `/healthz`, `/readyz` and `/metrics`.
struct OperationsHandler {
    let keyRing: KeyRing
    let signatures: any SignatureLog
    let metrics: Metrics
    let signingKeys: SigningKeyReadiness

    struct KeyDocument: Encodable {
        let bundleId: String
        let keyId: String
        let active: Bool
        let publicKeyPEM: String
    }

    /// Every app's key IDs and public keys, active or not. Never a private key.
    func keys(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let configuration = keyRing.current
        let keys = configuration.apps.values.sorted { $0.bundleId < $1.bundleId }.flatMap { app in
            app.keys.map { KeyDocument(bundleId: app.bundleId, keyId: $0.keyId, active: $0.active, publicKeyPEM: $0.publicKey.pem) }
        }
        return try HTTPResponse.json(["keys": keys])
    }

    func health(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        Self.healthy
    }

    /// `{"status":"ok"}`, encoded once: load balancers and orchestrators ask for it often.
    private static let healthy = HTTPResponse.json(encoded: #"{"status":"ok"}"#)

    /// Ready when the signature log takes appends (its last durable append did not fail, or a
    /// write succeeded since), every app has an active key, and every active key can sign (a
    /// key in a hardware module makes a test signature, at most once a second).
    func ready(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        let log = signatures.readiness()
        let keys = keyRing.current.apps.isEmpty ? "missing" : signingKeys.unavailableKeys().isEmpty ? "ok" : "unavailable"
        let ready = log.isReady && keys == "ok"
        // The reason stays out of this open route's answer (it may name SQL or a module); appends and signatures log it.
        let body = ["status": ready ? "ready" : "not ready", "database": log.isReady ? "ok" : "unavailable", "keys": keys]
        return try HTTPResponse.json(body, status: ready ? 200 : 503)
    }

    func metrics(_ request: HTTPRequest, _ context: ServiceContext) throws -> HTTPResponse {
        .text(metrics.render(), contentType: "text/plain; version=0.0.4; charset=utf-8")
    }
}

extension OperationsHandler: RouteGroup {
    func addRoutes(to router: inout RouterBuilder<ServiceContext>) {
        router.add("GET", "/v1/keys", policy: .anyRole, handler: keys(_:_:))
        router.add("GET", "/healthz", policy: .open, handler: health(_:_:))
        router.add("GET", "/readyz", policy: .open, handler: ready(_:_:))
        router.add("GET", "/metrics", policy: .open, handler: metrics(_:_:))
    }
}
