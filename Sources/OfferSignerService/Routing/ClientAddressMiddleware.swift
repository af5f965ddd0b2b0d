import Foundation
import OfferSignerApplication
import OfferSignerHTTP
import OfferSignerStore

/// Behind a reverse proxy (which TLS needs), the peer is the proxy: when it is one of the
/// trusted proxies, the client is the rightmost `X-Forwarded-For` address that is not itself
/// a trusted proxy. Per-address limits and the request log then see the real client.
struct ClientAddressMiddleware: HTTPMiddleware {
    let trustedProxies: Set<String>

    func handle(_ request: HTTPRequest, context: ServiceContext, next: HTTPResponder<ServiceContext>) throws -> HTTPResponse {
        guard trustedProxies.contains(request.remoteAddress), let forwarded = request.headers["X-Forwarded-For"] else {
            return try next(request, context)
        }
        let hops = forwarded.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard let client = hops.last(where: { !trustedProxies.contains($0) }), client.utf8.count <= 64 else {
            return try next(request, context)
        }
        var request = request
        request.remoteAddress = client
        return try next(request, context)
    }
}
